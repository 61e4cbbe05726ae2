// DuckDB's file lock across processes: a writer elsewhere makes a query wait and retry, then fail
// with 'cache-locked' naming the process; readers elsewhere make an update wait; a rebuild swaps
// the new file in under readers, who finish on the old one.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { capture } from '../../../src/core/floor/capture';
import { rebuildCache, runReadOnlySql, updateCache } from '../../../src/core/cache';
import { BrainError } from '../../../src/core/errors';
import { appendLine, capturedSandbox, holder } from './helpers';

test('a query meets a writer: retries, then fails naming the holder', async () => {
  const sb = await capturedSandbox('cache-lock-w');
  try {
    await rebuildCache(sb.brain);
    const db = path.join(sb.brain, 'brain.duckdb');
    const h = await holder(db, 'rw', 1500);
    try {
      await runReadOnlySql(sb.brain, 'SELECT 1', { lockTimeoutMs: 200 });
      assert.fail('query ran under a writer');
    } catch (e) {
      assert.ok(e instanceof BrainError);
      assert.equal(e.code, 'cache-locked');
      assert.match(e.message, new RegExp(`process ${h.child.pid}`));
      assert.match(e.hint ?? '', /Try again/);
    }
    // With a longer deadline the same query waits for the writer and runs.
    const t0 = Date.now();
    const r = await runReadOnlySql(sb.brain, 'SELECT 42', { lockTimeoutMs: 20_000 });
    assert.deepEqual(r.rows, [[42]]);
    assert.ok(Date.now() - t0 > 300, 'it waited');
    assert.match(await h.done, /rows \d+/);
  } finally {
    sb.cleanup();
  }
});

test('an update meets readers: waits for them; a rebuild swaps under them', async () => {
  const sb = await capturedSandbox('cache-lock-r');
  try {
    await rebuildCache(sb.brain);
    const db = path.join(sb.brain, 'brain.duckdb');
    const before = (await runReadOnlySql(sb.brain, 'SELECT count(*) FROM floor.raw_lines')).rows[0][0] as number;
    appendLine(path.join(sb.home, '.claude', 'projects', '-lock', '12121212-1212-4121-8121-121212121212.jsonl'), '{"type":"user","message":{"role":"user","content":"x"}}');
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });

    const r1 = await holder(db, 'ro', 1500);
    await assert.rejects(updateCache(sb.brain, { lockTimeoutMs: 200 }), (e: unknown) => e instanceof BrainError && e.code === 'cache-locked');
    const u = await updateCache(sb.brain, { lockTimeoutMs: 20_000 });
    assert.equal(u.mode, 'update');
    assert.match(await r1.done, new RegExp(`rows ${before}`), 'the reader saw a consistent file');

    const r2 = await holder(db, 'ro', 2500);
    const rb = await rebuildCache(sb.brain, { lockTimeoutMs: 500 });
    assert.equal(rb.mode, 'rebuild', 'readers do not stop a rebuild');
    assert.match(await r2.done, new RegExp(`rows ${before + 1}`), 'the reader finished on the file it opened');
    const after = (await runReadOnlySql(sb.brain, 'SELECT count(*) FROM floor.raw_lines')).rows[0][0];
    assert.equal(after, before + 1);
  } finally {
    sb.cleanup();
  }
});

test('in one process, concurrent updates and queries are serialised', async () => {
  const sb = await capturedSandbox('cache-lock-p');
  try {
    const jobs = [
      updateCache(sb.brain),
      runReadOnlySql(sb.brain, 'SELECT count(*) FROM derived.messages'),
      updateCache(sb.brain),
      runReadOnlySql(sb.brain, 'SELECT count(*) FROM derived.messages'),
      rebuildCache(sb.brain),
      runReadOnlySql(sb.brain, 'SELECT count(*) FROM derived.messages'),
    ];
    const out = await Promise.all(jobs);
    const counts = [out[1], out[3], out[5]].map((r) => (r as { rows: unknown[][] }).rows[0][0]);
    assert.ok((counts[0] as number) > 0);
    assert.deepEqual(counts, [counts[0], counts[0], counts[0]]);
  } finally {
    sb.cleanup();
  }
});
