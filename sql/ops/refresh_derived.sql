-- Re-derives the materialised tables for the files listed in the temporary table touched_files.
-- Order matters: messages, calls and usage join sessions. The variable narrows dialects.v_live
-- (and so every view) to these files.
-- An agent's lines are parsed once for all four tables: derived.v_<lane>_line_values goes into a
-- temporary table, which derived.v_<lane>_lines reads while the variable brain_<lane>_lines
-- names it (else each table's statement parsed every line again, some twice).
RESET VARIABLE brain_cc_lines;
RESET VARIABLE brain_codex_lines;
RESET VARIABLE brain_pi_lines;
SET VARIABLE brain_refresh_files = (SELECT list(file_id) FROM touched_files);
CREATE OR REPLACE TEMP TABLE refresh_cc_lines AS SELECT * FROM derived.v_cc_line_values;
CREATE OR REPLACE TEMP TABLE refresh_codex_lines AS SELECT * FROM derived.v_codex_line_values;
CREATE OR REPLACE TEMP TABLE refresh_pi_lines AS SELECT * FROM derived.v_pi_line_values;
SET VARIABLE brain_cc_lines = 'temp.main.refresh_cc_lines';
SET VARIABLE brain_codex_lines = 'temp.main.refresh_codex_lines';
SET VARIABLE brain_pi_lines = 'temp.main.refresh_pi_lines';

DELETE FROM derived.sessions WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.sessions BY NAME
  SELECT * FROM derived.v_sessions WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.messages WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.messages BY NAME
  SELECT * FROM derived.v_messages_all WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.tool_calls WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.tool_calls BY NAME
  SELECT * FROM derived.v_tool_calls WHERE file_id IN (SELECT file_id FROM touched_files);

DELETE FROM derived.usage_lines WHERE file_id IN (SELECT file_id FROM touched_files);
INSERT INTO derived.usage_lines BY NAME
  SELECT * FROM derived.v_usage_lines WHERE file_id IN (SELECT file_id FROM touched_files);

RESET VARIABLE brain_cc_lines;
RESET VARIABLE brain_codex_lines;
RESET VARIABLE brain_pi_lines;
DROP TABLE refresh_cc_lines;
DROP TABLE refresh_codex_lines;
DROP TABLE refresh_pi_lines;
RESET VARIABLE brain_refresh_files;
