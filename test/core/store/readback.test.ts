// Backup means read it back: `brain backup DEST` copies pure-add and re-hashes sampled (or all)
// manifest ranges at DEST against OUR manifest; `brain verify --store` does the same at the store,
// local or over ssh. Every mismatch is named and the exit code is 1.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pickSample } from '../../../src/core/store/readback';
import { manifestRanges } from '../../../src/core/store/localcheck';
import { runSync } from '../../../src/core/store/sync';
import { brain, listFiles } from '../../helpers/env';
import { appendToLake, flipByte, lostFiles, snapshot } from './floor';
import { setRsyncPath, setupStore, type StoreSetup } from './harness';

describe('brain backup DEST', () => {
  let s: StoreSetup;
  let dest: string;
  before(async () => {
    s = await setupStore('backup');
    dest = path.join(s.sb.dir, 'usb', 'brain');
  });
  after(() => s.cleanup());

  it('copies the floor and reads every range back', () => {
    const r = brain(s.sb, ['backup', dest, '--verify', 'all', '--json'], { env: s.env });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const j = JSON.parse(r.stdout);
    assert.equal(j.readback.problems.length, 0);
    const { ranges } = manifestRanges(path.join(s.sb.brain, 'manifest', 'manifest.jsonl'));
    let total = 0;
    for (const rs of ranges.values()) total += rs.length;
    assert.equal(j.readback.checked, total, 'every range re-hashed');
    for (const lp of s.lakePaths) assert.ok(fs.readFileSync(path.join(dest, lp)).equals(fs.readFileSync(path.join(s.sb.brain, lp))), lp);
    assert.ok(!listFiles(dest).some((f) => /^(spool|offsets|locks|sync)\//.test(f) || f === 'config.toml'));
  });

  it('says it needs rsync, and copies nothing, on a machine without it', () => {
    const bare = path.join(s.sb.dir, 'bare-path');
    fs.mkdirSync(bare, { recursive: true });
    const elsewhere = path.join(s.sb.dir, 'usb-no-rsync');
    // The config as a machine without rsync has it: the default, looked up on PATH.
    const cfg = path.join(s.sb.brain, 'config.toml');
    const kept = fs.readFileSync(cfg);
    setRsyncPath(s.sb.brain, 'rsync');
    const r = brain(s.sb, ['backup', elsewhere], { env: { ...s.env, PATH: bare } });
    fs.writeFileSync(cfg, kept);
    assert.equal(r.status, 3, r.stderr + r.stdout);
    assert.match(r.stderr, /backup copies with rsync, and rsync cannot be found on PATH/);
    assert.match(r.stderr, /install rsync/);
    assert.deepEqual(listFiles(elsewhere), []);
  });

  it('names a corrupt range at the destination and exits 1, without rewriting it', () => {
    const lp = s.lakePaths[0];
    flipByte(path.join(dest, lp), 10);
    const before = snapshot(dest);
    const r = brain(s.sb, ['backup', dest, '--verify', 'all'], { env: s.env });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, new RegExp(`mismatch: ${lp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: lines 1-7`));
    assert.deepEqual(lostFiles(before, snapshot(dest)), []);
  });

  it('a sample is a sample: --verify N re-hashes N ranges, seeded', () => {
    flipByte(path.join(dest, s.lakePaths[0]), 10);
    const r = brain(s.sb, ['backup', dest, '--verify', '5', '--seed', '7', '--json'], { env: s.env });
    assert.equal(JSON.parse(r.stdout).readback.checked, 5);
    const { ranges } = manifestRanges(path.join(s.sb.brain, 'manifest', 'manifest.jsonl'));
    const a = pickSample(ranges, { count: 5, seed: 7 });
    const b = pickSample(ranges, { count: 5, seed: 7 });
    assert.deepEqual([...a.entries()], [...b.entries()]);
  });

  it('does not copy a local lake file that fails the manifest', () => {
    const dest2 = path.join(s.sb.dir, 'usb2');
    const lp = s.lakePaths[1];
    flipByte(path.join(s.sb.brain, lp), 5);
    try {
      const r = brain(s.sb, ['backup', dest2, '--json'], { env: s.env });
      assert.equal(r.status, 1);
      const j = JSON.parse(r.stdout);
      assert.deepEqual(j.skipped.map((x: { path: string }) => x.path), [lp]);
      assert.ok(!fs.existsSync(path.join(dest2, lp)));
    } finally {
      flipByte(path.join(s.sb.brain, lp), 5);
    }
  });

  it('refuses a destination inside BRAIN_HOME', () => {
    const r = brain(s.sb, ['backup', path.join(s.sb.brain, 'copy')], { env: s.env });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /inside BRAIN_HOME/);
  });
});

for (const transport of ['local', 'ssh'] as const) {
  describe(`brain verify --store (${transport})`, () => {
    let s: StoreSetup;
    before(async () => {
      s = await setupStore(`vstore-${transport}`, { ssh: transport === 'ssh' });
      await runSync(s.sb.brain, { env: s.env });
    });
    after(() => s.cleanup());

    it('reads every range back at the store', () => {
      const r = brain(s.sb, ['verify', '--store', '--all'], { env: s.env });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.match(r.stdout, /ok: every sampled range verifies at the store/);
    });

    it('names a flipped byte at the store, and which side still matches', () => {
      const lp = s.lakePaths[2];
      flipByte(path.join(s.mine, lp), 30);
      const r = brain(s.sb, ['verify', '--store', '--all', '--json'], { env: s.env });
      assert.equal(r.status, 1);
      const j = JSON.parse(r.stdout);
      assert.deepEqual(
        j.problems.map((p: { kind: string; path: string }) => `${p.kind} ${p.path}`),
        [`mismatch ${lp}`],
      );
      // The local floor still verifies, so the local copy is the good one.
      assert.equal(brain(s.sb, ['verify'], { env: s.env }).status, 0);
    });

    it('reports a file missing at the store', () => {
      appendToLake(s.sb.brain, s.lakePaths[0], '{"not":"synced yet"}\n');
      const r = brain(s.sb, ['verify', '--store', '--all', '--json'], { env: s.env });
      const j = JSON.parse(r.stdout);
      assert.ok(j.problems.some((p: { kind: string; path: string }) => p.kind === 'short' && p.path === s.lakePaths[0]), r.stdout);
    });
  });
}
