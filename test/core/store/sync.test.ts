// The sync against a local folder store and over a real sshd: what is synced (the floor, never
// caches, spool, offsets, locks, state or config), the version file, no-change runs, appends sent
// as appends, ssh_mux_only over a real ControlMaster, and the CLI's output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runSync } from '../../../src/core/store/sync';
import { readState } from '../../../src/core/store/state';
import { readFloorId } from '../../../src/core/store/floorid';
import { readLedger } from '../../../src/core/store/ledger';
import { syncPaths } from '../../../src/core/store/paths';
import { VERSION } from '../../../src/core/store/version';
import { brain, listFiles } from '../../helpers/env';
import { appendToLake, writeConfig, sshStoreConfig } from './floor';
import { setupStore, type StoreSetup } from './harness';

function floorFiles(home: string): string[] {
  return listFiles(home).filter((f) => /^(lake|manifest|meta)\//.test(f));
}

function sameBytes(a: string, b: string): boolean {
  return fs.readFileSync(a).equals(fs.readFileSync(b));
}

for (const transport of ['local', 'ssh'] as const) {
  describe(`sync to a ${transport} store`, () => {
    let s: StoreSetup;
    before(async () => {
      s = await setupStore(`sync-${transport}`, { ssh: transport === 'ssh' });
      // Things that must never reach the store.
      for (const f of ['spool/cc/x.chunk', 'offsets/cc/a.offset.json', 'brain.duckdb', 'turns.sqlite', 'health/beat', 'locks/other.lock', 'meta/cc/.tmp-123-x']) {
        fs.mkdirSync(path.dirname(path.join(s.sb.brain, f)), { recursive: true });
        fs.writeFileSync(path.join(s.sb.brain, f), 'not for the store\n');
      }
    });
    after(() => s.cleanup());

    it('copies exactly the floor, byte for byte, and a version file, into a 0700 <machine>/ whatever the umask', async () => {
      // rsync and the store-side step inherit the umask (over ssh: the store host's own).
      const umask = process.umask(0o022);
      let o;
      try {
        o = await runSync(s.sb.brain, { env: s.env });
      } finally {
        process.umask(umask);
      }
      for (const d of [s.mine, path.join(s.mine, '.brain')]) assert.equal((fs.statSync(d).mode & 0o777).toString(8), '700', d);
      assert.equal(o.kind, 'done');
      if (o.kind !== 'done') return;
      assert.equal(o.state.status, 'ok', o.state.message);
      assert.equal(o.state.warning, '');
      const atStore = listFiles(s.mine);
      const want = floorFiles(s.sb.brain).filter((f) => !f.includes('.tmp-'));
      assert.deepEqual(atStore.filter((f) => !f.startsWith('.brain/')), want);
      for (const f of want) assert.ok(sameBytes(path.join(s.sb.brain, f), path.join(s.mine, f)), f);
      assert.deepEqual(atStore.filter((f) => f.startsWith('.brain/')), [`.brain/${VERSION}.json`, '.brain/floor-id']);
      assert.equal(fs.readFileSync(path.join(s.mine, '.brain', 'floor-id'), 'utf8').trim(), readFloorId(s.sb.brain), "this floor's id");
      const v = JSON.parse(fs.readFileSync(path.join(s.mine, '.brain', `${VERSION}.json`), 'utf8'));
      assert.equal(v.version, VERSION);
      assert.equal(v.machine, 'testbox');
      // state.json: ok, no warning, last_ok set; last-ok stamp = start of the sync.
      const st = readState(s.sb.brain)!;
      assert.equal(st.status, 'ok');
      assert.ok(st.last_ok);
      assert.ok(fs.existsSync(syncPaths(s.sb.brain).lastOk));
    });

    it('does nothing when nothing changed, and opens no connection', async () => {
      const o = await runSync(s.sb.brain, { env: s.env });
      assert.equal(o.kind, 'nothing');
    });

    it('sends an appended line as an append, and never rewrites the version file', async () => {
      const lp = s.lakePaths[s.lakePaths.length - 1];
      const vfile = path.join(s.mine, '.brain', `${VERSION}.json`);
      const vBefore = fs.readFileSync(vfile);
      const line = JSON.stringify({ type: 'user', text: 'one more line' }) + '\n';
      appendToLake(s.sb.brain, lp, line);
      const o = await runSync(s.sb.brain, { env: s.env });
      assert.equal(o.kind, 'done');
      if (o.kind !== 'done') return;
      assert.equal(o.state.status, 'ok', o.state.message);
      assert.ok(sameBytes(path.join(s.sb.brain, lp), path.join(s.mine, lp)));
      assert.ok(sameBytes(path.join(s.sb.brain, 'manifest/manifest.jsonl'), path.join(s.mine, 'manifest/manifest.jsonl')));
      // Literal data sent: the new line and the new manifest line, not the files.
      const st = o.state.stats!;
      assert.ok(st.literal < 4096, `literal bytes ${st.literal}`);
      assert.ok(fs.readFileSync(vfile).equals(vBefore));
      // The ledger vouches for the new extent.
      const e = readLedger(syncPaths(s.sb.brain).ledger).files[lp];
      assert.equal(e.size, fs.statSync(path.join(s.sb.brain, lp)).size);
    });

    it('--now syncs even when nothing changed (CLI)', () => {
      const r = brain(s.sb, ['sync', '--now'], { env: s.env });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.match(r.stdout, /^ok: synced to /);
      const r2 = brain(s.sb, ['sync'], { env: s.env });
      assert.equal(r2.status, 0);
      assert.match(r2.stdout, /nothing changed/);
    });
  });
}

describe('ssh_mux_only', () => {
  let s: StoreSetup;
  let ctl: string;
  let ctlDir: string;
  before(async () => {
    s = await setupStore('mux', { ssh: true });
    // Unix socket paths are limited to ~108 bytes and %C alone is 40: keep the folder short,
    // wherever the checkout lives.
    ctlDir = fs.mkdtempSync('/tmp/bm-');
    ctl = path.join(ctlDir, '%C');
    // A ControlPath in the client config, as a user would set it; ssh_mux_only in ours.
    fs.appendFileSync(s.sshd!.sshConfig, `  ControlPath ${ctl}\n`);
    writeConfig(s.sb.brain, sshStoreConfig(s.sshd!.host, s.store, '', 'ssh_mux_only = true\n'));
  });
  after(() => {
    spawnSync('sh', ['-c', `${s.sshd!.sshCommand} -O exit ${s.sshd!.host}`], { stdio: 'ignore' });
    fs.rmSync(ctlDir, { recursive: true, force: true });
    return s.cleanup();
  });

  it('skips with "no ssh master for HOST" when no master is open, without connecting', async () => {
    const o = await runSync(s.sb.brain, { env: s.env, now: true });
    assert.equal(o.kind, 'done');
    if (o.kind !== 'done') return;
    assert.equal(o.state.status, 'skipped');
    assert.equal(o.state.warning, `no ssh master for ${s.sshd!.host}`);
    assert.equal(listFiles(s.store).length, 0, 'nothing reached the store');
    assert.ok(!fs.existsSync(syncPaths(s.sb.brain).lastOk), 'last-ok untouched');
  });

  it('syncs over an open master', async () => {
    const m = spawnSync('sh', ['-c', `${s.sshd!.sshCommand} -o ControlMaster=yes -o ControlPersist=60 -fN ${s.sshd!.host}`], { encoding: 'utf8' });
    assert.equal(m.status, 0, m.stderr);
    const o = await runSync(s.sb.brain, { env: s.env, now: true });
    assert.equal(o.kind, 'done');
    if (o.kind !== 'done') return;
    assert.equal(o.state.status, 'ok', o.state.message);
    assert.equal(o.state.warning, '');
    assert.ok(listFiles(s.mine).includes('manifest/manifest.jsonl'));
  });

  it('retries once after a delay while the master is up', async () => {
    // The store folder vanishes (a failed sync), and comes back during the retry delay.
    const moved = `${s.store}.away`;
    fs.renameSync(s.store, moved);
    appendToLake(s.sb.brain, s.lakePaths[0], '{"retry":1}\n');
    const t = setTimeout(() => fs.renameSync(moved, s.store), 300);
    const o = await runSync(s.sb.brain, { env: { ...s.env, BRAIN_RETRY_DELAY: '1' } });
    clearTimeout(t);
    assert.equal(o.kind, 'done');
    if (o.kind !== 'done') return;
    assert.equal(o.state.status, 'ok', o.state.message);
    assert.ok(sameBytes(path.join(s.sb.brain, s.lakePaths[0]), path.join(s.mine, s.lakePaths[0])));
  });
});
