-- Kilo Code's views: OpenCode's schema, read by the macros opencode/views.sql defines (assembled before this file).

CREATE OR REPLACE VIEW dialects.v_kilo AS SELECT * FROM dialects.opencode_messages('kilo');

CREATE OR REPLACE VIEW derived.v_sessions_kilo AS SELECT * FROM dialects.opencode_sessions('kilo');

CREATE OR REPLACE VIEW derived.v_messages_kilo AS
SELECT 'kilo:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'kilo-code' AS agent, session_id,
       CASE WHEN deleted THEN 'system' ELSE role END AS role, model, text, event_time, captured_at, file_id,
       witness_gen, line_no, machine_id, CASE WHEN NOT deleted THEN 'kilo:'||session_id||':'||message_id END AS turn_id, deleted AS is_meta
FROM dialects.v_kilo WHERE role IS NOT NULL;

CREATE OR REPLACE VIEW derived.v_tool_calls_kilo AS SELECT * FROM dialects.opencode_tool_calls('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_usage_lines_kilo AS
SELECT 'kilo-code' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, NULL::VARCHAR AS request_id, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.v_kilo WHERE role = 'assistant' AND NOT deleted AND input_tokens IS NOT NULL;

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_kilo AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_kilo GROUP BY file_id;
