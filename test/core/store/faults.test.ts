// Faults, each against real parts (rsync, a real sshd on 127.0.0.1, a real tmpfs). After each: the
// warning label says what happened, the next sync repairs what can be repaired, and nothing at the
// store was deleted or shortened.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { runSync, type SyncOutcome } from '../../../src/core/store/sync';
import { readState } from '../../../src/core/store/state';
import { syncPaths } from '../../../src/core/store/paths';
import { readbackFolder } from '../../../src/core/store/readback';
import { brain, CLI, listFiles } from '../../helpers/env';
import { startHungServer } from '../../helpers/sshd';
import { appendToLake, bigSession, flipByte, fixtureFiles, lostFiles, snapshot, sshStoreConfig, writeConfig, type FloorFileSpec } from './floor';
import { countingRsync, setRsyncPath, setupStore, untilNoProcesses, type StoreSetup } from './harness';

function done(o: SyncOutcome) {
  assert.equal(o.kind, 'done', JSON.stringify(o));
  if (o.kind !== 'done') throw new Error('not done');
  return o.state;
}

function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function assertNothingLost(before: Map<string, { size: number }>, storeDir: string): void {
  assert.deepEqual(lostFiles(before, snapshot(storeDir)), [], 'nothing at the store deleted or shortened');
}

function sameAsLocal(s: StoreSetup, lp: string): boolean {
  return fs.readFileSync(path.join(s.sb.brain, lp)).equals(fs.readFileSync(path.join(s.mine, lp)));
}

describe('fault: store unreachable (sshd stopped)', () => {
  it('fails with "store unreachable", keeps last-ok, and the next sync catches up', async () => {
    const s = await setupStore('f-down', { ssh: true });
    try {
      done(await runSync(s.sb.brain, { env: s.env }));
      const lastOk = fs.statSync(syncPaths(s.sb.brain).lastOk).mtimeMs;
      const before = snapshot(s.store);
      await s.sshd!.stop();
      appendToLake(s.sb.brain, s.lakePaths[0], '{"while":"down"}\n');
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.status, 'failed');
      assert.equal(st.warning, 'backup failing: store unreachable');
      assert.match(st.message, /Connection refused/);
      assert.equal(fs.statSync(syncPaths(s.sb.brain).lastOk).mtimeMs, lastOk, 'a failed sync leaves last-ok alone');
      assert.ok(fs.existsSync(syncPaths(s.sb.brain).unsyncedSince), 'the wait is being timed');
      await s.sshd!.start();
      const st2 = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st2.status, 'ok', st2.message);
      assert.equal(st2.warning, '');
      assert.ok(sameAsLocal(s, s.lakePaths[0]));
      assertNothingLost(before, s.store);
    } finally {
      await s.cleanup();
    }
  });
});

describe('fault: hung connection', () => {
  it('a host that accepts and never answers times out with "store timed out"', async () => {
    const s = await setupStore('f-hung', { ssh: true });
    const hung = await startHungServer();
    try {
      fs.appendFileSync(s.sshd!.sshConfig, `Host hungstore\n  HostName 127.0.0.1\n  Port ${hung.port}\n  User root\n`);
      writeConfig(s.sb.brain, sshStoreConfig('hungstore', s.store));
      const t0 = Date.now();
      const st = done(await runSync(s.sb.brain, { env: { ...s.env, BRAIN_CONNECT_TIMEOUT: '2' } }));
      const secs = (Date.now() - t0) / 1000;
      assert.equal(st.status, 'failed');
      assert.equal(st.warning, 'backup failing: store timed out');
      assert.ok(secs < 30, `bounded by the connect timeout, took ${secs}s`);
      // Back to the real host: the next sync works.
      writeConfig(s.sb.brain, sshStoreConfig(s.sshd!.host, s.store));
      assert.equal(done(await runSync(s.sb.brain, { env: s.env })).status, 'ok');
    } finally {
      await hung.stop();
      await s.cleanup();
    }
  });
});

