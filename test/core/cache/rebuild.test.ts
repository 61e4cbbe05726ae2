// A rebuild from the floor alone: every lake line the manifest claims is one floor.raw_lines row
// whose offsets, length and sha256 match the lake bytes (checked here by re-reading the lake
// files independently), bad UTF-8 and non-JSON lines included; DuckDB's bulk reader and the
// program's line reader build identical caches; the cache can be deleted and comes back.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { openDb } from '../../../src/core/cache/db';
import { all, capturedSandbox, digest, manifestLines, sha256 } from './helpers';
// @ts-expect-error the bench's corpus generator is plain JavaScript
import { generate } from '../../../bench/corpus.mjs';

const BAD = Buffer.concat([
  Buffer.from('{"type":"user","timestamp":"2026-04-01T10:00:00.000Z","sessionId":"bad","message":{"role":"user","content":"caf'),
  Buffer.from([0xe9, 0xff]), // latin-1 é and a byte that is never UTF-8
  Buffer.from('"}}\n'),
  Buffer.from('this line is not JSON at all\n'),
  Buffer.from('\n'),
  Buffer.from('{"type":"user","timestamp":"2026-04-01T10:00:01.000Z","message":{"role":"user","content":"crlf"}}\r\n'),
  Buffer.from('{"type":"user","timestamp":"2026-04-01T10:00:02.000Z","message":{"role":"user","content":"ünïcødé ✓ 🚀"}}\n'),
  Buffer.from('a NUL \u0000 byte, valid UTF-8 but not JSON\n'),
]);

function addBadFile(home: string): string {
  const f = path.join(home, '.claude', 'projects', '-bad-bytes', '99999999-9999-4999-8999-999999999999.jsonl');
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, BAD);
  return f;
}

interface Expected {
  lake_path: string;
  line_no: number;
  byte_offset: number;
  n_bytes: number;
  sha: string;
  replaced: boolean;
}

/** What the floor says, read without the code under test: lake files split at '\n'. */
function expectedLines(brain: string): Expected[] {
  const claimed = new Map<string, number>();
  for (const m of manifestLines(brain)) {
    const lp = m.lake_path as string;
    claimed.set(lp, Math.max(claimed.get(lp) ?? 0, m.byte_to as number));
  }
  const out: Expected[] = [];
  for (const [lp, end] of claimed) {
    const b = fs.readFileSync(path.join(brain, lp)).subarray(0, end);
    let pos = 0;
    let n = 1;
    while (pos < b.length) {
      const nl = b.indexOf(10, pos);
      const stop = nl < 0 ? b.length : nl;
      const bytes = b.subarray(pos, stop);
      const text = bytes.toString('utf8');
      out.push({
        lake_path: lp,
        line_no: n++,
        byte_offset: pos,
        n_bytes: stop - pos + (nl < 0 ? 0 : 1),
        sha: sha256(bytes),
        replaced: !Buffer.from(text, 'utf8').equals(bytes),
      });
      pos = stop + 1;
    }
  }
  return out.sort((a, b) => (a.lake_path < b.lake_path ? -1 : a.lake_path > b.lake_path ? 1 : a.line_no - b.line_no));
}

test('rebuild: every claimed lake line is a row with its exact offsets, length and hash', async () => {
  const sb = await capturedSandbox('cache-rebuild', (s) => void addBadFile(s.home));
  try {
    const r = await rebuildCache(sb.brain);
    assert.equal(r.mode, 'rebuild');
    assert.deepEqual(r.problems, []);
    assert.ok(r.bulkFiles > 40, `bulk path used for ${r.bulkFiles} files`);
    assert.ok(r.stagedLines >= 5, 'the non-UTF-8 file went through the line reader');
    const rows = await all(
      sb.brain,
      `SELECT c.lake_path, r.line_no, r.byte_offset, r.n_bytes, r.line_sha256, r.utf8_replaced
       FROM floor.raw_lines r
       JOIN (SELECT DISTINCT file_id, witness_gen, lake_path FROM floor.chunks) c USING (file_id, witness_gen)
       ORDER BY c.lake_path, r.line_no`,
    );
    const got: Expected[] = rows.map((x) => ({
      lake_path: x[0] as string,
      line_no: x[1] as number,
      byte_offset: x[2] as number,
      n_bytes: x[3] as number,
      sha: x[4] as string,
      replaced: x[5] as boolean,
    }));
    const want = expectedLines(sb.brain);
    assert.ok(want.length > 2500, `${want.length} lines expected`);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);

    // Each citation checks out the way a user would check it: sed -n 'N,Np' | sha256sum.
    const nulls = await all(sb.brain, `SELECT count(*) FILTER (WHERE captured_at IS NULL), count(*) FILTER (WHERE event_time IS NOT NULL) FROM floor.raw_lines`);
    assert.equal(nulls[0][0], 0);
    assert.ok((nulls[0][1] as number) > 2000, 'lines carry their own clock');
  } finally {
    sb.cleanup();
  }
});

