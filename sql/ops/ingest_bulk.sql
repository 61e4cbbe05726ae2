-- Whole lake files (listed in bulk_files, all valid UTF-8: the program checked) into
-- floor.raw_lines, read and split by DuckDB itself: the fast path of a rebuild. $paths is the
-- list of the files' absolute paths. Lines are cut at '\n' only, so a '\r' stays part of its
-- line, as `sed -n` prints it. The last piece is a line only when it is not empty (the file does
-- not end with a newline), and only lines that end inside the manifest's claimed range count.
INSERT INTO floor.raw_lines
WITH
  t AS (
    SELECT b.file_id, b.witness_gen, b.lane, b.agent, b.claimed_end,
           string_split(r.content, chr(10)) AS parts
    FROM read_text($paths) r JOIN bulk_files b ON b.path = r.filename),
  seg AS (
    SELECT file_id, witness_gen, lane, agent, claimed_end, len(parts) AS n_parts,
           unnest(parts) AS raw_line, unnest(generate_series(1, len(parts))) AS line_no
    FROM t),
  pos AS (
    SELECT *,
           (strlen(raw_line) + CASE WHEN line_no < n_parts THEN 1 ELSE 0 END) AS n_bytes,
           coalesce(sum(strlen(raw_line) + 1) OVER (
             PARTITION BY file_id, witness_gen ORDER BY line_no
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS byte_offset
    FROM seg)
SELECT p.file_id, p.witness_gen, p.byte_offset::BIGINT, p.line_no::INTEGER, p.raw_line,
       sha256(p.raw_line), p.n_bytes::INTEGER, false, p.lane, p.agent,
       floor.event_time_of(p.raw_line), c.captured_at
FROM pos p
ASOF LEFT JOIN floor.chunks c
  ON c.file_id = p.file_id AND c.witness_gen = p.witness_gen
 AND p.byte_offset + p.n_bytes - 1 >= c.byte_from
WHERE NOT (p.line_no = p.n_parts AND p.raw_line = '')
  AND p.byte_offset + p.n_bytes <= p.claimed_end;
