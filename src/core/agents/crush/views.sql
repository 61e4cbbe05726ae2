-- Crush's views over its row records (macros from opencode/views.sql: dialects.rows_latest, row_col).
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

CREATE OR REPLACE VIEW derived.v_messages_crush AS
SELECT 'crush:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'crush' AS agent, session_id,
       CASE WHEN deleted THEN 'system' WHEN role = 'tool' THEN 'tool' ELSE role END AS role, model, text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'crush:'||session_id||':'||message_id AS turn_id, deleted OR role = 'tool' AS is_meta
FROM dialects.v_crush WHERE role IS NOT NULL;
