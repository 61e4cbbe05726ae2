// The tick and the lock: one stat inside the interval, no rsync when nothing changed, a failed
// sync leaves last-ok alone, "backup stale" when a change waited too long, a second sync exits at
// once, and a --now that finds the lock held makes the holder sync again before it lets go.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tryLock } from '../../../src/core/floor/lock';
import { syncPaths } from '../../../src/core/store/paths';
import { effectiveWarning, readState, staleAfterMs } from '../../../src/core/store/state';
import { tick } from '../../../src/core/pipeline/tick';
import { brain, CLI } from '../../helpers/env';
import { appendToLake, fixtureFiles, localStoreConfig, writeConfig, type FloorFileSpec } from './floor';
import { countingRsync, setRsyncPath, setupStore, type StoreSetup } from './harness';

describe('tick', () => {
  let s: StoreSetup;
  let counter: ReturnType<typeof countingRsync>;
  before(async () => {
    s = await setupStore('tick');
    counter = countingRsync(s.sb.dir);
    setRsyncPath(s.sb.brain, counter.path);
  });
  after(() => s.cleanup());

  it('syncs the first time, then does nothing inside the interval (not even a walk)', async () => {
    const o = await tick(s.sb.brain, { env: s.env });
    assert.equal(o.kind, 'synced');
    assert.equal(counter.runs(), 1);
    appendToLake(s.sb.brain, s.lakePaths[0], '{"inside":"interval"}\n');
    const o2 = await tick(s.sb.brain, { env: s.env });
    assert.equal(o2.kind, 'not-due');
    assert.equal(counter.runs(), 1);
  });

  it('after the interval, syncs what changed; with nothing changed opens no connection', async () => {
    fs.rmSync(syncPaths(s.sb.brain).lastTick);
    assert.equal((await tick(s.sb.brain, { env: s.env })).kind, 'synced');
    assert.equal(counter.runs(), 2);
    fs.rmSync(syncPaths(s.sb.brain).lastTick);
    const o = await tick(s.sb.brain, { env: s.env });
    assert.equal(o.kind, 'unchanged');
    assert.equal(counter.runs(), 2, 'no rsync (so no ssh) when nothing changed');
  });

  it('runs the capture first, and a capture error does not stop the backup', async () => {
    fs.rmSync(syncPaths(s.sb.brain).lastTick);
    let captured = false;
    const o = await tick(s.sb.brain, {
      env: s.env,
      capture: async () => {
        captured = true;
        appendToLake(s.sb.brain, s.lakePaths[1], '{"captured":1}\n');
        throw new Error('origin folder unreadable');
      },
    });
    assert.ok(captured);
    assert.equal(o.kind, 'captured-error');
    assert.equal(counter.runs(), 3, 'what the floor holds is still synced');
  });

  it('a failed sync leaves last-ok alone; the change then shows "backup stale" once it waited too long', async () => {
    const p = syncPaths(s.sb.brain);
    const lastOk = fs.statSync(p.lastOk).mtimeMs;
    fs.rmSync(p.lastTick);
    // An unmounted disk: the config names a folder that is gone.
    fs.renameSync(s.store, `${s.store}.gone`);
    try {
      const o = await tick(s.sb.brain, { env: s.env });
      assert.equal(o.kind, 'not-configured');
      assert.equal(effectiveWarning(s.sb.brain, s.env).warning, 'backup failing: store folder missing');
    } finally {
      fs.renameSync(`${s.store}.gone`, s.store);
    }
    // The machine's folder cannot be created (a file is in its way): the sync itself fails.
    fs.rmSync(p.lastTick);
    fs.renameSync(s.mine, `${s.mine}.away`);
    fs.writeFileSync(s.mine, 'in the way\n');
    try {
      appendToLake(s.sb.brain, s.lakePaths[2], '{"while":"store broken"}\n');
      const o = await tick(s.sb.brain, { env: s.env });
      assert.equal(o.kind, 'synced');
      const st = readState(s.sb.brain)!;
      assert.equal(st.status, 'failed');
      assert.equal(st.warning, 'backup failing: store not writable');
      assert.equal(fs.statSync(p.lastOk).mtimeMs, lastOk);
      // The sync's label wins while there is one.
      assert.equal(effectiveWarning(s.sb.brain, s.env).warning, 'backup failing: store not writable');
      // With no label (say the failure was not recorded, e.g. the timer stopped), waiting decides.
      const state = JSON.parse(fs.readFileSync(p.state, 'utf8'));
      fs.writeFileSync(p.state, JSON.stringify({ ...state, status: 'ok', warning: '' }));
      const now = Date.now();
      assert.equal(effectiveWarning(s.sb.brain, s.env, now).warning, '', 'a fresh change is not stale');
      const later = now + staleAfterMs(600) + 60_000;
      // The wait counts from the earlier of the change and when a tick first saw it unsynced.
      const e = effectiveWarning(s.sb.brain, s.env, later);
      assert.equal(e.warning, 'backup stale');
      assert.match(e.message, /waited \d+ minutes for a sync that worked/);
    } finally {
      fs.rmSync(s.mine);
      fs.renameSync(`${s.mine}.away`, s.mine);
    }
    fs.rmSync(p.lastTick);
    await tick(s.sb.brain, { env: s.env });
    assert.equal(readState(s.sb.brain)!.status, 'ok');
    assert.equal(effectiveWarning(s.sb.brain, s.env, Date.now() + 10 * staleAfterMs(600)).warning, '', 'nothing waits any more');
    assert.ok(!fs.existsSync(p.unsyncedSince));
  });

  it('stale threshold is max(30 min, interval + 10 min)', () => {
    assert.equal(staleAfterMs(600), 30 * 60_000);
    assert.equal(staleAfterMs(3600), 70 * 60_000);
  });

  it('a missing config is reported by the CLI with the fix, once per interval', () => {
    const p = syncPaths(s.sb.brain);
    const cfg = fs.readFileSync(path.join(s.sb.brain, 'config.toml'));
    fs.rmSync(path.join(s.sb.brain, 'config.toml'));
    try {
      fs.rmSync(p.lastTick, { force: true });
      const r = brain(s.sb, ['tick'], { env: s.env });
      assert.equal(r.status, 3);
      assert.match(r.stderr, /brain init/);
      const r2 = brain(s.sb, ['tick'], { env: s.env });
      assert.equal(r2.status, 0, 'inside the interval it does not retry');
    } finally {
      fs.writeFileSync(path.join(s.sb.brain, 'config.toml'), cfg);
    }
  });
});

