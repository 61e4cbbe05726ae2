-- What the views of agents whose files are JSON documents rewritten whole build on (loaded before
-- the other kit files and every agent's views.sql, by name). One row per generation of each file
-- of the lane whose origin path matches path_re: its lines joined (the document as it was written),
-- line_to its last line.
CREATE OR REPLACE MACRO dialects.json_documents(lane_name, path_re) AS TABLE
SELECT r.file_id, r.witness_gen, any_value(f.abs_path) AS abs_path, any_value(f.session_hint) AS session_hint,
       any_value(f.machine_id) AS machine_id, min(r.byte_offset) AS byte_offset,
       max(r.captured_at) AS captured_at, max(r.line_no) AS line_to,
       string_agg(r.raw_line, chr(10) ORDER BY r.line_no) AS text
FROM dialects.v_live r JOIN floor.files f USING (file_id)
WHERE r.lane = lane_name AND regexp_matches(f.abs_path, path_re)
GROUP BY r.file_id, r.witness_gen;
