// Recall never reads outside the machine folder it was pointed at. A store folder is written by
// other machines (and a floor by anyone with the user's rights): a manifest line naming `..`, a
// symlinked lake file and a symlinked lake folder each lead to a transcript outside the store
// holding a unique phrase (test/helpers/hostile-store.ts). search (index and scan), show, cite
// and cite --verify must never hand those bytes out, and must name each refused entry.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../../helpers/env';
import { hostileStore, outsideTranscript, PHRASE, type HostileStore } from '../../helpers/hostile-store';

const SECRET = /zanzibar/i;

let sb: Sandbox;
let h: HostileStore;

before(() => {
  sb = sandbox({ fixtures: true, name: 'unsafe-paths' });
  const r = brain(sb, ['record']);
  assert.equal(r.status, 0, r.stderr);
  h = hostileStore(sb);
});

after(() => sb?.cleanup());

function refusedNames(refused: { machine: string; lake_path: string; problem: string }[]): string[] {
  return refused.map((x) => `${x.machine}:${x.lake_path}`).sort();
}

for (const mode of ['index', 'scan'] as const) {
  test(`search --store (${mode}) never returns bytes from outside the store and names each refused entry`, () => {
    const scan = mode === 'scan' ? ['--scan'] : [];
    const r = brain(sb, ['search', PHRASE, '--store', h.store, '--json', ...scan]);
    assert.equal(r.status, 1, `no session may match: ${r.stdout}\n${r.stderr}`);
    assert.doesNotMatch(r.stdout.replace(/"term":"[^"]*"|for \\"[^"]*\\"/g, ''), SECRET);
    const j = JSON.parse(r.stdout);
    assert.equal(j.source, mode);
    assert.deepEqual(j.hits, []);
    assert.deepEqual(refusedNames(j.refused), h.entries.map((e) => `evil:${e.lake_path}`).sort());
    assert.match(j.header, /3 floor files refused/);
    const why = Object.fromEntries(j.refused.map((x: { lake_path: string; problem: string }) => [x.lake_path, x.problem]));
    assert.match(why['lake/cc/p/../../../../../dotdot.jsonl'], /"\.\."/);
    assert.match(why['lake/cc/p/linked-session.jsonl'], /is a symlink/);
    assert.match(why['lake/cc/dirlink/dirlinked.jsonl'], /passes through a symlink \(lake\/cc\/dirlink\)/);
    for (const e of h.entries) assert.ok(r.stderr.includes(`refused evil:${e.lake_path}`), r.stderr);
    // The good machine in the same store is still searched.
    const ok = brain(sb, ['search', 'user authentication', '--store', h.store, '--json', ...scan]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(JSON.parse(ok.stdout).hits.every((x: { machine: string }) => x.machine === 'testbox'));
  });
}

test('show --store refuses each entry by name and prints none of its bytes', () => {
  for (const e of h.entries) {
    for (const scan of [[], ['--scan']]) {
      const r = brain(sb, ['show', e.session, '--store', h.store, '--machine', 'evil', ...scan]);
      assert.equal(r.status, 3, `${e.session}: ${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stdout + r.stderr, SECRET);
      assert.ok(r.stderr.includes(JSON.stringify(e.lake_path)), r.stderr);
      assert.match(r.stderr, /refused/);
    }
  }
});

test('cite and cite --verify refuse paths that leave the machine folder or meet a symlink', () => {
  for (const e of h.entries.slice(1)) {
    const r = brain(sb, ['cite', e.lake_path, '1..2', '--store', h.store, '--machine', 'evil', '--json']);
    assert.equal(r.status, 3, `${e.lake_path}: ${r.stdout}\n${r.stderr}`);
    // Nothing of the file: only the error, as JSON (--json), naming the refusal.
    const err = JSON.parse(r.stdout) as { error: string; message: string };
    assert.equal(err.error, 'unsafe-path');
    assert.ok(!r.stdout.includes(PHRASE), 'no byte of the file outside');
    assert.match(r.stderr, /symlink/);
    assert.ok(r.stderr.includes(JSON.stringify(e.lake_path)), r.stderr);
  }
  const dd = brain(sb, ['cite', h.entries[0].lake_path, '1..2', '--store', h.store, '--machine', 'evil']);
  assert.equal(dd.status, 2, dd.stderr);
  assert.match(dd.stderr, /"\.\." segment/);
  // A citation that is right about the outside bytes still does not verify: they are not the floor's.
  const bytes = fs.readFileSync(h.outside[1]);
  const firstLine = bytes.indexOf(10) + 1;
  const c = { machine: 'evil', lake_path: h.entries[1].lake_path, gen: 1, line_from: 1, line_to: 1, byte_from: 0, byte_to: firstLine, sha256: createHash('sha256').update(bytes.subarray(0, firstLine)).digest('hex') };
  const v = brain(sb, ['cite', '--verify', JSON.stringify(c), '--store', h.store, '--json']);
  assert.equal(v.status, 1, v.stdout + v.stderr);
  const j = JSON.parse(v.stdout);
  assert.equal(j.ok, false);
  assert.equal(j.sha256, null);
  assert.match(j.problem, /is a symlink: refused/);
});

test('a turns.sqlite symlink in a store is not opened (nothing written through it)', () => {
  const other = path.join(sb.dir, 'store2');
  fs.cpSync(path.join(h.store, 'testbox'), path.join(other, 'testbox'), { recursive: true });
  const victim = path.join(sb.dir, 'victim.sqlite');
  fs.writeFileSync(victim, '');
  fs.symlinkSync(victim, path.join(other, 'turns.sqlite'));
  const r = brain(sb, ['search', 'user authentication', '--store', other, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.source, 'scan');
  assert.match(j.fallback, /turns\.sqlite is a symlink/);
  assert.equal(fs.statSync(victim).size, 0);
});

test('the local floor: a lake file replaced by a symlink is refused by search, show and verify', () => {
  const local = sandbox({ fixtures: true, name: 'unsafe-local' });
  try {
    assert.equal(brain(local, ['record']).status, 0);
    const lakePath = 'lake/cc/-misc-git-ai/claude-code-with-plan.jsonl';
    const lake = path.join(local.brain, lakePath);
    const outside = path.join(local.dir, 'planted.jsonl');
    fs.writeFileSync(outside, outsideTranscript('local'));
    fs.rmSync(lake);
    fs.symlinkSync(outside, lake);
    const s = brain(local, ['search', PHRASE, '--json', '--scan']);
    assert.equal(s.status, 1, s.stdout + s.stderr);
    const j = JSON.parse(s.stdout);
    assert.deepEqual(j.hits, []);
    assert.deepEqual(refusedNames(j.refused), [`testbox:${lakePath}`]);
    // A rebuild does not take the planted bytes in either: the DuckDB cache names the file as not
    // read (exit 1, as for any lake file it cannot read), and the rebuilt index does not find them.
    const rb = brain(local, ['rebuild']);
    assert.equal(rb.status, 1, rb.stdout + rb.stderr);
    assert.match(rb.stdout, /claude-code-with-plan\.jsonl \(generation 1\): .*symlink.*refused, not read/);
    const si = brain(local, ['search', PHRASE, '--json']);
    assert.deepEqual(JSON.parse(si.stdout).hits, []);
    const show = brain(local, ['show', 'claude-code-with-plan']);
    assert.equal(show.status, 3, show.stdout);
    assert.doesNotMatch(show.stdout + show.stderr, SECRET);
    assert.match(show.stderr, /is a symlink: refused/);
    const v = brain(local, ['verify', '--json']);
    assert.equal(v.status, 1, v.stdout + v.stderr);
    const problems = JSON.parse(v.stdout).problems as { kind: string; path: string; message: string }[];
    assert.ok(problems.some((p) => p.kind === 'unsafe-path' && p.path === lakePath && /symlink/.test(p.message)), JSON.stringify(problems));
  } finally {
    local.cleanup();
  }
});
