-- What the views of agents whose sessions live in SQLite databases build on: their lake files are
-- row records (kit/sqlite.ts), one JSON line per version of a row,
--   {"op":"row","table":…,"key":[…],"cols":[[name, type, value], …]} or {"op":"del","table":…,"key":[…]}.

-- The value of column `name` of a row record's cols (JSON), and as text (a blob's or a text-b64
-- value's bytes as UTF-8).
CREATE OR REPLACE MACRO dialects.rowrec_cell(cols, name) AS list_filter(cols, lambda c: (c->>'$[0]') = name)[1];
CREATE OR REPLACE MACRO dialects.rowrec_text(cols, name) AS
  CASE (dialects.rowrec_cell(cols, name)->>'$[1]')
    WHEN 'blob' THEN TRY(decode(from_base64(dialects.rowrec_cell(cols, name)->>'$[2]')))
    WHEN 'text-b64' THEN TRY(decode(from_base64(dialects.rowrec_cell(cols, name)->>'$[2]')))
    WHEN 'null' THEN NULL
    ELSE dialects.rowrec_cell(cols, name)->>'$[2]' END;
-- The same value as text, read as JSON text (a blob's base64 as it stands).
CREATE OR REPLACE MACRO dialects.row_col(cols, name) AS
  json_extract_string(list_filter(cols, x -> json_extract_string(x, '$[0]') = name)[1], '$[2]');

-- One row per row-record line of every live generation of the lane's files (a line that is not a
-- row record is left out), its session the file's. row_key is the key's JSON text. is_current: the
-- latest `row` version of its key; is_deleted: the key's last record is a tombstone (its last
-- version is still is_current, so a deleted row stays readable).
CREATE OR REPLACE MACRO dialects.row_records(lane_name) AS TABLE
WITH
  l AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.captured_at, f.abs_path, f.session_hint, f.machine_id,
           unnest([TRY(from_json(r.raw_line, '{"op":"VARCHAR","table":"VARCHAR","key":"JSON","cols":"JSON[]"}'))]) AS j
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = lane_name),
  v AS (
    SELECT l.* EXCLUDE (j, session_hint), l.session_hint AS session_id,
           j.op AS op, j."table" AS table_name, CAST(j.key AS VARCHAR) AS row_key, j.cols AS cols
    FROM l WHERE j IS NOT NULL AND j.op IN ('row', 'del'))
SELECT *,
       op = 'row' AND line_no = max(CASE WHEN op = 'row' THEN line_no END) OVER w AS is_current,
       arg_max(op, line_no) OVER w = 'del' AS is_deleted
FROM v
WINDOW w AS (PARTITION BY file_id, witness_gen, table_name, row_key);

-- The last line of each row: op 'row' (the row as it stands) or 'del' (deleted; cols are then
-- those of its last version, so its text stays readable).
CREATE OR REPLACE MACRO dialects.rows_latest(lane_name) AS TABLE
SELECT file_id, witness_gen, line_no, byte_offset, captured_at, abs_path, session_id AS session_hint, machine_id,
       op, table_name AS tbl, row_key,
       last_value(cols IGNORE NULLS) OVER (PARTITION BY file_id, witness_gen, table_name, row_key ORDER BY line_no
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cols
FROM dialects.row_records(lane_name)
QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, table_name, row_key ORDER BY line_no DESC) = 1;
