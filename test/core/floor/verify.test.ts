// verify finds what is wrong and names it: a flipped byte, a short file, a gap, unclaimed bytes,
// wrong permissions, an origin that differs (--deep); --sample re-hashes a subset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

test('verify names each mismatch and exits 1; --sample and --deep', () => {
  const sb = sandbox({ fixtures: true, name: 'verify' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    assert.equal(brain(sb, ['verify', '--deep']).status, 0);
    const mf = path.join(sb.brain, 'manifest', 'manifest.jsonl');
    const lines = readManifest(mf).lines;
    const victim = lines.find((l) => l.lake_path.includes('1af7fc5e'))!;
    const file = path.join(sb.brain, victim.lake_path);
    const fd = fs.openSync(file, 'r+');
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, 100);
    fs.writeSync(fd, Buffer.from([b[0] ^ 1]), 0, 1, 100);
    fs.closeSync(fd);
    let r = brain(sb, ['verify', '--json']);
    assert.equal(r.status, 1);
    let rep = JSON.parse(r.stdout);
    assert.deepEqual(rep.problems.map((p: any) => [p.kind, p.path]), [['mismatch', victim.lake_path]]);
    assert.match(brain(sb, ['verify']).stdout, new RegExp(`mismatch: ${victim.lake_path.replace(/[.]/g, '\\.')}: lines 1-\\d+`));
    // --deep: the origin no longer matches the lake either.
    rep = JSON.parse(brain(sb, ['verify', '--deep', '--json']).stdout);
    assert.ok(rep.problems.some((p: any) => p.kind === 'origin' && p.path === victim.lake_path));
    // --sample 3 re-hashes 3 ranges only.
    rep = JSON.parse(brain(sb, ['verify', '--sample', '3', '--seed', '1', '--json']).stdout);
    assert.equal(rep.checked, 3);
    // Unclaimed bytes, a short file, and loose permissions.
    const other = lines.find((l) => l.lane === 'pi')!;
    fs.appendFileSync(path.join(sb.brain, other.lake_path), 'junk\n');
    const third = lines.find((l) => l.lane === 'codex')!;
    fs.truncateSync(path.join(sb.brain, third.lake_path), 10);
    fs.chmodSync(path.join(sb.brain, 'manifest'), 0o755);
    rep = JSON.parse(brain(sb, ['verify', '--json']).stdout);
    const kinds = rep.problems.map((p: any) => p.kind).sort();
    assert.deepEqual(kinds, ['mismatch', 'permissions', 'short', 'unclaimed']);
    // A gap: drop a manifest line in the middle of a file's chunks.
    fs.chmodSync(path.join(sb.brain, 'manifest'), 0o700);
  } finally {
    sb.cleanup();
  }
});

test('verify reports gaps and overlaps between a file\'s chunks', () => {
  const sb = sandbox({ fixtures: true, name: 'gaps' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    const f = path.join(sb.home, '.claude', 'projects', 'sample-project', '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
    for (let i = 0; i < 3; i++) {
      fs.appendFileSync(f, `{"n":${i}}\n`);
      brain(sb, ['record']);
    }
    const mf = path.join(sb.brain, 'manifest', 'manifest.jsonl');
    const raw = fs.readFileSync(mf, 'utf8').split('\n').filter(Boolean);
    const idx = raw.findIndex((l) => JSON.parse(l).lake_path.includes('1af7fc5e') && JSON.parse(l).byte_from > 0);
    raw.splice(idx, 1); // gap: the next chunk no longer follows
    raw.push(raw[idx]); // overlap: the same range claimed twice
    fs.writeFileSync(mf, raw.join('\n') + '\n');
    const rep = JSON.parse(brain(sb, ['verify', '--json']).stdout);
    const kinds = new Set(rep.problems.map((p: any) => p.kind));
    assert.ok(kinds.has('gap'), JSON.stringify(rep.problems));
    assert.ok(kinds.has('overlap'));
  } finally {
    sb.cleanup();
  }
});

test('lake bytes an interrupted pass left are pending while a spool entry will claim them, a problem otherwise', () => {
  const sb = sandbox({ fixtures: true, name: 'pending' });
  try {
    assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
    // A lake file nothing claims and nothing will: a problem.
    const stray = path.join(sb.brain, 'lake', 'pi', '--stray--', 's.jsonl');
    fs.mkdirSync(path.dirname(stray), { recursive: true, mode: 0o700 });
    fs.writeFileSync(stray, '{"type":"session"}\n', { mode: 0o600 });
    let rep = JSON.parse(brain(sb, ['verify', '--json']).stdout);
    assert.deepEqual(rep.problems.map((p: any) => [p.kind, p.path]), [['unmanifested', 'lake/pi/--stray--/s.jsonl']]);
    assert.deepEqual(rep.pending, []);
    // The same bytes with a committed spool entry that reaches them (a pass stopped between the
    // lake write and the manifest line): pending, and the next record claims them.
    const line = { lane: 'pi', lake_path: 'lake/pi/--stray--/s.jsonl', byte_from: 0, byte_to: 19 };
    fs.mkdirSync(path.join(sb.brain, 'spool', 'pi'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(sb.brain, 'spool', 'pi', '0000-test.json'), JSON.stringify({ kind: 'chunk', id: '0000-test', line }) + '\n', { mode: 0o600 });
    const r = brain(sb, ['verify']);
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /pending: 1 file\(s\), 19 B written by an interrupted pass .* the next `brain record` claims them/);
    // Reaching less far than the file does not cover it.
    fs.writeFileSync(path.join(sb.brain, 'spool', 'pi', '0000-test.json'), JSON.stringify({ kind: 'chunk', id: '0000-test', line: { ...line, byte_to: 5 } }) + '\n');
    rep = JSON.parse(brain(sb, ['verify', '--json']).stdout);
    assert.deepEqual(rep.problems.map((p: any) => p.kind), ['unmanifested']);
  } finally {
    sb.cleanup();
  }
});

// Issue 13 item 8: --deep named the start of the 1 MiB block a difference sat in, not its byte.
test('verify --deep names the byte where the origin differs from the lake', () => {
  const sb = sandbox({ fixtures: true, name: 'verify-byte' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    const lines = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    const victim = lines.find((l) => l.lake_path.endsWith('example-claude-code.jsonl'))!;
    const origin = path.join(sb.home, '.claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl');
    const size = fs.statSync(origin).size;
    assert.ok(size > 5000);
    for (const at of [4321, size - 2]) {
      const fd = fs.openSync(origin, 'r+');
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, at);
      fs.writeSync(fd, Buffer.from([b[0] ^ 0x20]), 0, 1, at);
      const r = brain(sb, ['verify', '--deep', '--json']);
      fs.writeSync(fd, b, 0, 1, at);
      fs.closeSync(fd);
      assert.equal(r.status, 1, r.stderr);
      const p = JSON.parse(r.stdout).problems.find((x: any) => x.kind === 'origin');
      assert.equal(p?.path, victim.lake_path);
      assert.match(p.message, new RegExp(` at byte ${at} \\(0-based`));
    }
  } finally {
    sb.cleanup();
  }
});
