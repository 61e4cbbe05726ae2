// A pass writes new bytes straight into the lake, accounted for by its journal until their manifest
// lines are written: killed in between, the bytes are pending (not a problem) and the next pass
// claims them, or cuts what it cannot claim and reads those bytes again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';
import { verifyFloor } from '../../../src/core/floor/verify';
import { capture } from '../../../src/core/floor/capture';

const LINES = ['{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"one"}}', '{"type":"assistant","message":{"role":"assistant","content":"two"}}', '{"type":"user","message":{"role":"user","content":"three"}}'];

function world(name: string) {
  const sb = sandbox({ name });
  const origin = path.join(sb.home, '.claude', 'projects', 'p', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.writeFileSync(origin, LINES.join('\n') + '\n');
  return { sb, origin, lake: path.join(sb.brain, 'lake', 'cc', 'p', 's.jsonl'), journal: path.join(sb.brain, 'spool', '_journal'), manifest: path.join(sb.brain, 'manifest', 'manifest.jsonl') };
}

test('killed after the lake write, before the manifest line: the journalled bytes are pending, then claimed', () => {
  const w = world('journal-claim');
  try {
    // One file: 1 mid-lake-append, 2 after-lake-write, 3 after-journal-chunk.
    const r = brain(w.sb, ['record', '--json', '--no-caches'], { env: { BRAIN_CRASH_AT: '3' } });
    assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin), 'the bytes went straight to the lake');
    assert.equal(readManifest(w.manifest).lines.length, 0, 'nothing claimed yet');
    assert.equal(fs.readdirSync(w.journal).filter((n) => n.endsWith('.jsonl')).length, 1);
    const v = verifyFloor(w.sb.brain);
    assert.deepEqual(v.problems, []);
    assert.deepEqual(v.pending.map((p) => p.path), ['lake/cc/p/s.jsonl']);

    const ok = brain(w.sb, ['record', '--json', '--no-caches']);
    assert.equal(ok.status, 0, ok.stderr);
    const lines = readManifest(w.manifest).lines;
    assert.deepEqual(lines.map((l) => [l.lake_path, l.byte_from, l.byte_to, l.line_from, l.line_to]), [['lake/cc/p/s.jsonl', 0, fs.statSync(w.origin).size, 1, 3]]);
    assert.equal(lines[0].event_ts_first, '2026-01-01T00:00:00Z');
    assert.deepEqual(fs.readdirSync(w.journal), [], 'the journal is gone once its chunks are claimed');
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('killed half-way through the lake write: the torn bytes are cut and written again', () => {
  const w = world('journal-cut');
  try {
    assert.equal(brain(w.sb, ['record', '--no-caches']).status, 0);
    const before = fs.statSync(w.lake).size;
    fs.appendFileSync(w.origin, LINES[1] + '\n' + LINES[2] + '\n');
    const r = brain(w.sb, ['record', '--json', '--no-caches'], { env: { BRAIN_CRASH_AT: '1' } });
    assert.equal(r.signal, 'SIGKILL');
    const torn = fs.statSync(w.lake).size;
    assert.ok(torn > before && torn < fs.statSync(w.origin).size, `a torn append in the lake (${before} < ${torn})`);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, [], 'journalled: pending, not a problem');

    const ok = brain(w.sb, ['record', '--json', '--no-caches']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(JSON.parse(ok.stdout).warnings.some((x: { code: string }) => x.code === 'lake-torn-tail'));
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    const lines = readManifest(w.manifest).lines;
    assert.deepEqual(lines.map((l) => [l.byte_from, l.byte_to]), [[0, before], [before, fs.statSync(w.origin).size]]);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('a journalled new lake file that vanished before recovery: nothing is claimed for it, and its bytes are read again', () => {
  const w = world('journal-vanished');
  try {
    const r = brain(w.sb, ['record', '--json', '--no-caches'], { env: { BRAIN_CRASH_AT: '3' } });
    assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
    fs.rmSync(w.lake);
    const ok = brain(w.sb, ['record', '--json', '--no-caches']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    assert.deepEqual(readManifest(w.manifest).lines.map((l) => [l.byte_from, l.byte_to, l.line_from, l.line_to]), [[0, fs.statSync(w.origin).size, 1, 3]]);
    assert.deepEqual(fs.readdirSync(w.journal), []);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('a journalled append cut short under the journal (a torn lake tail): the chunk is not claimed, the rest is cut and written again', () => {
  const w = world('journal-short');
  try {
    assert.equal(brain(w.sb, ['record', '--no-caches']).status, 0);
    const before = fs.statSync(w.lake).size;
    fs.appendFileSync(w.origin, LINES[1] + '\n' + LINES[2] + '\n');
    const r = brain(w.sb, ['record', '--json', '--no-caches'], { env: { BRAIN_CRASH_AT: '3' } });
    assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
    assert.equal(fs.statSync(w.lake).size, fs.statSync(w.origin).size, 'the whole append is in the lake, journalled');
    fs.truncateSync(w.lake, before + 7);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, [], 'journalled: pending, not a problem');
    const ok = brain(w.sb, ['record', '--json', '--no-caches']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(JSON.parse(ok.stdout).warnings.some((x: { code: string }) => x.code === 'lake-torn-tail'));
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    assert.deepEqual(readManifest(w.manifest).lines.map((l) => [l.byte_from, l.byte_to]), [[0, before], [before, fs.statSync(w.origin).size]]);
    assert.deepEqual(fs.readdirSync(w.journal), []);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('a journal whose chunk line is torn: the lake bytes it wrote are cut, not claimed, and written again', () => {
  const w = world('journal-torn');
  try {
    assert.equal(brain(w.sb, ['record', '--no-caches']).status, 0);
    const before = fs.statSync(w.lake).size;
    fs.appendFileSync(w.origin, LINES[1] + '\n');
    const r = brain(w.sb, ['record', '--json', '--no-caches'], { env: { BRAIN_CRASH_AT: '3' } });
    assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
    const [j] = fs.readdirSync(w.journal);
    const text = fs.readFileSync(path.join(w.journal, j), 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    assert.match(text.slice(lastStart), /^\{"chunk"/);
    fs.truncateSync(path.join(w.journal, j), lastStart + 40);
    const ok = brain(w.sb, ['record', '--json', '--no-caches']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    assert.deepEqual(readManifest(w.manifest).lines.map((l) => [l.byte_from, l.byte_to]), [[0, before], [before, fs.statSync(w.origin).size]]);
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('an origin named twice in one watch pass (two spellings) is written and claimed once', async () => {
  const w = world('journal-twice');
  try {
    const dir = path.dirname(w.origin);
    const only = new Set([w.origin, `${dir}//${path.basename(w.origin)}`, path.join(dir, '..', 'p', path.basename(w.origin)).replace('/p/', '/./p/')]);
    const r = await capture({ home: w.sb.brain, env: w.sb.env, only, source: 'watch' });
    assert.equal(r.applied, 1);
    assert.deepEqual(readManifest(w.manifest).lines.map((l) => [l.byte_from, l.byte_to, l.origin_path]), [[0, fs.statSync(w.origin).size, w.origin]]);
    assert.deepEqual(fs.readFileSync(w.lake), fs.readFileSync(w.origin));
    assert.deepEqual(verifyFloor(w.sb.brain).problems, []);
  } finally {
    w.sb.cleanup();
  }
});

test('journalled bytes are not read by the turn index, search or the DuckDB cache until a pass claims them', () => {
  const w = world('journal-caches');
  try {
    assert.equal(brain(w.sb, ['record']).status, 0);
    fs.appendFileSync(w.origin, '{"type":"user","message":{"role":"user","content":"quokkaword pending"}}\n');
    const r = brain(w.sb, ['record', '--no-caches'], { env: { BRAIN_CRASH_AT: '3' } });
    assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
    assert.match(fs.readFileSync(w.lake, 'utf8'), /quokkaword/, 'the bytes are in the lake, unclaimed');
    const hits = () => JSON.parse(brain(w.sb, ['search', 'quokkaword', '--json']).stdout).total as number;
    const rows = () => brain(w.sb, ['sql', "SELECT count(*) AS n FROM floor.raw_lines WHERE raw_line LIKE '%quokkaword%'", '--json']).stdout;
    assert.equal(hits(), 0, 'search does not see unclaimed bytes');
    assert.match(rows(), /"rows":\[\[0\]\]/, 'the DuckDB cache does not hold unclaimed lines');
    assert.equal(brain(w.sb, ['record']).status, 0);
    assert.equal(hits(), 1);
    assert.match(rows(), /"rows":\[\[1\]\]/);
  } finally {
    w.sb.cleanup();
  }
});
