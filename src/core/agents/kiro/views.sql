-- Kiro CLI's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A Kiro lake file is either one conversation's row records (under
-- kiro-cli/ or amazon-q/): each version of its conversations_v2 row (Kiro CLI) or conversations
-- row (Amazon Q CLI), `value` the whole ConversationState JSON, the conversation shown being the
-- row's latest version; or a session file of newer builds (under sessions/, see v_kiro_log).
-- Kiro records no token counts: no usage lines.

-- One row per row-record line (dialects.row_records, kit/rows.sql); `state` the conversation.
CREATE OR REPLACE VIEW dialects.v_kiro AS
SELECT
  file_id, witness_gen, line_no, abs_path, session_id,
  to_timestamp(TRY_CAST(dialects.rowrec_text(cols, 'updated_at') AS BIGINT) / 1000) AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset,
  dialects.rowrec_text(cols, 'key') AS folder,
  TRY_CAST(dialects.rowrec_text(cols, 'value') AS JSON) AS state,
  is_current, is_deleted
FROM dialects.row_records('kiro');

-- Session files of newer builds (~/.kiro/sessions/cli): <id>.jsonl records, and <id>.json, the
-- session's metadata (its cwd), written again whole (read here as one document per generation).
CREATE OR REPLACE VIEW dialects.v_kiro_log AS
SELECT q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
       coalesce(to_timestamp(TRY_CAST((q.j.data->>'$.meta.timestamp') AS DOUBLE)), q.event_time) AS event_time,
       q.captured_at, q.j.kind AS kind, q.j.data AS data,
       -- additions
       q.machine_id, q.byte_offset
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"kind":"VARCHAR","data":"JSON"}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.lane = 'kiro' AND regexp_matches(f.abs_path, '[.]jsonl$')) q
WHERE q.j IS NOT NULL AND q.j.kind IS NOT NULL;

-- The project: the working directory the first prompt reported, else the row's folder key; for
-- session files, the cwd of the session's metadata file.
CREATE OR REPLACE VIEW derived.v_sessions_kiro AS
WITH
  rows_p AS (
    SELECT file_id,
           any_value(coalesce(state->>'$.history[0].user.env_context.env_state.current_working_directory', folder)) AS project
    FROM dialects.v_kiro WHERE is_current GROUP BY file_id),
  meta AS (
    SELECT f.session_hint, TRY_CAST(string_agg(r.raw_line, chr(10) ORDER BY r.line_no) AS JSON)->>'$.cwd' AS cwd
    FROM dialects.v_newest r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'kiro' AND regexp_matches(f.abs_path, '[.]json$')
    GROUP BY ALL),
  files_p AS (
    SELECT f.file_id, any_value(m.cwd) AS project
    FROM floor.files f JOIN meta m ON m.session_hint = f.session_hint
    WHERE f.lane = 'kiro' AND regexp_matches(f.abs_path, '[.]jsonl?$') GROUP BY f.file_id)
SELECT file_id, project, NULL::VARCHAR AS parent_session FROM rows_p
UNION ALL
SELECT file_id, project, NULL::VARCHAR AS parent_session FROM files_p WHERE file_id NOT IN (SELECT file_id FROM rows_p);

-- Messages: per history entry its prompt (a user entry that only returns tool results is none)
-- and its reply.
CREATE OR REPLACE VIEW derived.v_messages_kiro AS
WITH
  h AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, captured_at,
           coalesce(state->>'$.model_info.model_id', state->>'$.model') AS conv_model,
           unnest(range(0, CAST(coalesce(json_array_length(state->'$.history'), 0) AS BIGINT))) AS idx, state
    FROM dialects.v_kiro WHERE is_current AND state IS NOT NULL),
  e AS (
    SELECT h.* EXCLUDE (state), state->'$.history'->(CAST(idx AS INTEGER)) AS e FROM h),
  msgs AS (
    SELECT *, 'user' AS role, 0 AS part,
           coalesce(e->>'$.user.content.Prompt.prompt', e->>'$.user.content.CancelledToolUses.prompt') AS text,
           coalesce(TRY_CAST((e->>'$.user.timestamp') AS TIMESTAMPTZ), to_timestamp(TRY_CAST((e->>'$.request_metadata.request_start_timestamp_ms') AS BIGINT) / 1000)) AS event_time,
           NULL::VARCHAR AS model
    FROM e
    UNION ALL BY NAME
    SELECT *, 'assistant' AS role, 1 AS part,
           coalesce(e->>'$.assistant.Response.content', e->>'$.assistant.ToolUse.content') AS text,
           coalesce(to_timestamp(TRY_CAST((e->>'$.request_metadata.stream_end_timestamp_ms') AS BIGINT) / 1000), TRY_CAST((e->>'$.user.timestamp') AS TIMESTAMPTZ)) AS event_time,
           coalesce(e->>'$.request_metadata.model_id', conv_model) AS model
    FROM e WHERE (e->'$.assistant.Response') IS NOT NULL OR (e->'$.assistant.ToolUse') IS NOT NULL)
