-- Staged lines (read by the program from the lake, the path for incremental updates and for
-- files that are not valid UTF-8) into floor.line_store. line_sha256 is the program's hash of the
-- original bytes, kept only where raw_line is not those bytes: U+FFFD in place of bytes that were
-- not UTF-8, or a secret masked (the cache stores text masked; see src/core/secrets/cachemask.ts). A line's captured_at is that of the manifest chunk
-- holding its last byte. A (file, generation) is read again from a line already stored (a line
-- captured before its newline arrived, a late chunk of an older generation): its rows from that
-- offset on are replaced, which keeps (file_id, witness_gen, byte_offset) unique without an index.
DELETE FROM floor.line_store r
USING (SELECT file_id, witness_gen, min(byte_offset) AS restart FROM stage_lines GROUP BY ALL) s
WHERE r.file_id = s.file_id AND r.witness_gen = s.witness_gen AND r.byte_offset >= s.restart;

INSERT INTO floor.line_store
SELECT l.file_id, l.witness_gen, l.byte_offset, l.line_no, l.raw_line, l.utf8_replaced, l.lane,
       l.agent, floor.event_time_of(l.raw_line), c.captured_at,
       l.line_sha256,
       CASE WHEN l.n_bytes <> strlen(l.raw_line) + 1 THEN l.n_bytes END
FROM stage_lines l
ASOF LEFT JOIN floor.chunks c
  ON c.file_id = l.file_id AND c.witness_gen = l.witness_gen
 AND l.byte_offset + l.n_bytes - 1 >= c.byte_from;
