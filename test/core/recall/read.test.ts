// read, cite and verify, and the scan tier's file picking: citations must be exactly what
// `sed -n 'A,Bp' FILE | sha256sum` prints, and the raw prefilter must never miss a file that holds
// the term (with rg and without it).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cite, readSession, verify, RECALL_TOOLS, SEARCH_INPUT_SCHEMA, validateInput } from '../../../src/core/recall';
import { floorFiles, prefilter, scanFile } from '../../../src/core/recall/scan';
import { homeRoot } from '../../../src/core/index/roots';
import { fold } from '../../../src/core/index/turnindex';
import { TestFloor, fixtureTranscripts } from '../index/floor';

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}
const envOf = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, BRAIN_HOME: home, BRAIN_MACHINE: 'testbox', ...extra });

function sedSha(file: string, a: number, b: number): string {
  return execFileSync('sh', ['-c', `sed -n '${a},${b}p' "$1" | sha256sum`, 'sh', file], { encoding: 'utf8' }).split(' ')[0];
}

test('read: a session\'s turns with citations that sed and sha256sum confirm', () => {
  const dir = tmp('read');
  try {
    const f = new TestFloor(dir);
    for (const x of fixtureTranscripts()) f.addFixture(x);
    for (const index of ['live', 'off'] as const) {
      const env = envOf(dir);
      const r = readSession({ session: '5c0375b4' }, env, { index });
      assert.equal(r.session.session, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7');
      assert.equal(r.session.project, '/path/to/Demo');
      assert.equal(r.session.agent, 'claude-code');
      assert.equal(r.total, r.turns.length);
      assert.equal(r.turns[0].role, 'user');
      const reply = r.turns.find((t) => t.tools.some((u) => u.name === 'Task'))!;
      assert.ok(reply.tools[0].output.length > 0, 'tool output is read in full mode');
      for (const t of r.turns) {
        const c = t.citation;
        assert.equal(sedSha(path.join(dir, c.lake_path), c.line_from, c.line_to), c.sha256, `turn ${t.n}`);
      }
      const part = readSession({ session: '5c0375b4', turns: '3..5' }, env);
      assert.deepEqual(
        part.turns.map((t) => t.n),
        [3, 4, 5],
      );
      assert.deepEqual(
        readSession({ session: '5c0375b4', turns: '22..' }, env).turns.map((t) => t.n),
        [22, 23, 24],
      );
    }
    // Long tool output is cut unless asked for in full.
    const cut = readSession({ session: 'example-claude-code', max_chars: 50 }, envOf(dir));
    assert.ok(cut.turns.some((t) => t.tools.some((u) => /more characters\)$/.test(u.output))));
    const full = readSession({ session: 'example-claude-code', max_chars: 0 }, envOf(dir));
    assert.ok(full.turns.every((t) => t.tools.every((u) => !/more characters\)$/.test(u.output))));
    assert.throws(() => readSession({ session: 'agent-a' }, envOf(dir)), /matches \d+ sessions/);
    assert.throws(() => readSession({ session: 'no-such-session' }, envOf(dir)), /no session "no-such-session"/);
    assert.throws(() => readSession({ session: 'example-claude-code', turns: '5..2' }, envOf(dir)), /empty range/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('cite: lines A..B of a floor file, as sed prints them; verify re-hashes', () => {
  const dir = tmp('cite');
  try {
    const f = new TestFloor(dir);
    const lp = f.addFixture('codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
    const env = envOf(dir);
    for (const [a, b] of [
      [1, 1],
      [9, 10],
      [2, 40],
      [63, 63],
    ]) {
      const c = cite({ lake_path: lp, line_from: a, line_to: b }, env);
      assert.equal(c.machine, 'testbox');
      assert.equal(c.gen, 1);
      assert.equal(c.sha256, sedSha(path.join(dir, lp), a, b));
      assert.equal(verify({ citation: c }, env).ok, true);
    }
    const c = cite({ lake_path: lp, line_from: 9, line_to: 10 }, env);
    assert.equal(verify({ citation: { ...c, sha256: '0'.repeat(64) } }, env).ok, false);
    const shifted = verify({ citation: { ...c, line_from: 8, line_to: 9 } }, env);
    assert.equal(shifted.ok, false);
    assert.match(shifted.problem!, /lines 8-9 are bytes/);
    assert.equal(verify({ citation: { ...c, lake_path: 'lake/codex/gone.jsonl' } }, env).ok, false);
    assert.throws(() => cite({ lake_path: '../etc/passwd', line_from: 1, line_to: 1 }, env), /not a path inside a floor's lake/);
    assert.throws(() => cite({ lake_path: lp, line_from: 500, line_to: 501 }, env), /has no line 500/);
    assert.throws(() => cite({ lake_path: lp, line_from: 3, line_to: 2 }, env), /before line_from/);
    assert.throws(
      () => verify({ citation: { ...c, machine: 'other' } }, env),
      (e: Error & { hint?: string }) => /"other" is not this machine/.test(e.message) && /--store/.test(e.hint ?? ''),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the raw prefilter never misses a file that holds the term (rg and Node agree)', () => {
  const dir = tmp('prefilter');
  const saved = process.env.BRAIN_NO_RG;
  try {
    const f = new TestFloor(dir);
    for (const x of fixtureTranscripts()) f.addFixture(x);
    f.append('pi', '--x--/escaped.jsonl', '{"type":"message","message":{"role":"user","content":"caf\\u00e9 \\"quoted\\" back\\\\slash"}}\n', { session: 'escaped' });
    const files = floorFiles(homeRoot(envOf(dir), dir));
    for (const term of ['TodoWrite', 'green AND yellow', 'ファイル', 'café', '"quoted"', 'back\\slash', 'CLAUDE.md', 'nothing-at-all-here', 'the']) {
      delete process.env.BRAIN_NO_RG;
      const rg = prefilter(files, term);
      process.env.BRAIN_NO_RG = '1';
      const node = prefilter(files, term);
      assert.equal(node.by, 'node');
      const names = (l: typeof files) => l.map((x) => x.lake_path).sort();
      assert.deepEqual(names(rg.files), names(node.files), term);
      // Superset of the files whose parsed turns hold it.
      const holding = files.filter((x) => {
        const s = scanFile(x, term);
        return !!s && s.some((y) => y.text.length > 0 || y.tool.length > 0);
      });
      for (const h of holding) assert.ok(node.files.includes(h), `${term}: ${h.lake_path}`);
      if (term === 'café' || term === '"quoted"' || term === 'back\\slash') assert.ok(holding.some((h) => h.session === 'escaped'), `${term} is found in an escaped line`);
      assert.equal(fold(term).length > 0, true);
    }
  } finally {
    if (saved === undefined) delete process.env.BRAIN_NO_RG;
    else process.env.BRAIN_NO_RG = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('each recall tool declares its input schema once, and inputs are checked against it', () => {
  assert.deepEqual(
    RECALL_TOOLS.map((t) => t.name),
    ['search', 'read_session', 'cite', 'verify_citation'],
  );
  assert.equal(RECALL_TOOLS[0].inputSchema, SEARCH_INPUT_SCHEMA);
  for (const t of RECALL_TOOLS) {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.inputSchema.additionalProperties, false);
    for (const r of t.inputSchema.required) assert.ok(r in t.inputSchema.properties, `${t.name}.${r}`);
  }
  assert.throws(() => validateInput({ term: 3 }, SEARCH_INPUT_SCHEMA), /term must be a string/);
  assert.throws(() => validateInput({ term: 'x', limit: 0 }, SEARCH_INPUT_SCHEMA), /limit must be at least 1/);
  assert.throws(() => validateInput({ term: 'x', limit: 1.5 }, SEARCH_INPUT_SCHEMA), /limit must be an integer/);
  assert.throws(() => validateInput({}, SEARCH_INPUT_SCHEMA), /term is required/);
  assert.deepEqual(validateInput({ term: 'x', newest: true }, SEARCH_INPUT_SCHEMA), { term: 'x', newest: true });
});
