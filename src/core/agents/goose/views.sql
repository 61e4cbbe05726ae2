-- Goose's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A Goose lake file is one session's row records (src/core/agents/kit/sqlite.ts):
-- one line per version of a `sessions` or `messages` row of Goose's sessions.db, each column as
-- [name, typeof, value]. The messages shown are the latest version of each row, a deleted row's
-- last version included (the dialect does the same), minus a deleted message a live one says again
-- (Goose replaces a whole conversation by deleting and inserting its rows).

-- One row per row-record line (dialects.row_records, kit/rows.sql), with its time.
CREATE OR REPLACE VIEW dialects.v_goose AS
SELECT
  file_id, witness_gen, line_no, abs_path, session_id,
  CASE table_name
    WHEN 'messages' THEN to_timestamp(TRY_CAST(dialects.rowrec_text(cols, 'created_timestamp') AS BIGINT))
    WHEN 'usage_ledger' THEN to_timestamp(TRY_CAST(dialects.rowrec_text(cols, 'created_timestamp') AS BIGINT))
    WHEN 'sessions' THEN TRY_CAST(dialects.rowrec_text(cols, 'updated_at') || '+00' AS TIMESTAMPTZ)
  END AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset,
  is_current, is_deleted
FROM dialects.row_records('goose');

CREATE OR REPLACE VIEW derived.v_sessions_goose AS
SELECT file_id, any_value(dialects.rowrec_text(cols, 'working_dir')) AS project, NULL::VARCHAR AS parent_session
FROM dialects.v_goose
WHERE table_name = 'sessions' AND is_current
GROUP BY file_id;

-- Messages: a user message that only carries tool results is no turn; a message the user does not
-- see (metadata userVisible false: a compaction summary) is meta.
CREATE OR REPLACE VIEW derived.v_messages_goose AS
WITH
  s AS (
    SELECT file_id, witness_gen,
           any_value((dialects.rowrec_text(cols, 'model_config_json')->>'$.model_name')) AS model
    FROM dialects.v_goose WHERE table_name = 'sessions' AND is_current GROUP BY ALL),
  m AS (
    SELECT g.*, dialects.rowrec_text(cols, 'role') AS role, dialects.rowrec_text(cols, 'message_id') AS message_id,
           TRY(from_json(dialects.rowrec_text(cols, 'content_json'), '[{"type":"VARCHAR","text":"VARCHAR"}]')) AS blocks,
           coalesce(TRY_CAST((dialects.rowrec_text(cols, 'metadata_json')->>'$.userVisible') AS BOOLEAN), true) AS visible
    FROM dialects.v_goose g WHERE table_name = 'messages' AND is_current),
  t AS (
    SELECT m.*, array_to_string(list_transform(list_filter(blocks, lambda b: b.type = 'text' AND trim(coalesce(b.text, '')) <> ''), lambda b: trim(b.text)), chr(10) || chr(10)) AS text
    FROM m),
  kept AS (
    SELECT * FROM t
    WHERE NOT (is_deleted AND EXISTS (SELECT 1 FROM t o WHERE o.file_id = t.file_id AND o.witness_gen = t.witness_gen AND NOT o.is_deleted
                                      AND o.role = t.role AND coalesce(o.text, '') = coalesce(t.text, '') AND o.event_time IS NOT DISTINCT FROM t.event_time)))
SELECT 'goose:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'goose' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN s.model END AS model,
       text, event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       CASE WHEN coalesce(text, '') = '' AND role = 'user' THEN NULL
            ELSE 'goose:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
       NOT visible AS is_meta
FROM kept LEFT JOIN s USING (file_id, witness_gen)
WHERE role IN ('user', 'assistant');

-- Tool calls: toolRequest items of assistant messages, each joined to the toolResponse naming it.
CREATE OR REPLACE VIEW derived.v_tool_calls_goose AS
WITH
  items AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, dialects.rowrec_text(cols, 'role') AS role,
           unnest(json_extract(dialects.rowrec_text(cols, 'content_json'), '$[*]')) AS b
    FROM dialects.v_goose WHERE table_name = 'messages' AND is_current),
  res AS (
    SELECT file_id, witness_gen, b->>'$.id' AS call_id, min(line_no) AS result_line_no,
           bool_or((b->>'$.toolResult.status') = 'error' OR coalesce(TRY_CAST((b->>'$.toolResult.value.isError') AS BOOLEAN), false)) AS is_error
    FROM items WHERE (b->>'$.type') = 'toolResponse' GROUP BY ALL)
SELECT 'goose' AS agent, i.session_id, i.file_id, i.witness_gen, i.line_no, i.machine_id, i.event_time,
       i.b->>'$.id' AS call_id, i.b->>'$.toolCall.value.name' AS tool_name,
       CAST(i.b->'$.toolCall.value.arguments' AS VARCHAR) AS arguments,
       r.result_line_no, r.is_error, false AS is_sidechain
FROM items i LEFT JOIN res r ON r.file_id = i.file_id AND r.witness_gen = i.witness_gen AND r.call_id = (i.b->>'$.id')
WHERE i.role = 'assistant' AND (i.b->>'$.type') IN ('toolRequest', 'frontendToolRequest');

-- Usage: newer Goose builds append a usage_ledger row per request (its model and tokens: input,
-- output, cache read and write); a session with such rows is counted from them. Otherwise Goose
-- keeps token totals per session only (accumulated_* over all its requests; the plain
-- input/output columns are the last request's), counted as one line: the session's current row,
-- without a cache breakdown.
CREATE OR REPLACE VIEW derived.v_usage_lines_goose AS
WITH
  ledger AS (
    SELECT * FROM dialects.v_goose WHERE table_name = 'usage_ledger' AND is_current),
  has_ledger AS (SELECT DISTINCT file_id, witness_gen FROM ledger)
SELECT 'goose' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
       to_timestamp(TRY_CAST(dialects.rowrec_text(cols, 'created_timestamp') AS BIGINT)) AS event_time,
       dialects.rowrec_text(cols, 'model') AS model,
       'goose:' || session_id || ':' || row_key AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'input_tokens') AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'output_tokens') AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'cache_write_tokens') AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'cache_read_tokens') AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM ledger
UNION ALL BY NAME
SELECT 'goose' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
       (dialects.rowrec_text(cols, 'model_config_json')->>'$.model_name') AS model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'accumulated_input_tokens') AS BIGINT), TRY_CAST(dialects.rowrec_text(cols, 'input_tokens') AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST(dialects.rowrec_text(cols, 'accumulated_output_tokens') AS BIGINT), TRY_CAST(dialects.rowrec_text(cols, 'output_tokens') AS BIGINT), 0) AS output_tokens,
       0::BIGINT AS cache_creation_tokens, 0::BIGINT AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.v_goose g
WHERE table_name = 'sessions' AND is_current
  AND NOT EXISTS (SELECT 1 FROM has_ledger h WHERE h.file_id = g.file_id AND h.witness_gen = g.witness_gen);

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_goose AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_goose GROUP BY file_id;