test('rebuild: a session counts as bad the lines that are not JSON or are a JSON null, not other JSON values', async () => {
  const id = '88888888-8888-4888-8888-888888888888';
  const lines = ['{"type":"user","message":{"role":"user","content":"hi"}}', 'null', ' null\t', '[1]', '5', '"text"',
    '{"a":1,}', '{"a":1} x', 'nullx', '{"a":NaN}', '  {"type":"x"}'];
  const sb = await capturedSandbox('cache-null', (s) => {
    const f = path.join(s.home, '.claude', 'projects', '-tmp-null', `${id}.jsonl`);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, lines.map((l) => l + '\n').join(''));
  });
  try {
    await rebuildCache(sb.brain);
    // What DuckDB's own parse says, line by line: TRY(from_json(line, <a struct>)) IS NULL.
    const want = await all(sb.brain, `SELECT count(*) FILTER (WHERE TRY(from_json(r.raw_line, '{"type":"VARCHAR"}')) IS NULL)
      FROM floor.raw_lines r JOIN floor.files f USING (file_id) WHERE f.session_hint = '${id}'`);
    const s = await all(sb.brain, `SELECT n_lines, n_bad_lines FROM derived.sessions WHERE session_id = '${id}'`);
    assert.deepEqual(s[0], [lines.length, 4], 'null, " null", "{"a":1} x" and "nullx"');
    assert.equal(s[0][1], want[0][0]);
  } finally {
    sb.cleanup();
  }
});

