-- cline's views: Cline's task-folder format, read by the table macros of kit/tasks_cline.sql
-- (shared with the other forks of Cline; the columns are described there).
CREATE OR REPLACE VIEW dialects.v_cline AS SELECT * FROM dialects.cline_task_rows('cline');

CREATE OR REPLACE VIEW derived.v_messages_cline AS SELECT * FROM derived.cline_task_messages('cline', 'cline');

CREATE OR REPLACE VIEW derived.v_tool_calls_cline AS SELECT * FROM derived.cline_task_tool_calls('cline', 'cline');

CREATE OR REPLACE VIEW derived.v_usage_lines_cline AS SELECT * FROM derived.cline_task_usage_lines('cline', 'cline');

CREATE OR REPLACE VIEW derived.v_sessions_cline AS SELECT * FROM derived.cline_task_sessions('cline');

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_cline AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_cline GROUP BY file_id;
