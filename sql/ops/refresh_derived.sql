-- Re-derives the materialised tables for the files listed in the temporary table touched_files.
-- Order matters: messages, calls and usage join sessions. The variable narrows dialects.v_live
-- (and so every view) to these files.
SET VARIABLE brain_refresh_files = (SELECT list(file_id) FROM touched_files);
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

RESET VARIABLE brain_refresh_files;