test('rebuild: bad UTF-8 is replaced and flagged, non-JSON lines are rows, CRLF stays in the line', async () => {
  const sb = await capturedSandbox('cache-bad', (s) => void addBadFile(s.home));
  try {
    await rebuildCache(sb.brain);
    const rows = await all(
      sb.brain,
      `SELECT r.line_no, r.raw_line, r.utf8_replaced, r.line_sha256, r.n_bytes, r.event_time IS NOT NULL
       FROM floor.raw_lines r JOIN floor.files f USING (file_id)
       WHERE f.abs_path LIKE '%99999999-9999-4999-8999-999999999999.jsonl' ORDER BY r.line_no`,
    );
    const lines: Buffer[] = [];
    for (let p = 0; p < BAD.length; ) {
      const nl = BAD.indexOf(10, p);
      lines.push(BAD.subarray(p, nl));
      p = nl + 1;
    }
    assert.equal(rows.length, 6);
    assert.match(rows[0][1] as string, /caf\uFFFD\uFFFD"/);
    assert.equal(rows[0][2], true);
    assert.equal(rows[0][3], sha256(lines[0]), 'hash of the original bytes, not of the replacement');
    assert.equal(rows[0][4], lines[0].length + 1);
    assert.equal(rows[1][1], 'this line is not JSON at all');
    assert.equal(rows[1][5], false);
    assert.equal(rows[2][1], '');
    assert.equal(rows[2][4], 1);
    assert.ok((rows[3][1] as string).endsWith('}\r'), 'the \\r is part of the line, as sed prints it');
    assert.equal(rows[3][3], sha256(lines[3]));
    assert.equal(rows[4][2], false);
    assert.equal(rows[4][3], sha256(lines[4]));
    // The hash floor.raw_lines computes from the stored text is the line's, NUL byte included.
    assert.equal(rows[5][3], sha256(lines[5]));
    assert.equal(rows[5][4], lines[5].length + 1);
    // The dialect view skips what is not JSON; the session counts it.
    const v = await all(sb.brain, `SELECT count(*) FROM dialects.v_cc WHERE session_id = '99999999-9999-4999-8999-999999999999'`);
    assert.equal(v[0][0], 3, 'the replaced line is still JSON; the two non-JSON lines are not in the view');
    const s = await all(sb.brain, `SELECT n_lines, n_bad_lines FROM derived.sessions WHERE session_id = '99999999-9999-4999-8999-999999999999'`);
    assert.deepEqual(s[0], [6, 3]);
    const m = await all(sb.brain, `SELECT text FROM derived.messages WHERE session_id = '99999999-9999-4999-8999-999999999999' ORDER BY line_no`);
    assert.deepEqual(m.map((x) => x[0]), ['caf\uFFFD\uFFFD', 'crlf', 'ünïcødé ✓ 🚀']);
  } finally {
    sb.cleanup();
  }
});

test("rebuild: DuckDB's bulk reader and the program's line reader give identical caches", async () => {
  const sb = await capturedSandbox('cache-paths', (s) => void addBadFile(s.home));
  try {
    const a = await rebuildCache(sb.brain);
    assert.ok(a.bulkFiles > 0);
    const viaBulk = await digest(sb.brain);
    const b = await rebuildCache(sb.brain, { bulk: false });
    assert.equal(b.bulkFiles, 0);
    const viaLines = await digest(sb.brain);
    // captured_at, event_time and everything else must agree; only first_seen may not (now()).
    assert.deepEqual(viaLines, viaBulk);
  } finally {
    sb.cleanup();
  }
});

test('rebuild: lake files above the bulk size go through the line reader, with the same cache', async () => {
  const sb = await capturedSandbox('cache-bigfiles');
  try {
    const a = await rebuildCache(sb.brain);
    assert.deepEqual(a.problems, []);
    const viaBulk = await digest(sb.brain);
    // The median lake file's size as the limit: about half the files are read line by line.
    const sizes = manifestLines(sb.brain).map((m) => m.byte_to as number).sort((x, y) => x - y);
    const limit = sizes[Math.floor(sizes.length / 2)];
    const b = await rebuildCache(sb.brain, { bulkMaxFileBytes: limit });
    assert.deepEqual(b.problems, []);
    assert.ok(b.bulkFiles > 0 && b.bulkFiles < a.bulkFiles, `${b.bulkFiles} of ${a.bulkFiles} files in bulk`);
    assert.ok(b.stagedLines > a.stagedLines, 'the bigger files were staged line by line');
    assert.deepEqual(await digest(sb.brain), viaBulk);
  } finally {
    sb.cleanup();
  }
});

test('ingest_state: prefix_sha256 is the hash of the lake bytes before last_offset', async () => {
  const sb = await capturedSandbox('cache-state');
  try {
    await rebuildCache(sb.brain);
    const rows = await all(
      sb.brain,
      `SELECT c.lake_path, s.last_offset, s.last_line_no, s.prefix_sha256, s.last_size
       FROM floor.ingest_state s JOIN (SELECT DISTINCT file_id, witness_gen, lake_path FROM floor.chunks) c USING (file_id, witness_gen)`,
    );
    assert.ok(rows.length > 40);
    for (const [lp, off, lines, pre, size] of rows as [string, number, number, string, number][]) {
      const b = fs.readFileSync(path.join(sb.brain, lp));
      assert.equal(size, b.length, lp);
      assert.equal(pre, sha256(b.subarray(0, off)), lp);
      assert.equal(lines, b.subarray(0, off).toString('latin1').split('\n').length - 1, lp);
      assert.ok(off === b.length || b.lastIndexOf(10) < off, `${lp}: last_offset is after the last newline`);
    }
  } finally {
    sb.cleanup();
  }
});

test('the cache can be deleted at any time: the next query builds it again', async () => {
  const sb = await capturedSandbox('cache-delete');
  try {
    const first = await runReadOnlySql(sb.brain, 'SELECT count(*) FROM floor.raw_lines');
    assert.ok(fs.existsSync(path.join(sb.brain, 'brain.duckdb')));
    const before = await digest(sb.brain);
    fs.rmSync(path.join(sb.brain, 'brain.duckdb'));
    const again = await runReadOnlySql(sb.brain, 'SELECT count(*) FROM floor.raw_lines');
    assert.deepEqual(again.rows, first.rows);
    assert.deepEqual(await digest(sb.brain), before);
    assert.equal(fs.statSync(path.join(sb.brain, 'brain.duckdb')).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(sb.brain).filter((f) => f.includes('rebuild-')), [], 'no temporary files left');
  } finally {
    sb.cleanup();
  }
});

test('leftovers of a rebuild whose process died are removed by the next rebuild', async () => {
  const sb = await capturedSandbox('cache-stale');
  try {
    // A pid that cannot be running: above the kernel's pid_max.
    const dead = path.join(sb.brain, 'brain.duckdb.rebuild-99999999-1');
    fs.writeFileSync(dead, 'partial');
    fs.mkdirSync(`${dead}.tmp`);
    await rebuildCache(sb.brain);
    assert.equal(fs.existsSync(dead), false);
    assert.equal(fs.existsSync(`${dead}.tmp`), false);
  } finally {
    sb.cleanup();
  }
});

test('the lines are stored zstd-compressed, without an index or key constraint to build, and without their hashes', async () => {
  const sb = await capturedSandbox('cache-storage', (s) => void addBadFile(s.home));
  try {
    await rebuildCache(sb.brain);
    const db = await openDb(path.join(sb.brain, 'brain.duckdb'), { readOnly: true });
    try {
      const q = async (sql: string) => (await db.conn.runAndReadAll(sql)).getRows();
      const comp = await q(`SELECT DISTINCT compression FROM pragma_storage_info('floor.line_store')
                            WHERE column_name = 'raw_line' AND segment_type = 'VARCHAR'`);
      assert.deepEqual(comp.map((r) => r[0]), ['ZSTD']);
      assert.deepEqual(await q(`SELECT index_name FROM duckdb_indexes() WHERE table_name = 'line_store'`), []);
      assert.deepEqual(await q(`SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'line_store' AND constraint_type <> 'NOT NULL'`), []);
      // floor.raw_lines is the document's table as a view: a line's sha256 is stored only where
      // raw_line's bytes are not the line's (the one line with invalid UTF-8), its length only
      // there and for a last line without a newline.
      assert.deepEqual(await q(`SELECT view_name FROM duckdb_views() WHERE schema_name = 'floor' AND view_name = 'raw_lines'`), [['raw_lines']]);
      const stored = await q(`SELECT count(*), count(orig_sha256), count(orig_n_bytes) FILTER (WHERE utf8_replaced),
                                     count(orig_n_bytes) FILTER (WHERE NOT utf8_replaced AND strlen(raw_line) <> orig_n_bytes) FROM floor.line_store`);
      assert.ok(Number(stored[0][0]) > 2500);
      assert.deepEqual(stored[0].slice(1).map(Number), [1, 1, 0]);
    } finally {
      db.close();
    }
  } finally {
    sb.cleanup();
  }
});

test('a rebuilt cache holds no free blocks: the build is copied into a fresh file, every table, view and macro with it', async () => {
  // 40 MB of generated sessions: enough for a build's parallel inserts to leave blocks free (2 of
  // 71 here before the copy; a third of the file at 1 GB).
  const sb = await capturedSandbox('cache-compact', (s) => {
    const out = path.join(s.dir, 'corpus');
    generate({ size: 40 << 20, out, seed: 3 });
    fs.cpSync(path.join(out, 'home'), s.home, { recursive: true });
  });
  try {
    await rebuildCache(sb.brain, { threads: 2 });
    // (and the note of where it stands: cache/fresh.ts)
    assert.deepEqual(fs.readdirSync(sb.brain).filter((n) => n.startsWith('brain.duckdb')).sort(), ['brain.duckdb', 'brain.duckdb.fresh.json'], 'nothing of the build is left beside it');
    const db = await openDb(path.join(sb.brain, 'brain.duckdb'), { readOnly: true });
    try {
      const q = async (sql: string) => (await db.conn.runAndReadAll(sql)).getRows();
      const [[total, used, free]] = await q('SELECT total_blocks, used_blocks, free_blocks FROM pragma_database_size()');
      assert.equal(Number(free), 0, `${free} of ${total} blocks free (${used} used)`);
      const macros = await q(`SELECT count(*) FROM duckdb_functions() WHERE function_type = 'macro' AND NOT internal`);
      assert.ok(Number(macros[0][0]) >= 5, 'the macros came along');
      const [[lines, sha]] = await q('SELECT count(*), count(line_sha256) FROM floor.raw_lines');
      assert.ok(Number(lines) > 10_000 && Number(sha) === Number(lines));
      assert.ok(Number((await q('SELECT count(*) FROM derived.messages'))[0][0]) > 1000);
    } finally {
      db.close();
    }
  } finally {
    sb.cleanup();
  }
});
