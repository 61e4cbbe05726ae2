-- Warp's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A Warp lake file is one conversation's row records: its agent_conversations
-- row, its agent_tasks rows (each task a protobuf message, read with brain_protobuf_json:
-- fields by number, every field a list; see src/core/agents/warp/README.md) and its ai_queries rows.

-- One row per row-record line (dialects.row_records, kit/rows.sql); `task` the task's fields.
CREATE OR REPLACE VIEW dialects.v_warp AS
SELECT
  file_id, witness_gen, line_no, abs_path, session_id,
  TRY_CAST(coalesce(dialects.rowrec_text(cols, 'last_modified_at'), dialects.rowrec_text(cols, 'start_ts')) || '+00' AS TIMESTAMPTZ) AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset,
  CASE WHEN table_name = 'agent_tasks' AND (dialects.rowrec_cell(cols, 'task')->>'$[1]') = 'blob'
       THEN TRY_CAST(brain_protobuf_json(dialects.rowrec_cell(cols, 'task')->>'$[2]') AS JSON) END AS task,
  is_current, is_deleted
FROM dialects.row_records('warp');

-- The project: the working directory of the conversation's first exchange.
CREATE OR REPLACE VIEW derived.v_sessions_warp AS
SELECT file_id,
       arg_min(CASE WHEN table_name = 'ai_queries' THEN dialects.rowrec_text(cols, 'working_directory') END,
               CASE WHEN table_name = 'ai_queries' AND dialects.rowrec_text(cols, 'working_directory') IS NOT NULL
                    THEN TRY_CAST(dialects.rowrec_text(cols, 'id') AS BIGINT) END) AS project,
       any_value(CASE WHEN table_name = 'agent_conversations'
                      THEN dialects.rowrec_text(cols, 'conversation_data')->>'$.parent_conversation_id' END) AS parent_session
FROM dialects.v_warp
WHERE is_current
GROUP BY file_id;

-- Messages: those of the conversation's tasks (a prompt; the outputs of one request are one
-- reply); a conversation no task holds has its prompts from ai_queries.
CREATE OR REPLACE VIEW derived.v_messages_warp AS
WITH
  t AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, captured_at, task
    FROM dialects.v_warp WHERE table_name = 'agent_tasks' AND is_current AND task IS NOT NULL),
  m AS (
    SELECT t.* EXCLUDE (task), unnest(json_extract(task, '$."5"[*]')) AS m,
           unnest(range(0, CAST(coalesce(json_array_length(task, '$."5"'), 0) AS BIGINT))) AS idx
    FROM t),
  q AS (
    SELECT file_id, any_value(model) AS model FROM (
      SELECT file_id, dialects.rowrec_text(cols, 'model_id') AS model FROM dialects.v_warp
      WHERE table_name = 'ai_queries' AND is_current AND dialects.rowrec_text(cols, 'model_id') <> '')
    GROUP BY file_id),
  shaped AS (
    SELECT m.* EXCLUDE (m),
           CASE WHEN (m->'$."2"') IS NOT NULL THEN 'user'
                WHEN (m->'$."3"') IS NOT NULL THEN 'assistant' END AS role,
           coalesce(m->>'$."2"[0]."1"[0]', m->>'$."3"[0]."1"[0]') AS text,
           m->>'$."13"[0]' AS request_id,
           to_timestamp(TRY_CAST((m->>'$."14"[0]."1"[0]') AS BIGINT)) AS event_time
    FROM m),
  from_tasks AS (
    SELECT 'warp:'||session_id||':'||witness_gen||':'||line_no||':'||idx AS msg_id, 'warp' AS agent, session_id, role,
           CASE WHEN role = 'assistant' THEN q.model END AS model, text, event_time, captured_at,
           file_id, witness_gen, line_no, machine_id,
           CASE WHEN role = 'assistant' THEN 'warp:'||session_id||':'||witness_gen||':r:'||coalesce(request_id, CAST(idx AS VARCHAR))
                ELSE 'warp:'||session_id||':'||witness_gen||':'||line_no||':'||idx END AS turn_id,
           false AS is_meta
    FROM shaped LEFT JOIN q USING (file_id)
    WHERE role IS NOT NULL),
  from_queries AS (
    SELECT 'warp:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'warp' AS agent, session_id, 'user' AS role,
           NULL::VARCHAR AS model,
           dialects.rowrec_text(cols, 'input')->>'$[0].Query.text' AS text, event_time, captured_at,
           file_id, witness_gen, line_no, machine_id,
           'warp:'||session_id||':'||witness_gen||':'||line_no AS turn_id, false AS is_meta
    FROM dialects.v_warp q
    WHERE table_name = 'ai_queries' AND is_current
      AND (dialects.rowrec_text(cols, 'input')->>'$[0].Query.text') IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM t WHERE t.file_id = q.file_id))
