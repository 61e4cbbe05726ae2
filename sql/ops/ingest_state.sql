-- Where the cache stands in each file's latest generation (staged by the program).
INSERT OR REPLACE INTO floor.ingest_state
SELECT file_id, witness_gen, last_size, last_offset, last_line_no, prefix_sha256, now()
FROM stage_state;
