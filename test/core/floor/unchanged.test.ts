// A full pass over a store of sessions that did not change costs a stat each, not an open and an
// offsets read each (offsets/.unchanged.json): watched with strace, the real system-call tracer, on
// the real CLI over the real fixtures. And the list never hides a change: an append, a file
// replaced under the same size and mtime, a torn list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, listFiles, sandbox, type Sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

const CLI = path.resolve(__dirname, '../../../dist/cli.js');

function needStrace(): void {
  if (spawnSync('sh', ['-c', 'command -v strace']).status !== 0) {
    throw new Error('strace is missing: install it with `apt-get install -y strace` (or run node scripts/setup/10-apt.mjs)');
  }
}

/** `brain record --no-caches` under strace: its JSON report and every path it opened. */
function tracedRecord(sb: Sandbox): { rep: { lanes: Record<string, { files: number; chunks: number; generations: number }> }; opened: string[] } {
  const log = path.join(sb.dir, `strace-${Date.now()}.txt`);
  const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=open,openat', '-o', log, process.execPath, CLI, 'record', '--no-caches', '--json'], {
    env: sb.env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const opened = [...fs.readFileSync(log, 'utf8').matchAll(/open(?:at)?\([^"]*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
  return { rep: JSON.parse(r.stdout), opened };
}

/** Session files under the agents' folders (the floor is under home/.brain). */
function origins(sb: Sandbox): string[] {
  return listFiles(sb.home)
    .filter((f) => !f.startsWith('.brain/') && /\.(jsonl|json)$/.test(f))
    .map((f) => path.join(sb.home, f));
}

/** Origins whose unterminated last line waits in the spool: each pass looks at them again. */
function waiting(sb: Sandbox): Set<string> {
  const dir = path.join(sb.brain, 'spool', 'pending');
  const out = new Set<string>();
  for (const f of listFiles(dir).filter((f) => f.endsWith('.json'))) {
    const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { origin_raw: string };
    out.add(Buffer.from(p.origin_raw, 'base64').toString('utf8'));
  }
  return out;
}

/** Fixtures recorded twice (the second pass lists what it found unchanged); `cc`: a Claude Code
 * session listed, with no tail waiting. */
function listed(name: string): { sb: Sandbox; wait: Set<string>; cc: string } {
  const sb = sandbox({ fixtures: true, name });
  assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
  assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
  const wait = waiting(sb);
  const cc = origins(sb).find((p) => p.includes('/.claude/projects/') && p.endsWith('.jsonl') && !wait.has(p))!;
  return { sb, wait, cc };
}

test('a pass over sessions that did not change opens none of them nor their offsets records', () => {
  needStrace();
  // The second pass finds every origin as the first left it and lists them.
  const { sb, wait, cc } = listed('unchanged');
  try {
    const all = origins(sb);
    assert.ok(all.length >= 40, `fixtures: ${all.length} files`);
    const t = tracedRecord(sb);
    const isOrigin = new Set(all);
    const openedOrigins = t.opened.filter((p) => isOrigin.has(p));
    assert.deepEqual(openedOrigins.filter((p) => !wait.has(p)), [], 'only origins with a tail waiting are opened');
    assert.ok(all.length - wait.size >= 30, 'most origins are passed by');
    assert.equal(t.opened.filter((p) => p.endsWith('.offset.json')).length, wait.size, 'offsets read only for those');
    // Each origin is still counted as looked at.
    const seen = Object.values(t.rep.lanes).reduce((n, c) => n + c.files, 0);
    assert.ok(seen >= all.length - 5, `files counted: ${seen} of ${all.length}`);

    // One line appended: that origin alone is opened, and its bytes are on the floor.
    fs.appendFileSync(cc, '{"type":"user","message":{"role":"user","content":"one more line"}}\n');
    const a = tracedRecord(sb);
    assert.deepEqual([...new Set(a.opened.filter((p) => isOrigin.has(p) && !wait.has(p)))], [cc]);
    assert.equal(a.rep.lanes.cc.chunks, 1);
    const lake = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.origin_path === cc).at(-1)!;
    assert.deepEqual(fs.readFileSync(path.join(sb.brain, lake.lake_path)), fs.readFileSync(cc));
  } finally {
    sb.cleanup();
  }
});

test('a listed session replaced by other bytes of the same size and mtime opens a new generation', () => {
  const { sb, cc } = listed('unchanged-swap');
  try {
    const list = JSON.parse(fs.readFileSync(path.join(sb.brain, 'offsets', '.unchanged.json'), 'utf8')) as { p: string[] };
    assert.ok(list.p.includes(Buffer.from(cc).toString('latin1')), 'the origin is listed');
    const st = fs.statSync(cc);
    const old = fs.readFileSync(cc);
    // Same length, one byte changed, written to a new file renamed over it, mtime put back.
    const swapped = Buffer.from(old);
    swapped[10] = swapped[10] === 0x41 ? 0x42 : 0x41;
    fs.writeFileSync(`${cc}.new`, swapped);
    // touch -r copies the timestamp to the nanosecond (utimes from JS rounds it).
    assert.equal(spawnSync('touch', ['-r', cc, `${cc}.new`]).status, 0);
    fs.renameSync(`${cc}.new`, cc);
    assert.equal(fs.statSync(cc).mtimeMs, st.mtimeMs);
    const r = brain(sb, ['record', '--no-caches', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).lanes.cc.generations, 1);
    const lines = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.origin_path === cc);
    assert.equal(lines.at(-1)!.gen, 2);
    assert.deepEqual(fs.readFileSync(path.join(sb.brain, lines.at(-1)!.lake_path)), swapped);
    assert.deepEqual(fs.readFileSync(path.join(sb.brain, lines[0].lake_path)), old, 'generation 1 kept');
  } finally {
    sb.cleanup();
  }
});

test('a torn list is not trusted: the pass looks at every session and writes it again', () => {
  const { sb, cc } = listed('unchanged-torn');
  try {
    const file = path.join(sb.brain, 'offsets', '.unchanged.json');
    const whole = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, whole.slice(0, whole.length / 2));
    fs.appendFileSync(cc, '{"type":"user","message":{"role":"user","content":"after the tear"}}\n');
    const r = brain(sb, ['record', '--no-caches', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).lanes.cc.chunks, 1);
    assert.doesNotThrow(() => JSON.parse(fs.readFileSync(file, 'utf8')), 'written whole again');
  } finally {
    sb.cleanup();
  }
});
