// Incremental updates: only manifest lines beyond what the cache has seen are read, the result
// equals a rebuild of the same floor, re-applying is harmless, new generations replace the live
// rows, and a cache that does not belong to the floor or the SQL files is rebuilt.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { capture } from '../../../src/core/floor/capture';
import { rebuildCache, updateCache } from '../../../src/core/cache';
import { all, appendLine, capturedSandbox, CC_SESSION, ccFile, digest, manifestLines, userLine } from './helpers';

const SESSION = CC_SESSION;

async function setMeta(brain: string, key: string, value: string): Promise<void> {
  const i = await DuckDBInstance.create(path.join(brain, 'brain.duckdb'));
  const c = await i.connect();
  await c.run('UPDATE floor.cache_meta SET value = $v WHERE key = $k', { k: key, v: value });
  c.closeSync();
  i.closeSync();
}

test('update reads only the new manifest lines and equals a rebuild of the same floor', async () => {
  const sb = await capturedSandbox('cache-upd');
  try {
    await rebuildCache(sb.brain);
    const before = (await all(sb.brain, `SELECT count(*) FROM derived.messages WHERE session_id = '${SESSION}'`))[0][0] as number;
    appendLine(ccFile(sb.home), userLine('a new prompt about zebras', '2026-05-01T09:00:00.000Z'));
    appendLine(ccFile(sb.home), userLine('and another one', '2026-05-01T09:00:05.000Z'));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    const u = await updateCache(sb.brain);
    assert.equal(u.mode, 'update');
    assert.equal(u.manifestLines, 1);
    assert.equal(u.files, 1);
    assert.equal(u.stagedLines, 2, 'only the two new lines were read');
    const after = await all(sb.brain, `SELECT text FROM derived.messages WHERE session_id = '${SESSION}' ORDER BY line_no`);
    assert.equal(after.length, before + 2);
    assert.deepEqual(after.slice(-2).map((r) => r[0]), ['a new prompt about zebras', 'and another one']);
    const incremental = await digest(sb.brain);
    await rebuildCache(sb.brain);
    assert.deepEqual(await digest(sb.brain), incremental);
    assert.equal((await updateCache(sb.brain)).mode, 'current');
  } finally {
    sb.cleanup();
  }
});

test('re-applying manifest lines the cache already holds changes nothing (keyed inserts)', async () => {
  const sb = await capturedSandbox('cache-idem');
  try {
    await rebuildCache(sb.brain);
    const d = await digest(sb.brain);
    const tails = (await all(sb.brain, 'SELECT count(*) FROM floor.ingest_state WHERE last_offset < last_size'))[0][0];
    // As if the cache had lost its place in the manifest: everything is offered again.
    await setMeta(sb.brain, 'manifest_offset', '0');
    await setMeta(sb.brain, 'manifest_check_from', '-1');
    await setMeta(sb.brain, 'manifest_check', '');
    const u = await updateCache(sb.brain);
    assert.equal(u.mode, 'update');
    assert.ok(u.manifestLines > 40);
    // Only the unterminated last lines (JSON documents without a final newline) are read again.
    assert.equal(u.stagedLines, tails);
    assert.deepEqual(await digest(sb.brain), d);
  } finally {
    sb.cleanup();
  }
});

test('a rewritten origin opens a generation: the views show it, and what only the old one holds stays', async () => {
  const sb = await capturedSandbox('cache-gen');
  try {
    await rebuildCache(sb.brain);
    const old = (await all(sb.brain, `SELECT count(*) FROM floor.raw_lines r JOIN floor.files f USING (file_id) WHERE f.session_hint = '${SESSION}'`))[0][0] as number;
    fs.writeFileSync(ccFile(sb.home), userLine('rewritten from scratch', '2026-06-01T00:00:00.000Z') + '\n');
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    const u = await updateCache(sb.brain);
    assert.equal(u.mode, 'update');
    const gens = await all(sb.brain, `SELECT witness_gen, count(*) FROM floor.raw_lines r JOIN floor.files f USING (file_id) WHERE f.session_hint = '${SESSION}' GROUP BY 1 ORDER BY 1`);
    assert.deepEqual(gens, [[1, old], [2, 1]]);
    const live = await all(sb.brain, `SELECT text FROM derived.messages WHERE session_id = '${SESSION}' AND witness_gen = 2`);
    assert.deepEqual(live, [['rewritten from scratch']]);
    // Generation 2 shares nothing with generation 1: every message of generation 1 stays, once.
    const was = await all(sb.brain, `SELECT count(*), count(DISTINCT msg_id) FROM derived.messages WHERE session_id = '${SESSION}' AND witness_gen = 1`);
    assert.ok(Number(was[0][0]) > 0 && was[0][0] === was[0][1]);
    const newest = await all(sb.brain, `SELECT DISTINCT witness_gen FROM dialects.v_newest r JOIN floor.files f USING (file_id) WHERE f.session_hint = '${SESSION}'`);
    assert.deepEqual(newest, [[2]]);
    const st = await all(sb.brain, `SELECT s.witness_gen, s.last_line_no FROM floor.ingest_state s JOIN floor.files f USING (file_id) WHERE f.session_hint = '${SESSION}'`);
    assert.deepEqual(st, [[2, 1]]);
    const incremental = await digest(sb.brain);
    await rebuildCache(sb.brain);
    assert.deepEqual(await digest(sb.brain), incremental);
  } finally {
    sb.cleanup();
  }
});

