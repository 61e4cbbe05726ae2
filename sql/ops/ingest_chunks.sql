-- New manifest lines (stage_chunks) into floor.witnesses, floor.chunks and floor.files.
-- Idempotent: a manifest line already in floor.chunks (same byte offset) adds nothing.
INSERT INTO floor.witnesses
SELECT file_id, coalesce(TRY_CAST(captured_at AS TIMESTAMPTZ), now()), byte_to, NULL,
       CASE WHEN byte_from = 0 AND witness_gen = 1 THEN 'first'
            WHEN byte_from = 0 THEN 'rewrite'
            ELSE 'append' END,
       NULL, greatest(line_to - line_from + 1, 0)
FROM stage_chunks
WHERE manifest_offset NOT IN (SELECT manifest_offset FROM floor.chunks);

INSERT OR IGNORE INTO floor.chunks
SELECT manifest_offset, file_id, witness_gen, lane, agent, session, byte_from, byte_to, line_from,
       line_to, chunk_sha256, coalesce(TRY_CAST(captured_at AS TIMESTAMPTZ), now()),
       TRY_CAST(event_ts_first AS TIMESTAMPTZ), machine_id, origin_path, source, lake_path,
       coalesce(unterminated, false)
FROM stage_chunks;

INSERT OR IGNORE INTO floor.files
SELECT file_id, arg_min(machine_id, manifest_offset), arg_min(lane, manifest_offset),
       arg_min(lane, manifest_offset), arg_min(origin_path, manifest_offset),
       arg_min(session, manifest_offset),
       coalesce(min(TRY_CAST(captured_at AS TIMESTAMPTZ)), now())
FROM stage_chunks
GROUP BY file_id;
