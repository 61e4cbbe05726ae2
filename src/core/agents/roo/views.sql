-- roo's views: Cline's task-folder format, read by the table macros of kit/tasks_cline.sql
-- (shared with the other forks of Cline; the columns are described there).
CREATE OR REPLACE VIEW dialects.v_roo AS SELECT * FROM dialects.cline_task_rows('roo');

CREATE OR REPLACE VIEW derived.v_messages_roo AS SELECT * FROM derived.cline_task_messages('roo', 'roo-code');

CREATE OR REPLACE VIEW derived.v_tool_calls_roo AS SELECT * FROM derived.cline_task_tool_calls('roo', 'roo-code');

CREATE OR REPLACE VIEW derived.v_usage_lines_roo AS SELECT * FROM derived.cline_task_usage_lines('roo', 'roo-code');

CREATE OR REPLACE VIEW derived.v_sessions_roo AS SELECT * FROM derived.cline_task_sessions('roo');

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_roo AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_roo GROUP BY file_id;
