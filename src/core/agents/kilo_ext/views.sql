-- kilo_ext's views (Kilo Code's legacy extension task folders): Cline's task-folder format, read by the table macros of kit/tasks_cline.sql
-- (shared with the other forks of Cline; the columns are described there).
CREATE OR REPLACE VIEW dialects.v_kilo_ext AS SELECT * FROM dialects.cline_task_rows('kilo_ext');

CREATE OR REPLACE VIEW derived.v_messages_kilo_ext AS SELECT * FROM derived.cline_task_messages('kilo_ext', 'kilo-code-ext');

CREATE OR REPLACE VIEW derived.v_tool_calls_kilo_ext AS SELECT * FROM derived.cline_task_tool_calls('kilo_ext', 'kilo-code-ext');

CREATE OR REPLACE VIEW derived.v_usage_lines_kilo_ext AS SELECT * FROM derived.cline_task_usage_lines('kilo_ext', 'kilo-code-ext');

CREATE OR REPLACE VIEW derived.v_sessions_kilo_ext AS SELECT * FROM derived.cline_task_sessions('kilo_ext');

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_kilo_ext AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_kilo_ext GROUP BY file_id;
