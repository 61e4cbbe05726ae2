// A full disk under BRAIN_HOME: a real 1 MB tmpfs mounted there (root only: CI runs as root). The
// record fails with a message that says what happened, that nothing is lost and what to do; the
// agents' files are untouched; once there is room the next record completes and every range
// verifies, every origin byte on the floor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, listFiles, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

function digest(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of listFiles(dir)) m.set(f, createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex'));
  return m;
}

test('a full disk under BRAIN_HOME: a clear error, nothing lost, and the next record completes', (t) => {
  assert.equal(process.getuid?.(), 0, 'mounting a tmpfs needs root (CI runs as root): run this suite as root');
  const sb = sandbox({ fixtures: true, name: 'full-disk' });
  fs.mkdirSync(sb.brain, { recursive: true });
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', sb.brain], { encoding: 'utf8' });
  assert.equal(m.status, 0, `mount -t tmpfs: ${m.stderr} (needs root and util-linux: apt-get install -y mount)`);
  t.after(() => {
    spawnSync('umount', ['-l', sb.brain]);
    sb.cleanup();
  });
  const origins = path.join(sb.home, '.claude');
  const before = digest(origins);

  const r = brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /the disk that holds .*\.brain is full \(no space left\)/);
  assert.match(r.stderr, /nothing is lost/);
  assert.match(r.stderr, /df -h /);
  assert.doesNotMatch(r.stderr, /ENOSPC: no space left on device, write$/m, 'not a bare system error');
  assert.deepEqual(digest(origins), before, "the agents' own files are untouched");
  // What the floor claimed before the disk filled still verifies.
  const v1 = brain(sb, ['verify']);
  assert.equal(v1.status, 0, v1.stdout + v1.stderr);
  // status and doctor say it too (a timer's failing pass has no terminal to print to).
  const st = brain(sb, ['status', '--local', '--json']);
  assert.equal(JSON.parse(st.stdout).warning, 'recording failing: disk full', st.stdout);
  assert.match(brain(sb, ['status', '--local']).stdout, /recording failing: disk full — the disk that holds /);
  const doc = brain(sb, ['doctor', '--offline']);
  assert.match(doc.stdout, /FAIL recording: recording failing: disk full: .*\n\s+fix: free space there/);

  // Room again: the same floor grows to 20 MB and the next record takes up where it stopped.
  const g = spawnSync('mount', ['-o', 'remount,size=20m', sb.brain], { encoding: 'utf8' });
  assert.equal(g.status, 0, g.stderr);
  const r2 = brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r2.status, 0, r2.stderr);
  const v2 = brain(sb, ['verify']);
  assert.equal(v2.status, 0, v2.stdout + v2.stderr);
  assert.match(v2.stdout, /ok: every range verifies/);
  assert.notEqual(JSON.parse(brain(sb, ['status', '--local', '--json']).stdout).warning, 'recording failing: disk full');
  assert.match(brain(sb, ['doctor', '--offline']).stdout, /ok {3}recording: no capture pass is failing; [\d.]+ GB free/);
  // Every Claude Code origin file is on the floor whole, each byte claimed once.
  const lines = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.lane === 'cc');
  for (const f of listFiles(path.join(origins, 'projects'))) {
    const lake = path.join(sb.brain, 'lake', 'cc', f);
    assert.ok(fs.readFileSync(lake).equals(fs.readFileSync(path.join(origins, 'projects', f))), `${f} whole on the floor`);
    const claimed = lines.filter((l) => l.lake_path === `lake/cc/${f}`).sort((a, b) => a.byte_from - b.byte_from);
    let at = 0;
    for (const c of claimed) {
      assert.equal(c.byte_from, at, `${f}: contiguous claims`);
      at = c.byte_to;
    }
    assert.equal(at, fs.statSync(lake).size, `${f}: every byte claimed once`);
  }
});

test('a full disk under one lake folder: the pass that writes straight into the lake stops, claims nothing of it, and the next one records it whole', (t) => {
  assert.equal(process.getuid?.(), 0, 'mounting a tmpfs needs root (CI runs as root): run this suite as root');
  const sb = sandbox({ fixtures: true, name: 'full-lake' });
  const lakeDir = path.join(sb.brain, 'lake', 'pi', '--full--');
  t.after(() => {
    spawnSync('umount', ['-l', lakeDir]);
    sb.cleanup();
  });
  assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
  const manifest = path.join(sb.brain, 'manifest', 'manifest.jsonl');
  const claimed = fs.readFileSync(manifest);
  // A new session whose lake folder is a 64 KB tmpfs: its 1 MB does not fit.
  fs.mkdirSync(lakeDir, { recursive: true, mode: 0o700 });
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', lakeDir], { encoding: 'utf8' });
  assert.equal(m.status, 0, `mount -t tmpfs: ${m.stderr} (needs root and util-linux: apt-get install -y mount)`);
  const origin = path.join(sb.home, '.pi', 'agent', 'sessions', '--full--', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.writeFileSync(origin, `{"type":"message","text":"${'x'.repeat(1 << 20)}"}\n`);
  const r = brain(sb, ['record', '--no-caches']);
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /the disk that holds .*\.brain is full \(no space left\)/);
  assert.ok(fs.readFileSync(manifest).equals(claimed), 'nothing claimed for the bytes that did not fit, nothing claimed lost');
  const v1 = brain(sb, ['verify']);
  assert.equal(v1.status, 0, v1.stdout + v1.stderr);

  assert.equal(spawnSync('umount', ['-l', lakeDir]).status, 0);
  const r2 = brain(sb, ['record', '--no-caches']);
  assert.equal(r2.status, 0, r2.stderr);
  assert.ok(fs.readFileSync(path.join(lakeDir, 's.jsonl')).equals(fs.readFileSync(origin)), 'the session whole on the floor');
  assert.equal(readManifest(manifest).lines.filter((l) => l.lake_path === 'lake/pi/--full--/s.jsonl').length, 1);
  const v2 = brain(sb, ['verify']);
  assert.equal(v2.status, 0, v2.stdout + v2.stderr);
  assert.deepEqual(fs.readdirSync(path.join(sb.brain, 'spool', '_journal')), [], 'no journal left');
});