describe('fault: sync killed mid-transfer, then resumed', () => {
  it('loses nothing and duplicates nothing', async () => {
    // One 24 MB session so a bandwidth-limited transfer is still running when it is killed.
    const specs: FloorFileSpec[] = [...fixtureFiles(4), { lane: 'pi', rel: 'big/session.jsonl', bytes: bigSession(24 << 20) }];
    const s = await setupStore('f-kill', { ssh: true, specs });
    const lp = 'lake/pi/big/session.jsonl';
    const full = fs.statSync(path.join(s.sb.brain, lp)).size;
    try {
      // The CLI in its own process group; rsync runs in another, stopped by its watchdog once brain is gone.
      const child = spawn(process.execPath, [CLI, 'sync', '--now'], { env: { ...s.env, BRAIN_RSYNC_ARGS: '--bwlimit=3000' }, detached: true, stdio: 'ignore' });
      const target = path.join(s.mine, lp);
      let partial = 0;
      for (let i = 0; i < 400; i++) {
        await new Promise((r) => setTimeout(r, 50));
        partial = fs.existsSync(target) ? fs.statSync(target).size : 0;
        if (partial > 1 << 20) break;
      }
      process.kill(-child.pid!, 'SIGKILL');
      await new Promise((r) => child.once('exit', r));
      assert.deepEqual(await untilNoProcesses(s.store), [], 'rsync stopped with brain');
      partial = fs.existsSync(target) ? fs.statSync(target).size : 0;
      assert.ok(partial > 0 && partial < full, `killed mid-transfer: ${partial} of ${full} bytes at the store`);
      // The store holds an exact prefix of ours: nothing wrong was written.
      const ours = fs.readFileSync(path.join(s.sb.brain, lp));
      assert.ok(fs.readFileSync(target).equals(ours.subarray(0, partial)));
      assert.ok(!fs.existsSync(syncPaths(s.sb.brain).lastOk), 'no sync worked yet');
      const before = snapshot(s.store);
      // The lock died with its holder: the next sync runs and resumes.
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.status, 'ok', st.message);
      assert.equal(st.warning, '');
      assert.equal(fs.statSync(target).size, full, 'nothing duplicated');
      assert.ok(fs.readFileSync(target).equals(ours), 'nothing lost');
      // Resumed, not re-sent: the literal data is the rest of the file (plus the small ones).
      assert.ok(st.stats!.literal < full - partial + (4 << 20), `literal ${st.stats!.literal}`);
      assertNothingLost(before, s.store);
      const rb = readbackFolder(s.sb.brain, s.mine, { all: true });
      assert.deepEqual(rb.problems, []);
    } finally {
      await s.cleanup();
    }
  });
});