test('an unterminated line captured when its file went quiet is a row without a newline', async () => {
  const sb = await capturedSandbox('cache-unterm');
  try {
    await rebuildCache(sb.brain);
    fs.appendFileSync(ccFile(sb.home), userLine('no newline yet', '2026-05-02T00:00:00.000Z'));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    await updateCache(sb.brain);
    const r = await all(sb.brain, `SELECT r.raw_line, r.n_bytes, length(r.raw_line) FROM dialects.v_live r JOIN floor.files f USING (file_id) WHERE f.session_hint = '${SESSION}' ORDER BY r.line_no DESC LIMIT 1`);
    assert.equal(r[0][0], userLine('no newline yet', '2026-05-02T00:00:00.000Z'));
    assert.equal(r[0][1], r[0][2], 'n_bytes counts no newline');
    const incremental = await digest(sb.brain);
    await rebuildCache(sb.brain);
    assert.deepEqual(await digest(sb.brain), incremental);
  } finally {
    sb.cleanup();
  }
});

test('a cache of another floor, or of other SQL files, is rebuilt', async () => {
  const a = await capturedSandbox('cache-a');
  const b = await capturedSandbox('cache-b', (s) => appendLine(ccFile(s.home), userLine('only in b', '2026-05-03T00:00:00.000Z')));
  try {
    await rebuildCache(a.brain);
    await rebuildCache(b.brain);
    const want = await digest(b.brain);
    fs.copyFileSync(path.join(a.brain, 'brain.duckdb'), path.join(b.brain, 'brain.duckdb'));
    const u = await updateCache(b.brain);
    assert.equal(u.mode, 'rebuild');
    assert.match(u.reason ?? '', /manifest/);
    const got = await digest(b.brain);
    assert.deepEqual({ ...got, files: '', witnesses: '', chunks: '' }, { ...want, files: '', witnesses: '', chunks: '' });
    await setMeta(b.brain, 'schema_hash', 'something-else');
    const v = await updateCache(b.brain);
    assert.equal(v.mode, 'rebuild');
    assert.match(v.reason ?? '', /sql/);
  } finally {
    a.cleanup();
    b.cleanup();
  }
});

test('lines captured under another machine name (a renamed host, a hook without BRAIN_MACHINE) stay one document', async () => {
  const sb = await capturedSandbox('cache-rename');
  try {
    await rebuildCache(sb.brain);
    const q = `SELECT count(*) FROM derived.messages WHERE session_id = '${SESSION}'`;
    const before = (await all(sb.brain, q))[0][0] as number;
    appendLine(ccFile(sb.home), userLine('said after the rename', '2026-05-02T09:00:00.000Z'));
    await capture({ home: sb.brain, env: { ...sb.env, BRAIN_MACHINE: 'renamed-box' }, quietMs: 0 });
    const machines = new Set(manifestLines(sb.brain).filter((m) => m.origin_path === ccFile(sb.home)).map((m) => m.machine_id));
    assert.deepEqual([...machines].sort(), ['renamed-box', 'testbox']);
    // Before: the new line made a second file_id, read from byte 0, and the update failed (its
    // lines had no chunk before the rename), leaving the cache behind on every later update.
    const u = await updateCache(sb.brain);
    assert.equal(u.mode, 'update');
    assert.equal(u.stagedLines, 1, 'only the new line was read');
    assert.equal((await all(sb.brain, q))[0][0], before + 1, 'no line twice');
    const files = await all(sb.brain, `SELECT DISTINCT file_id FROM floor.chunks WHERE origin_path = '${ccFile(sb.home)}'`);
    assert.equal(files.length, 1);
    const incremental = await digest(sb.brain);
    await rebuildCache(sb.brain);
    assert.deepEqual(await digest(sb.brain), incremental, 'a rebuild gives the same cache');
  } finally {
    sb.cleanup();
  }
});

test('a cache known current is not opened; another writer, a grown manifest or a torn note open it again', async () => {
  const sb = await capturedSandbox('cache-fresh');
  try {
    const db = path.join(sb.brain, 'brain.duckdb');
    await rebuildCache(sb.brain);
    assert.ok(fs.existsSync(`${db}.fresh.json`), 'the rebuild noted where the cache stands');
    // Locked by another process for the whole update: only an answer that never opens the file
    // can come back (an open would wait for the lock, then fail with cache-locked).
    const holder = await DuckDBInstance.create(db);
    const hc = await holder.connect();
    try {
      const u = await updateCache(sb.brain, { lockTimeoutMs: 300 });
      assert.equal(u.mode, 'current');
    } finally {
      hc.closeSync();
      holder.closeSync();
    }
    // That holder wrote nothing, but it opened the file read-write: if its checkpoint changed the
    // file, the note no longer matches and the cache is opened (and found current) again.
    assert.equal((await updateCache(sb.brain)).mode, 'current');
    // Another writer changed the cache: the note is not trusted, the cache itself is read.
    await setMeta(sb.brain, 'manifest_offset', '0');
    await setMeta(sb.brain, 'manifest_check_from', '-1');
    await setMeta(sb.brain, 'manifest_check', '');
    const again = await updateCache(sb.brain);
    assert.equal(again.mode, 'update', 'the lowered offset was seen');
    assert.ok(again.manifestLines > 40);
    // The manifest grew: the note is not enough either.
    appendLine(ccFile(sb.home), userLine('after the note', '2026-05-03T09:00:00.000Z'));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    const grown = await updateCache(sb.brain);
    assert.equal(grown.mode, 'update');
    assert.equal(grown.stagedLines, 1);
    assert.equal((await all(sb.brain, `SELECT count(*) FROM derived.messages WHERE text = 'after the note'`))[0][0], 1);
    // A note that does not parse is not trusted.
    fs.writeFileSync(`${db}.fresh.json`, '{"v":1,');
    assert.equal((await updateCache(sb.brain)).mode, 'current');
    assert.doesNotThrow(() => JSON.parse(fs.readFileSync(`${db}.fresh.json`, 'utf8')), 'noted again');
  } finally {
    sb.cleanup();
  }
});