SELECT * FROM from_tasks
UNION ALL BY NAME
SELECT * FROM from_queries;

-- Tool calls: the tool_call messages of the tasks (the tool is the field after the call id: its
-- number names it), with the tool_call_result naming the same id.
CREATE OR REPLACE VIEW derived.v_tool_calls_warp AS
WITH
  m AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, unnest(json_extract(task, '$."5"[*]')) AS m
    FROM dialects.v_warp WHERE table_name = 'agent_tasks' AND is_current AND task IS NOT NULL),
  calls AS (
    SELECT m.* EXCLUDE (m), to_timestamp(TRY_CAST((m->>'$."14"[0]."1"[0]') AS BIGINT)) AS event_time,
           m->>'$."4"[0]."1"[0]' AS call_id,
           list_filter(json_keys(m->'$."4"[0]'), lambda k: k <> '1')[1] AS tool_no,
           m->'$."4"[0]' AS call
    FROM m WHERE (m->'$."4"') IS NOT NULL),
  res AS (
    SELECT file_id, witness_gen, m->>'$."5"[0]."1"[0]' AS call_id, min(line_no) AS result_line_no
    FROM m WHERE (m->'$."5"') IS NOT NULL GROUP BY ALL)
SELECT 'warp' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time, c.call_id,
       CASE c.tool_no
         WHEN '2' THEN 'run_shell_command' WHEN '3' THEN 'search_codebase' WHEN '4' THEN 'server'
         WHEN '5' THEN 'read_files' WHEN '6' THEN 'apply_file_diffs' WHEN '7' THEN 'suggest_plan'
         WHEN '8' THEN 'suggest_create_plan' WHEN '9' THEN 'grep' WHEN '10' THEN 'file_glob'
         WHEN '11' THEN 'read_mcp_resource' WHEN '12' THEN 'call_mcp_tool'
         WHEN '13' THEN 'write_to_long_running_shell_command' WHEN '14' THEN 'suggest_new_conversation'
         WHEN '15' THEN 'file_glob_v2' WHEN '16' THEN 'suggest_prompt' WHEN '17' THEN 'open_code_review'
         WHEN '18' THEN 'init_project' WHEN '19' THEN 'subagent' WHEN '20' THEN 'read_documents'
         WHEN '21' THEN 'edit_documents' WHEN '22' THEN 'create_documents' WHEN '23' THEN 'read_shell_command_output'
         WHEN '24' THEN 'use_computer' WHEN '25' THEN 'insert_review_comments' WHEN '26' THEN 'read_skill'
         WHEN '27' THEN 'request_computer_use' WHEN '28' THEN 'fetch_conversation'
         ELSE 'tool_' || c.tool_no END AS tool_name,
       CAST(c.call->('$."' || c.tool_no || '"[0]') AS VARCHAR) AS arguments,
       r.result_line_no, NULL::BOOLEAN AS is_error, false AS is_sidechain
FROM calls c LEFT JOIN res r ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = c.call_id;

-- Usage: conversation_data's token_usage, one line per model. Warp records one token total per
-- model (warp_tokens, plus byok_tokens on the user's own key), no input/output split: counted as
-- input.
CREATE OR REPLACE VIEW derived.v_usage_lines_warp AS
WITH
  u AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
           unnest(json_extract(dialects.rowrec_text(cols, 'conversation_data'), '$.conversation_usage_metadata.token_usage[*]')) AS u
    FROM dialects.v_warp WHERE table_name = 'agent_conversations' AND is_current)
SELECT 'warp' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
       u->>'$.model_id' AS model, NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST((u->>'$.warp_tokens') AS BIGINT), 0) + coalesce(TRY_CAST((u->>'$.byok_tokens') AS BIGINT), 0) AS input_tokens,
       0::BIGINT AS output_tokens, 0::BIGINT AS cache_creation_tokens, 0::BIGINT AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM u;

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_warp AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_warp GROUP BY file_id;