for (const transport of ['local', 'ssh'] as const) {
  describe(`fault: a byte flipped in the store's copy (${transport})`, () => {
    it('is reported, moved aside (kept) and repaired from the verified local copy', async () => {
      const s = await setupStore(`f-storeflip-${transport}`, { ssh: transport === 'ssh' });
      try {
        done(await runSync(s.sb.brain, { env: s.env }));
        const lp = s.lakePaths[1];
        flipByte(path.join(s.mine, lp), 100);
        const corrupt = sha(path.join(s.mine, lp));
        const before = snapshot(s.store);
        // Nothing changed locally: the store-side scrub finds it (BRAIN_SCRUB_BYTES covers the floor).
        const st = done(await runSync(s.sb.brain, { env: s.env, now: true }));
        assert.equal(st.status, 'ok', st.message);
        assert.equal(st.warning, 'store copy repaired: 1 file');
        const f = st.findings.find((x) => x.code === 'store-repaired')!;
        assert.equal(f.path, lp);
        assert.equal(f.matches, 'local');
        assert.ok(sameAsLocal(s, lp), 'repaired');
        const kept = listFiles(path.join(s.mine, '.brain', 'replaced')).find((x) => x.endsWith(lp))!;
        assert.ok(kept, 'the corrupt copy is kept under .brain/replaced');
        assert.equal(sha(path.join(s.mine, '.brain', 'replaced', kept)), corrupt);
        assertNothingLost(before, s.store);
        assert.deepEqual(readbackFolder(s.sb.brain, s.mine, { all: true }).problems, []);
        // The flip is also caught on the append path (a growing session).
        flipByte(path.join(s.mine, lp), 10);
        appendToLake(s.sb.brain, lp, '{"more":1}\n');
        const st2 = done(await runSync(s.sb.brain, { env: s.env }));
        assert.equal(st2.warning, 'store copy repaired: 1 file');
        assert.ok(sameAsLocal(s, lp));
        // And the next sync with nothing wrong clears the label.
        appendToLake(s.sb.brain, lp, '{"more":2}\n');
        assert.equal(done(await runSync(s.sb.brain, { env: s.env })).warning, '');
      } finally {
        await s.cleanup();
      }
    });
  });

  describe(`fault: a byte flipped in the local lake (${transport})`, () => {
    it('is reported, the store copy stays untouched, and clears once the local file is restored', async () => {
      const s = await setupStore(`f-localflip-${transport}`, { ssh: transport === 'ssh' });
      try {
        done(await runSync(s.sb.brain, { env: s.env }));
        const lp = s.lakePaths[2];
        const good = sha(path.join(s.mine, lp));
        flipByte(path.join(s.sb.brain, lp), 50);
        // The capture keeps appending to it: rsync would re-send the whole (bad) file over the store's.
        appendToLake(s.sb.brain, lp, '{"after":"flip"}\n');
        const before = snapshot(s.store);
        const st = done(await runSync(s.sb.brain, { env: s.env }));
        assert.equal(st.status, 'ok', st.message);
        assert.equal(st.warning, 'local floor corrupt: 1 file (store copy kept)');
        const f = st.findings.find((x) => x.code === 'local-corrupt')!;
        assert.equal(f.path, lp);
        assert.equal(f.matches, 'store');
        assert.match(f.message, /lines 1-7/);
        assert.match(f.message, /store's copy still matches what was backed up/);
        assert.equal(sha(path.join(s.mine, lp)), good, "the store's good copy is untouched");
        assertNothingLost(before, s.store);
        // Still reported (and still not pushed) on the next sync, with no change in between.
        const st2 = done(await runSync(s.sb.brain, { env: s.env, now: true }));
        assert.equal(st2.warning, 'local floor corrupt: 1 file (store copy kept)');
        assert.equal(sha(path.join(s.mine, lp)), good);
        // The doctor names it.
        const d = brain(s.sb, ['doctor', '--json'], { env: s.env });
        const checks = JSON.parse(d.stdout).checks as { name: string; detail: string }[];
        assert.ok(checks.some((c) => c.name === 'local-corrupt' && c.detail.includes(lp)));
        // The user restores the local file from the store and the capture's append goes back on:
        // the next sync pushes it and the warning clears.
        const ours = fs.readFileSync(path.join(s.sb.brain, lp));
        const storeCopy = fs.readFileSync(path.join(s.mine, lp));
        fs.writeFileSync(path.join(s.sb.brain, lp), Buffer.concat([storeCopy, ours.subarray(storeCopy.length)]));
        const st3 = done(await runSync(s.sb.brain, { env: s.env }));
        assert.equal(st3.warning, '', JSON.stringify(st3.findings));
        assert.ok(sameAsLocal(s, lp));
      } finally {
        await s.cleanup();
      }
    });
  });
}

describe('fault: a full store disk (tmpfs)', () => {
  it('fails with "store disk full", keeps what was sent, and completes once there is room', async (t) => {
    const s = await setupStore('f-full', { ssh: true });
    const mnt = s.store;
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt], { encoding: 'utf8' });
    assert.equal(m.status, 0, `mounting a 1 MB tmpfs needs root: ${m.stderr}`);
    try {
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.status, 'failed');
      assert.equal(st.warning, 'backup failing: store disk full');
      assert.ok(!fs.existsSync(syncPaths(s.sb.brain).lastOk));
      const before = snapshot(mnt);
      assert.ok(before.size > 0, 'part of the floor made it');
      // Every file at the store is a prefix of ours: nothing wrong was written.
      for (const [f, v] of before) {
        if (f.startsWith('testbox/.brain/')) continue;
        const ours = fs.readFileSync(path.join(s.sb.brain, f.slice('testbox/'.length)));
        assert.ok(fs.readFileSync(path.join(mnt, f)).equals(ours.subarray(0, v.size)), f);
      }
      const r = spawnSync('mount', ['-o', 'remount,size=64m', mnt], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const st2 = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st2.status, 'ok', st2.message);
      assert.equal(st2.warning, '');
      assertNothingLost(before, mnt);
      assert.deepEqual(readbackFolder(s.sb.brain, s.mine, { all: true }).problems, []);
    } finally {
      await s.sshd?.stop();
      // The store-side rsync may take a moment to exit and release the mount.
      for (let i = 0; i < 20 && spawnSync('umount', [mnt]).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
      if (spawnSync('mountpoint', ['-q', mnt]).status === 0) spawnSync('umount', ['-l', mnt]);
      await s.cleanup();
    }
    void t;
  });
});

