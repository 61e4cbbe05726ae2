-- kilo's views: Cline's task-folder format, read by the table macros of kit/tasks_cline.sql
-- (shared with the other forks of Cline; the columns are described there).
CREATE OR REPLACE VIEW dialects.v_kilo AS SELECT * FROM dialects.cline_task_rows('kilo');

CREATE OR REPLACE VIEW derived.v_messages_kilo AS SELECT * FROM derived.cline_task_messages('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_tool_calls_kilo AS SELECT * FROM derived.cline_task_tool_calls('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_usage_lines_kilo AS SELECT * FROM derived.cline_task_usage_lines('kilo', 'kilo-code');

CREATE OR REPLACE VIEW derived.v_sessions_kilo AS SELECT * FROM derived.cline_task_sessions('kilo');
