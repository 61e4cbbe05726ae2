// `brain record` leaves the DuckDB cache's update to a process of its own: it returns without it,
// the follower brings the cache up to the manifest, lines captured while a follower runs are taken
// by it (a second follower leaves), and a follower that failed is reported by the next record.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';
import { rebuildCache, updateCache } from '../../../src/core/cache';
import { follow, lastFollow } from '../../../src/core/cache/follow';
import { cacheKnownCurrent } from '../../../src/core/cache/fresh';
import { all, appendLine, capturedSandbox, CC_SESSION, ccFile, holder, userLine } from './helpers';

const SESSION = CC_SESSION;

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A built cache, a line captured after it, and a follower that failed to take it: another
 * process held the cache for writing longer than the follower waits. */
async function followerFails(sb: Awaited<ReturnType<typeof capturedSandbox>>, text: string, at: string): Promise<void> {
  await rebuildCache(sb.brain);
  appendLine(ccFile(sb.home), userLine(text, at));
  await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
  const h = await holder(path.join(sb.brain, 'brain.duckdb'), 'rw', 3000);
  await assert.rejects(follow(sb.brain, (home) => updateCache(home, { lockTimeoutMs: 200 })), /locked|lock/i);
  assert.equal(lastFollow(sb.brain)?.ok, false);
  await h.done;
}

test('brain record returns before the DuckDB update, which a process of its own makes', async () => {
  const sb = await capturedSandbox('cache-follow-cli');
  try {
    await rebuildCache(sb.brain);
    appendLine(ccFile(sb.home), userLine('a prompt about otters', '2026-05-02T09:00:00.000Z'));
    const r = brain(sb, ['record', '--json'], { env: { BRAIN_QUIET_SECONDS: '0' } });
    assert.equal(r.status, 0, r.stderr);
    const duck = (JSON.parse(r.stdout).caches as { step: string; ok: boolean; detail: string }[]).find((c) => c.step === 'duckdb');
    assert.ok(duck?.ok, r.stdout);
    assert.match(duck.detail, /updating in the background \(pid \d+\)/);
    await until('the follower noted what it did', () => lastFollow(sb.brain) !== undefined);
    const o = lastFollow(sb.brain)!;
    assert.equal(o.ok, true, o.detail);
    assert.match(o.detail, /^1 update\(s\), 1 manifest line\(s\)$/);
    assert.ok(cacheKnownCurrent(sb.brain), 'the cache is current with the manifest');
    const rows = await all(sb.brain, `SELECT text FROM derived.messages WHERE session_id = '${SESSION}' AND text = 'a prompt about otters'`);
    assert.equal(rows.length, 1);
    // Nothing new: the follower is not started.
    const again = brain(sb, ['record', '--json'], { env: { BRAIN_QUIET_SECONDS: '0' } });
    const d2 = (JSON.parse(again.stdout).caches as { step: string; detail: string }[]).find((c) => c.step === 'duckdb');
    assert.equal(d2?.detail, 'current');
  } finally {
    sb.cleanup();
  }
});

test('lines captured while a follower updates are taken by it; a second follower leaves', async () => {
  const sb = await capturedSandbox('cache-follow-race');
  try {
    await rebuildCache(sb.brain);
    appendLine(ccFile(sb.home), userLine('first of two', '2026-05-02T10:00:00.000Z'));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    let second: string | undefined;
    const modes: string[] = [];
    const done = await follow(sb.brain, async (h) => {
      const r = await updateCache(h);
      modes.push(r.mode);
      if (second === undefined) {
        // Captured while the first follower holds its lock: its own follower finds it held.
        appendLine(ccFile(sb.home), userLine('second of two', '2026-05-02T10:00:05.000Z'));
        await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
        second = await follow(h, updateCache);
      }
      return r;
    });
    assert.equal(second, 'another update is running');
    assert.deepEqual(modes, ['update', 'update', 'current']);
    assert.equal(done, '2 update(s), 2 manifest line(s)');
    assert.ok(cacheKnownCurrent(sb.brain));
    const rows = await all(sb.brain, `SELECT text FROM derived.messages WHERE session_id = '${SESSION}' AND text LIKE '% of two' ORDER BY line_no`);
    assert.deepEqual(rows.map((x) => x[0]), ['first of two', 'second of two']);
  } finally {
    sb.cleanup();
  }
});

test('a follower that failed is reported by the next brain record, which starts another', async () => {
  const sb = await capturedSandbox('cache-follow-fail');
  try {
    await followerFails(sb, 'a prompt about badgers', '2026-05-02T11:00:00.000Z');
    const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /FAILED duckdb: the last background update failed \(.+\): .*lock.*; updating again in the background/i);
    await until('the new follower noted success', () => lastFollow(sb.brain)?.ok === true);
    const rows = await all(sb.brain, `SELECT count(*) FROM derived.messages WHERE text = 'a prompt about badgers'`);
    assert.equal(Number(rows[0][0]), 1);
    assert.ok(fs.existsSync(path.join(sb.brain, 'health', 'duckdb-follow.json')));
  } finally {
    sb.cleanup();
  }
});

test('a failed follower is not reported again once a query brought the cache up in the foreground', async () => {
  const sb = await capturedSandbox('cache-follow-healed');
  try {
    await followerFails(sb, 'a prompt about voles', '2026-05-02T12:00:00.000Z');
    // What `brain sql` and the tools do before they read: the update the follower could not make.
    assert.equal((await updateCache(sb.brain)).mode, 'update');
    appendLine(ccFile(sb.home), userLine('a prompt about shrews', '2026-05-02T12:05:00.000Z'));
    const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /FAILED duckdb/);
    assert.match(r.stdout, /updating in the background/);
    await until('the new follower noted success', () => lastFollow(sb.brain)?.ok === true);
  } finally {
    sb.cleanup();
  }
});
