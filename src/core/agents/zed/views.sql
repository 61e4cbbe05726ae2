-- Zed's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A Zed lake file is one thread's row records: one line per saved version of
-- its `threads` row (src/core/agents/kit/sqlite.ts), the whole thread in `data`, zstd-compressed
-- when data_type is 'zstd' (read with brain_unzstd_b64, src/core/cache/udf.ts), plain JSON when
-- 'json'. The thread shown is the row's latest version (a deleted thread's last one).

-- One row per row-record line (dialects.row_records, kit/rows.sql); `thread` is the thread document (JSON) when the line holds one.
CREATE OR REPLACE VIEW dialects.v_zed AS
SELECT
  file_id, witness_gen, line_no, abs_path, session_id,
  TRY_CAST(dialects.rowrec_text(cols, 'updated_at') AS TIMESTAMPTZ) AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset,
  dialects.rowrec_text(cols, 'summary') AS title,
  TRY_CAST(CASE dialects.rowrec_text(cols, 'data_type')
             WHEN 'zstd' THEN brain_unzstd_b64(dialects.rowrec_cell(cols, 'data')->>'$[2]')
             ELSE dialects.rowrec_text(cols, 'data') END AS JSON) AS thread,
  is_current, is_deleted
FROM dialects.row_records('zed');

CREATE OR REPLACE VIEW derived.v_sessions_zed AS
SELECT file_id,
       any_value(thread->>'$.initial_project_snapshot.worktree_snapshots[0].worktree_path') AS project,
       any_value(thread->>'$.subagent_context.parent_thread_id') AS parent_session
FROM dialects.v_zed
WHERE table_name = 'threads' AND is_current
GROUP BY file_id;

-- Messages: the current thread's messages in order; Zed keeps no time per message, so each has
-- the thread's updated_at. A "User" message is a prompt, an "Agent" message a reply (the first
-- agent's threads: role and segments).
CREATE OR REPLACE VIEW derived.v_messages_zed AS
WITH
  t AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, captured_at, thread,
           thread->>'$.model.model' AS model
    FROM dialects.v_zed WHERE table_name = 'threads' AND is_current AND thread IS NOT NULL),
  m AS (
    SELECT t.* EXCLUDE (thread), unnest(range(0, CAST(json_array_length(thread->'$.messages') AS BIGINT))) AS idx, thread
    FROM t),
  one AS (
    SELECT m.* EXCLUDE (thread), thread->'$.messages'->(CAST(idx AS INTEGER)) AS msg FROM m),
  shaped AS (
    SELECT *,
           CASE WHEN (msg->'$.User') IS NOT NULL THEN 'user'
                WHEN (msg->'$.Agent') IS NOT NULL THEN 'assistant'
                WHEN (msg->>'$.role') IN ('user', 'assistant') THEN msg->>'$.role' END AS role,
           coalesce(msg->'$.User.content', msg->'$.Agent.content') AS parts
    FROM one)
SELECT 'zed:'||session_id||':'||witness_gen||':'||line_no||':'||idx AS msg_id,
       'zed' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       CASE WHEN parts IS NOT NULL THEN
              array_to_string(list_filter(list_transform(json_extract(parts, '$[*]'), lambda p: trim(coalesce(p->>'$.Text', ''))), lambda s: s <> ''), chr(10) || chr(10))
            ELSE array_to_string(list_filter(list_transform(json_extract(msg, '$.segments[*]'), lambda s: CASE WHEN (s->>'$.type') = 'text' THEN trim(coalesce(s->>'$.text', '')) ELSE '' END), lambda s: s <> ''), chr(10) || chr(10))
       END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'zed:'||session_id||':'||witness_gen||':'||line_no||':'||idx AS turn_id,
       false AS is_meta
FROM shaped
WHERE role IS NOT NULL;

-- Tool calls: the ToolUse items of the current thread's Agent messages, with the result the same
-- message keeps under the call's id.
CREATE OR REPLACE VIEW derived.v_tool_calls_zed AS
WITH
  t AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time,
           unnest(json_extract(thread, '$.messages[*]')) AS msg
    FROM dialects.v_zed WHERE table_name = 'threads' AND is_current AND thread IS NOT NULL),
  a AS (
    SELECT t.* EXCLUDE (msg), msg->'$.Agent.tool_results' AS results, unnest(json_extract(msg, '$.Agent.content[*]')) AS c
    FROM t WHERE (msg->'$.Agent') IS NOT NULL)
SELECT 'zed' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       c->>'$.ToolUse.id' AS call_id, c->>'$.ToolUse.name' AS tool_name,
       coalesce(c->>'$.ToolUse.raw_input', CAST(c->'$.ToolUse.input' AS VARCHAR)) AS arguments,
       CASE WHEN json_exists(results, '$."' || (c->>'$.ToolUse.id') || '"') THEN line_no END AS result_line_no,
       TRY_CAST(json_extract_string(results, '$."' || (c->>'$.ToolUse.id') || '".is_error') AS BOOLEAN) AS is_error,
       false AS is_sidechain
FROM a
WHERE (c->'$.ToolUse') IS NOT NULL;

-- Usage: one line per thread (its current version): count by count, the larger of the thread's
-- cumulative_token_usage (every request's usage, where the Zed build kept it) and its
-- request_token_usage added up (per prompt, the prompt's latest request's; a map of the current
-- agent's threads, not the first agent's per-message list), as dialect.ts counts the thread.
CREATE OR REPLACE VIEW derived.v_usage_lines_zed AS
WITH
  t AS (SELECT * FROM dialects.v_zed WHERE table_name = 'threads' AND is_current AND thread IS NOT NULL),
  p AS (
    SELECT t.file_id, t.witness_gen, t.line_no,
           sum(coalesce(TRY_CAST((e.value->>'$.input_tokens') AS BIGINT), 0)) AS input_tokens,
           sum(coalesce(TRY_CAST((e.value->>'$.output_tokens') AS BIGINT), 0)) AS output_tokens,
           sum(coalesce(TRY_CAST((e.value->>'$.cache_creation_input_tokens') AS BIGINT), 0)) AS cache_creation_tokens,
           sum(coalesce(TRY_CAST((e.value->>'$.cache_read_input_tokens') AS BIGINT), 0)) AS cache_read_tokens
    FROM t, json_each(json_extract(t.thread, '$.request_token_usage')) e
    WHERE json_type(t.thread, '$.request_token_usage') = 'OBJECT'
    GROUP BY ALL)
SELECT 'zed' AS agent, session_id, t.file_id, t.witness_gen, t.line_no, machine_id, abs_path, event_time,
       thread->>'$.model.model' AS model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       greatest(coalesce(TRY_CAST((thread->>'$.cumulative_token_usage.input_tokens') AS BIGINT), 0), coalesce(p.input_tokens, 0)) AS input_tokens,
       greatest(coalesce(TRY_CAST((thread->>'$.cumulative_token_usage.output_tokens') AS BIGINT), 0), coalesce(p.output_tokens, 0)) AS output_tokens,
       greatest(coalesce(TRY_CAST((thread->>'$.cumulative_token_usage.cache_creation_input_tokens') AS BIGINT), 0), coalesce(p.cache_creation_tokens, 0)) AS cache_creation_tokens,
       greatest(coalesce(TRY_CAST((thread->>'$.cumulative_token_usage.cache_read_input_tokens') AS BIGINT), 0), coalesce(p.cache_read_tokens, 0)) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM t LEFT JOIN p ON p.file_id = t.file_id AND p.witness_gen = t.witness_gen AND p.line_no = t.line_no;

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_zed AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_zed GROUP BY file_id;
