-- Re-derives the materialised tables for the files listed in the temporary table touched_files.
-- Order matters: messages, calls and usage join files. The variable narrows dialects.v_live
-- (and so every view) to these files.
-- An agent whose views.sql defines derived.v_<lane>_line_values (what its derived views read of
-- each line, from one parse) has its lines parsed once for all four tables: that view goes into a
-- temporary table, which derived.v_<lane>_lines reads while the variable brain_<lane>_lines names
-- it (the views read dialects.v_<lane> themselves otherwise, each parsing every line again).
-- Each part marked "each lane with" is repeated for every such agent (src/core/cache/sqlfiles.ts).
{{each lane with derived.v_{lane}_line_values}}
RESET VARIABLE brain_{lane}_lines;
{{end}}
SET VARIABLE brain_refresh_files = (SELECT list(file_id) FROM touched_files);
{{each lane with derived.v_{lane}_line_values}}
CREATE OR REPLACE TEMP TABLE refresh_{lane}_lines AS SELECT * FROM derived.v_{lane}_line_values;
SET VARIABLE brain_{lane}_lines = 'temp.main.refresh_{lane}_lines';
{{end}}

DELETE FROM derived.files WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.files BY NAME
  SELECT * FROM derived.v_files WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.messages WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.messages BY NAME
  SELECT * FROM derived.v_messages_all WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.tool_calls WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.tool_calls BY NAME
  SELECT * FROM derived.v_tool_calls WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.usage_lines WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.usage_lines BY NAME
  SELECT * FROM derived.v_usage_lines WHERE file_id IN (SELECT file_id FROM touched_files);

{{each lane with derived.v_{lane}_line_values}}
RESET VARIABLE brain_{lane}_lines;
DROP TABLE refresh_{lane}_lines;
{{end}}
RESET VARIABLE brain_refresh_files;
