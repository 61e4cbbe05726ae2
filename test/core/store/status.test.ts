// status and machines: this machine's last sync and warning, and every machine in the store with
// its versions and the age of its newest file, read from a local store and over ssh.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseListing, summarize } from '../../../src/core/store/machines';
import { runSync } from '../../../src/core/store/sync';
import { brain, sandbox } from '../../helpers/env';
import { makeFloor, fixtureFiles, writeConfig, localStoreConfig, sshStoreConfig } from './floor';
import { setupStore, type StoreSetup } from './harness';

for (const transport of ['local', 'ssh'] as const) {
  describe(`status and machines (${transport} store)`, () => {
    let s: StoreSetup;
    let other: string;
    before(async () => {
      s = await setupStore(`status-${transport}`, { ssh: transport === 'ssh' });
      await runSync(s.sb.brain, { env: s.env });
      // A second machine syncing to the same store, with an older brain's version file too.
      other = path.join(s.sb.dir, 'other-home');
      makeFloor(other, fixtureFiles(4));
      writeConfig(other, transport === 'ssh' ? sshStoreConfig(s.sshd!.host, s.store) : localStoreConfig(s.store));
      const o = await runSync(other, { env: { ...s.env, BRAIN_HOME: other, BRAIN_MACHINE: 'laptop' } });
      assert.equal(o.kind, 'done');
      fs.writeFileSync(path.join(s.store, 'laptop', '.brain', '0.0.9.json'), '{"version":"0.0.9"}\n');
      const old = new Date(Date.now() - 3 * 86_400_000);
      for (const f of fs.readdirSync(path.join(s.store, 'laptop', 'manifest'))) fs.utimesSync(path.join(s.store, 'laptop', 'manifest', f), old, old);
    });
    after(() => s.cleanup());

    it('brain machines lists both, with versions', () => {
      const r = brain(s.sb, ['machines', '--json'], { env: s.env });
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.ok(j.ok);
      const names = j.machines.map((m: { machine: string }) => m.machine);
      assert.deepEqual(names, ['laptop', 'testbox']);
      assert.deepEqual(j.machines[0].versions, ['0.0.9', '0.1.0']);
      assert.deepEqual(j.machines[1].versions, ['0.1.0']);
      assert.ok(j.machines[1].files >= s.lakePaths.length);
    });

    it('brain status shows this machine and every machine', () => {
      const r = brain(s.sb, ['status'], { env: s.env });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /This machine: testbox/);
      assert.match(r.stdout, /last sync: ok /);
      assert.match(r.stdout, /warning: \(none\)/);
      assert.match(r.stdout, /^ {2}laptop +0\.0\.9, 0\.1\.0 +newest file \d+/m);
      assert.match(r.stdout, /^ {2}testbox +0\.1\.0 +newest file \d+s ago/m);
      const j = JSON.parse(brain(s.sb, ['status', '--json'], { env: s.env }).stdout);
      assert.equal(j.warning, '');
      assert.equal(j.state.status, 'ok');
    });
  });
}

describe('status before any backup is set up', () => {
  it('names the machine the floor is recorded under, and says how to set up the backup', () => {
    const sb = sandbox({ name: 'status-no-config' });
    try {
      const r = brain(sb, ['status', '--local'], { env: { ...sb.env, BRAIN_MACHINE: 'workstation-7' } });
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^This machine: workstation-7 \(brain /m);
      assert.match(r.stdout, /backup not set up/);
      assert.match(r.stdout, /brain init --store/);
      const j = JSON.parse(brain(sb, ['status', '--local', '--json'], { env: { ...sb.env, BRAIN_MACHINE: 'workstation-7' } }).stdout);
      assert.equal(j.machine, 'workstation-7');
    } finally {
      sb.cleanup();
    }
  });
});

describe('store listing parser', () => {
  it('reads rsync --list-only lines and folds them into machines', () => {
    const out = [
      'drwx------              4,096 2026/01/02 10:00:00 .',
      'drwx------               4096 2026/01/02 10:00:00 box',
      'drwx------               4096 2026/01/02 10:00:00 box/.brain',
      '-rw-------                 99 2026/01/02 10:00:00 box/.brain/0.1.0.json',
      '-rw-------                 10 2026/01/02 10:00:00 box/.brain/replaced/x/lake/cc/a.jsonl',
      '-rw-------              1,200 2026/01/03 11:30:00 box/lake/cc/my file.jsonl',
      '-rw-------                 50 2026/01/01 09:00:00 box/manifest/manifest.jsonl',
    ].join('\n');
    const m = summarize(parseListing(out));
    assert.equal(m.length, 1);
    assert.deepEqual(m[0].versions, ['0.1.0']);
    assert.equal(m[0].files, 2);
    assert.equal(m[0].bytes, 1250);
    assert.equal(m[0].replaced, 1);
    assert.equal(m[0].newest, Date.UTC(2026, 0, 3, 11, 30, 0));
  });

  it('a file at the store root (a turn index built over the store) is no machine', () => {
    const out = [
      'drwx------               4096 2026/01/02 10:00:00 .',
      '-rw-------             65,536 2026/01/02 10:00:00 turns.sqlite',
      '-rw-------              4,096 2026/01/02 10:00:00 turns.sqlite-wal',
      'drwx------               4096 2026/01/02 10:00:00 box',
      '-rw-------                 50 2026/01/01 09:00:00 box/manifest/manifest.jsonl',
    ].join('\n');
    assert.deepEqual(summarize(parseListing(out)).map((m) => m.machine), ['box']);
  });
});

describe('brain machines over a local store folder', () => {
  it('lists the machine folders, not the files beside them', () => {
    const sb = sandbox({ name: 'machines-root-file' });
    try {
      const store = path.join(sb.dir, 'store');
      assert.equal(brain(sb, ['init', '--store', store, '--no-hooks', '--no-timer']).status, 0);
      fs.mkdirSync(path.join(store, 'other-box', 'manifest'), { recursive: true });
      fs.writeFileSync(path.join(store, 'other-box', 'manifest', 'manifest.jsonl'), '');
      fs.writeFileSync(path.join(store, 'turns.sqlite'), 'SQLite format 3\0');
      const j = JSON.parse(brain(sb, ['machines', '--json']).stdout);
      assert.ok(j.ok, JSON.stringify(j));
      assert.deepEqual(j.machines.map((m: { machine: string }) => m.machine), ['other-box']);
      const st = brain(sb, ['status']);
      assert.doesNotMatch(st.stdout, /turns\.sqlite/);
    } finally {
      sb.cleanup();
    }
  });
});
