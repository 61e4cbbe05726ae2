-- Kilo Code's views: OpenCode's schema, read by the macros opencode/views.sql defines (assembled before this file).

CREATE OR REPLACE VIEW dialects.v_kilo AS SELECT * FROM dialects.opencode_messages('kilo');

CREATE OR REPLACE VIEW derived.v_sessions_kilo AS SELECT * FROM dialects.opencode_sessions('kilo');

CREATE OR REPLACE VIEW derived.v_messages_kilo AS SELECT * FROM dialects.opencode_message_rows('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_tool_calls_kilo AS SELECT * FROM dialects.opencode_tool_calls('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_usage_lines_kilo AS SELECT * FROM dialects.opencode_usage_rows('kilo', 'kilo-code');

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_kilo AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_kilo GROUP BY file_id;