describe('the sync lock', () => {
  let s: StoreSetup;
  before(async () => {
    // A 16 MB session so a bandwidth-limited sync runs long enough to overlap.
    const lines: Buffer[] = [];
    let n = 0;
    for (let i = 0; n < 16 << 20; i++) {
      const b = Buffer.from(JSON.stringify({ i, text: 'z'.repeat(1000) }) + '\n');
      lines.push(b);
      n += b.length;
    }
    const specs: FloorFileSpec[] = [...fixtureFiles(2), { lane: 'pi', rel: 'slow/session.jsonl', bytes: Buffer.concat(lines) }];
    s = await setupStore('lock', { specs });
  });
  after(() => s.cleanup());

  it('a second sync exits at once; --now leaves a pending mark', async () => {
    const held = await tryLock(path.join(s.sb.brain, 'locks'), 'sync');
    assert.ok(held);
    try {
      const t0 = Date.now();
      const r = brain(s.sb, ['sync'], { env: s.env });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /another sync is running$/m);
      assert.ok(!fs.existsSync(syncPaths(s.sb.brain).pending));
      const r2 = brain(s.sb, ['sync', '--now'], { env: s.env });
      assert.equal(r2.status, 0);
      assert.match(r2.stdout, /it will sync again before it finishes/);
      assert.ok(fs.existsSync(syncPaths(s.sb.brain).pending));
      assert.ok(Date.now() - t0 < 10_000, 'no waiting for the lock');
    } finally {
      held!.release();
    }
    fs.rmSync(syncPaths(s.sb.brain).pending, { force: true });
  });

  it('the holder honours a --now that arrived while it ran', async () => {
    const counter = countingRsync(s.sb.dir);
    writeConfig(s.sb.brain, localStoreConfig(s.store));
    setRsyncPath(s.sb.brain, counter.path);
    const slow = spawn(process.execPath, [CLI, 'sync', '--now'], { env: { ...s.env, BRAIN_RSYNC_ARGS: '--bwlimit=4000' }, stdio: 'ignore' });
    // Wait until the slow sync's rsync runs, then ask for another sync.
    for (let i = 0; i < 200 && counter.runs() === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(counter.runs(), 1);
    appendToLake(s.sb.brain, s.lakePaths[0], '{"during":"the slow sync"}\n');
    const r = brain(s.sb, ['sync', '--now'], { env: s.env });
    assert.match(r.stdout, /it will sync again/);
    const code = await new Promise((res) => slow.once('exit', res));
    assert.equal(code, 0);
    assert.equal(counter.runs(), 2, 'the holder synced again before letting go');
    assert.ok(!fs.existsSync(syncPaths(s.sb.brain).pending));
    assert.ok(fs.readFileSync(path.join(s.sb.brain, s.lakePaths[0])).equals(fs.readFileSync(path.join(s.mine, s.lakePaths[0]))));
  });
});