describe('fault: ten ticks at once', () => {
  it('exactly one of them syncs', async () => {
    const s = await setupStore('f-ten', { ssh: true });
    try {
      const counter = countingRsync(s.sb.dir);
      setRsyncPath(s.sb.brain, counter.path);
      const procs = Array.from({ length: 10 }, () =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          let out = '';
          const c = spawn(process.execPath, [CLI, 'tick'], { env: s.env });
          c.stdout.on('data', (d) => (out += d));
          c.stderr.on('data', (d) => (out += d));
          c.on('exit', (code) => resolve({ code, out }));
        }),
      );
      const res = await Promise.all(procs);
      for (const r of res) assert.equal(r.code, 0, r.out);
      assert.equal(counter.runs(), 1, fs.readFileSync(counter.log, 'utf8'));
      assert.equal(readState(s.sb.brain)!.status, 'ok');
      assert.ok(listFiles(s.mine).includes('manifest/manifest.jsonl'));
    } finally {
      await s.cleanup();
    }
  });
});

describe('fault: clock skew', () => {
  it('a last-ok in the future (clock went back) does not hide a change, and a future mtime does not sync forever', async () => {
    const s = await setupStore('f-skew', { ssh: false });
    try {
      const counter = countingRsync(s.sb.dir);
      setRsyncPath(s.sb.brain, counter.path);
      const p = syncPaths(s.sb.brain);
      const tick = () => {
        fs.rmSync(p.lastTick, { force: true });
        const r = brain(s.sb, ['tick'], { env: s.env });
        assert.ok(r.status === 0 || r.status === 1, r.stderr);
        return r;
      };
      tick();
      assert.equal(counter.runs(), 1);
      // The clock was a day ahead during that sync, and is right now.
      const future = new Date(Date.now() + 86_400_000);
      fs.utimesSync(p.lastOk, future, future);
      appendToLake(s.sb.brain, s.lakePaths[0], '{"after":"clock went back"}\n');
      tick();
      assert.equal(counter.runs(), 2, 'the change was synced');
      assert.ok(sameAsLocal(s, s.lakePaths[0]));
      assert.ok(fs.statSync(p.lastOk).mtimeMs <= Date.now(), 'last-ok is sane again');
      // A file written while the clock was ahead keeps a future mtime: synced once, then left alone.
      fs.utimesSync(path.join(s.sb.brain, s.lakePaths[1]), future, future);
      tick();
      assert.equal(counter.runs(), 3);
      tick();
      tick();
      assert.equal(counter.runs(), 3, 'no sync on every tick for a future mtime');
      // A tick stamp in the future does not stop the tick for a day.
      fs.utimesSync(p.lastTick, future, future);
      appendToLake(s.sb.brain, s.lakePaths[2], '{"tick":"stamp in the future"}\n');
      const r = brain(s.sb, ['tick'], { env: s.env });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(counter.runs(), 4);
      assert.equal(readState(s.sb.brain)!.warning, '');
    } finally {
      await s.cleanup();
    }
  });
});