SELECT 'kiro:'||session_id||':'||witness_gen||':'||line_no||':'||idx||':'||part AS msg_id,
       'kiro-cli' AS agent, session_id, role, model, trim(text) AS text, event_time, captured_at,
       file_id, witness_gen, line_no, machine_id,
       CASE WHEN role = 'user' AND text IS NULL THEN NULL ELSE 'kiro:'||session_id||':'||witness_gen||':'||line_no||':'||idx||':'||part END AS turn_id,
       false AS is_meta
FROM msgs
WHERE role = 'assistant' OR text IS NOT NULL
UNION ALL BY NAME
-- Session files: a Prompt is a prompt, each AssistantMessage a reply.
SELECT 'kiro:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'kiro-cli' AS agent, session_id,
       CASE kind WHEN 'Prompt' THEN 'user' ELSE 'assistant' END AS role, NULL::VARCHAR AS model,
       nullif(trim(array_to_string(list_transform(list_filter(json_extract(data, '$.content[*]'), lambda b: (b->>'$.kind') = 'text'), lambda b: b->>'$.data'), chr(10) || chr(10))), '') AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'kiro:'||session_id||':'||witness_gen||':'||line_no AS turn_id, false AS is_meta
FROM dialects.v_kiro_log
WHERE kind IN ('Prompt', 'AssistantMessage');

-- Tool calls: the tool_uses of ToolUse replies, joined to the result a later entry returns.
CREATE OR REPLACE VIEW derived.v_tool_calls_kiro AS
WITH
  e AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id,
           unnest(json_extract(state, '$.history[*]')) AS e
    FROM dialects.v_kiro WHERE is_current AND state IS NOT NULL),
  calls AS (
    SELECT e.* EXCLUDE (e), to_timestamp(TRY_CAST((e->>'$.request_metadata.stream_end_timestamp_ms') AS BIGINT) / 1000) AS event_time,
           unnest(json_extract(e, '$.assistant.ToolUse.tool_uses[*]')) AS u
    FROM e WHERE (e->'$.assistant.ToolUse') IS NOT NULL),
  res AS (
    SELECT file_id, witness_gen, r->>'$.tool_use_id' AS call_id, any_value(line_no) AS result_line_no,
           bool_or(lower(r->>'$.status') = 'error') AS is_error
    FROM (SELECT file_id, witness_gen, line_no,
                 unnest(json_extract(coalesce(e->'$.user.content.ToolUseResults.tool_use_results', e->'$.user.content.CancelledToolUses.tool_use_results'), '$[*]')) AS r
          FROM e)
    GROUP BY ALL)
SELECT 'kiro-cli' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time,
       c.u->>'$.id' AS call_id, coalesce(nullif(c.u->>'$.orig_name', ''), c.u->>'$.name') AS tool_name,
       CAST(c.u->'$.args' AS VARCHAR) AS arguments, r.result_line_no, r.is_error, false AS is_sidechain
FROM calls c LEFT JOIN res r ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = (c.u->>'$.id')
UNION ALL BY NAME
-- Session files: toolUse blocks, joined to the toolResult naming them.
SELECT 'kiro-cli' AS agent, u.session_id, u.file_id, u.witness_gen, u.line_no, u.machine_id, u.event_time,
       u.b->>'$.data.toolUseId' AS call_id, u.b->>'$.data.name' AS tool_name, CAST(u.b->'$.data.input' AS VARCHAR) AS arguments,
       lr.result_line_no, lr.is_error, false AS is_sidechain
FROM (SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time, unnest(json_extract(data, '$.content[*]')) AS b
      FROM dialects.v_kiro_log WHERE kind = 'AssistantMessage') u
LEFT JOIN (SELECT file_id, witness_gen, b->>'$.data.toolUseId' AS call_id, min(line_no) AS result_line_no,
                  bool_or(lower(b->>'$.data.status') = 'error') AS is_error
           FROM (SELECT file_id, witness_gen, line_no, unnest(json_extract(data, '$.content[*]')) AS b
                 FROM dialects.v_kiro_log WHERE kind = 'ToolResults')
           WHERE (b->>'$.kind') = 'toolResult' GROUP BY ALL) lr
  ON lr.file_id = u.file_id AND lr.witness_gen = u.witness_gen AND lr.call_id = (u.b->>'$.data.toolUseId')
WHERE (u.b->>'$.kind') = 'toolUse';

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_kiro AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_kiro GROUP BY file_id;
