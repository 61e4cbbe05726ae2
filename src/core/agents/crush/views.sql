-- Crush's views over its row records (dialects.rows_latest, row_col: kit/rows.sql).
-- One row per message as it stands; parts is a JSON array of {type, data}.
CREATE OR REPLACE VIEW dialects.v_crush AS
WITH
  rows AS (SELECT * FROM dialects.rows_latest('crush')),
  msgs AS (
    SELECT file_id, witness_gen, line_no, byte_offset, captured_at, abs_path, session_hint AS session_id, machine_id,
           op = 'del' AS deleted,
           dialects.row_col(cols, 'id') AS message_id,
           dialects.row_col(cols, 'role') AS role,
           dialects.row_col(cols, 'model') AS model,
           TRY_CAST(dialects.row_col(cols, 'created_at') AS BIGINT) AS t_s,
           -- parts as text, or as base64 when Crush stored a blob
           CASE WHEN list_filter(cols, x -> json_extract_string(x, '$[0]') = 'parts')[1]->>1 = 'blob'
                THEN decode(from_base64(dialects.row_col(cols, 'parts')))
                ELSE dialects.row_col(cols, 'parts') END AS parts
    FROM rows WHERE tbl = 'messages')
SELECT m.* EXCLUDE (t_s, parts), make_timestamptz(m.t_s * 1000000) AS event_time,
       (SELECT string_agg(json_extract_string(x, '$.data.text'), chr(10) || chr(10))
        FROM (SELECT unnest(CAST(m.parts AS JSON[])) AS x) WHERE json_extract_string(x, '$.type') = 'text') AS text,
       m.parts
FROM msgs m;

CREATE OR REPLACE VIEW derived.v_sessions_crush AS
SELECT file_id, any_value(dialects.row_col(cols, 'workspace_cwd')) AS project,
       any_value(dialects.row_col(cols, 'parent_session_id')) AS parent_session
FROM dialects.rows_latest('crush') WHERE tbl = 'sessions' AND op = 'row' GROUP BY file_id;

-- Messages: a user message is a prompt, an assistant message a reply (dialect.ts). A tool
-- message carries the results of the reply before it: no turn of its own, as a deleted message
-- or one of another role is none.
CREATE OR REPLACE VIEW derived.v_messages_crush AS
SELECT 'crush:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'crush' AS agent, session_id,
       CASE WHEN deleted THEN 'system' WHEN role = 'tool' THEN 'tool' ELSE role END AS role, model, text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       CASE WHEN NOT deleted AND role IN ('user', 'assistant') THEN 'crush:'||session_id||':'||message_id END AS turn_id,
       deleted OR role NOT IN ('user', 'assistant') AS is_meta
FROM dialects.v_crush WHERE role IS NOT NULL;

-- Tool calls: the tool_call parts of each reply as it stands, with the line of the tool message
-- whose tool_result answers it (by the call's id) and whether that result is an error.
CREATE OR REPLACE VIEW derived.v_tool_calls_crush AS
WITH
  parts AS (
    SELECT m.* EXCLUDE (parts), unnest(TRY_CAST(m.parts AS JSON[])) AS part
    FROM dialects.v_crush m WHERE NOT m.deleted AND m.role IN ('assistant', 'tool')),
  -- A part's fields are in its data (a part without data holds them itself, as dialect.ts reads).
  p AS (
    SELECT *, part->>'$.type' AS type, CASE WHEN json_type(part, '$.data') = 'OBJECT' THEN part->'$.data' ELSE part END AS d
    FROM parts),
  results AS (
    SELECT file_id, witness_gen, d->>'$.tool_call_id' AS id, min(line_no) AS line_no,
           bool_or(coalesce(TRY_CAST(d->>'$.is_error' AS BOOLEAN), false)) AS is_error
    FROM p WHERE role = 'tool' AND type = 'tool_result' GROUP BY ALL)
SELECT 'crush' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time,
       CASE WHEN (c.d->>'$.id') IS NOT NULL THEN 'crush:'||c.session_id||':'||(c.d->>'$.id') END AS call_id,
       coalesce(c.d->>'$.name', 'tool') AS tool_name, c.d->>'$.input' AS arguments,
       r.line_no AS result_line_no, r.is_error, false AS is_sidechain
FROM p c
LEFT JOIN results r ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.id = (c.d->>'$.id')
WHERE c.role = 'assistant' AND c.type = 'tool_call';

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_crush AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_crush GROUP BY file_id;
