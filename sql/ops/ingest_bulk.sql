-- Whole lake files (bulk_files; all valid UTF-8, the program checked) into floor.line_store, read
-- and split by DuckDB itself: the fast path of a rebuild. $paths lists the files' absolute paths.
-- Lines are cut at '\n' only, so a '\r' stays part of its line, as `sed -n` prints it. Which
-- lines count, and each one's offset, length and captured_at, come from bulk_lines (the program
-- counted the newlines of the claimed range): the empty piece after a final newline and lines
-- past the manifest's claim have no bulk_lines row and drop out of the join. A valid UTF-8 file's
-- pieces are its bytes, so each line's sha256 is its text's (floor.raw_lines computes it); only a
-- length that is not the text's plus a newline (an unterminated last line) is stored.
INSERT INTO floor.line_store
WITH
  t AS (
    SELECT b.idx, string_split(r.content, chr(10)) AS parts
    FROM read_text($paths) r JOIN bulk_files b ON b.path = r.filename),
  seg AS (
    SELECT idx, unnest(parts) AS raw_line, unnest(generate_series(1, len(parts))) AS line_no
    FROM t)
SELECT f.file_id, f.witness_gen, l.byte_offset, l.line_no, s.raw_line, false, f.lane, f.agent,
       floor.event_time_of(s.raw_line), make_timestamptz(l.captured_us), NULL,
       CASE WHEN l.n_bytes <> strlen(s.raw_line) + 1 THEN l.n_bytes END
FROM seg s
JOIN bulk_lines l ON l.idx = s.idx AND l.line_no = s.line_no
JOIN bulk_files f ON f.idx = s.idx;
