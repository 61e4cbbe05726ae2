// A BRAIN_HOME on a read-only filesystem (a real tmpfs, remounted read-only): every verb that
// writes there says which folder, that it is read-only (EROFS), and what to do, through the one
// error formatting (errors.ts notWritable), and exits 3; the hook still exits 0 and says the same;
// doctor lists it as a failing check. Mounting needs root, which CI has.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';

const root = process.getuid?.() === 0;
let sb: Sandbox;
let floor: string;
let mounted = false;

function mount(...args: string[]): void {
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `mount ${args.join(' ')}: ${r.stderr}`);
}

before(() => {
  if (!root) return;
  sb = sandbox({ fixtures: true, name: 'ro-home' });
  floor = path.join(sb.dir, 'floor');
  fs.mkdirSync(floor);
  mount('-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', floor);
  mounted = true;
  sb.env.BRAIN_HOME = floor;
  const store = path.join(sb.dir, 'store');
  for (const args of [['init', '--store', store, '--no-hooks', '--no-timer'], ['record'], ['sync', '--now']]) {
    const r = brain(sb, args);
    assert.equal(r.status, 0, `brain ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  }
  // Something new to record, so record has bytes to write.
  const origin = path.join(sb.home, '.claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl');
  fs.appendFileSync(origin, '{"type":"summary","summary":"more"}\n');
  mount('-o', 'remount,ro', floor);
});

after(() => {
  if (mounted) spawnSync('umount', [floor]);
  sb?.cleanup();
});

const SAID = (home: string) => new RegExp(`BRAIN_HOME ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is read-only \\(EROFS\\): nothing can be written there\\n  remount it read-write \\(or set BRAIN_HOME to a writable folder\\)`);

test('every verb that writes the floor names BRAIN_HOME, says read-only (EROFS) and what to do, and exits 3', { skip: root ? false : 'needs root to mount a read-only tmpfs' }, () => {
  const verbs = [['record'], ['tick'], ['sync', '--now'], ['backup', path.join(sb.dir, 'bk')], ['rebuild'], ['sql', 'SELECT 1'], ['stats'], ['init', '--no-hooks', '--no-timer'], ['watch']];
  for (const args of verbs) {
    const r = brain(sb, args, { timeout: 60_000 });
    assert.equal(r.status, 3, `brain ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, SAID(floor), `brain ${args.join(' ')}`);
    assert.doesNotMatch(r.stderr, /: EROFS:/, 'not the bare errno message');
  }
});

test('the hook still exits 0, with the same message; doctor fails the recording check with it', { skip: root ? false : 'needs root to mount a read-only tmpfs' }, () => {
  const h = brain(sb, ['hook', 'cc'], { input: JSON.stringify({ session_id: 's', cwd: '/' }) });
  assert.equal(h.status, 0);
  assert.match(h.stderr, SAID(floor));
  assert.match(h.stderr, /the agent is not affected/);
  const d = brain(sb, ['doctor', '--offline', '--json']);
  assert.equal(d.status, 1, d.stderr);
  const rec = (JSON.parse(d.stdout).checks as { name: string; level: string; detail: string; fix?: string }[]).find((c) => c.name === 'recording');
  assert.equal(rec?.level, 'fail');
  assert.match(rec!.detail, /is read-only \(EROFS\)/);
  assert.match(rec!.fix ?? '', /remount it read-write/);
});

test('reading verbs still answer from a read-only floor', { skip: root ? false : 'needs root to mount a read-only tmpfs' }, () => {
  const s = brain(sb, ['search', 'user authentication', '--json']);
  assert.equal(s.status, 0, s.stderr);
  assert.ok(JSON.parse(s.stdout).hits.length > 0);
  assert.equal(brain(sb, ['verify']).status, 0);
});
