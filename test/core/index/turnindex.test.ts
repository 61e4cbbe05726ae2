// The turn index against the truth it stands for: a phrase query gives the same sessions (and the
// same turn counts) as a literal, case-insensitive substring scan of the same turn texts, over every
// fixture and a generated corpus, for many terms. Then it stays equal while files grow chunk by
// chunk, when a new generation replaces a file, and when two processes update it at once.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, REPO } from '../../helpers/env';
import { openIndex, indexable, fold, type TurnIndex } from '../../../src/core/index/turnindex';
import { homeRoot, type Root } from '../../../src/core/index/roots';
import { readTurns, laneRel } from '../../../src/core/index/read';
import { readManifest } from '../../../src/core/floor/manifest';
import { isSaid } from '../../../src/core/turns';
import { rawTrigramKeys } from '../../../src/core/index/trigrams';
import { rawPatterns } from '../../../src/core/recall/scan';
import { TestFloor, fixtureTranscripts, fixtureLane, chunkLines, tmpDir as tmp, rootOf, openRoot as open, feedInPieces } from './floor';
import { genClaude, genCodex, genPi, rng, type GenSession } from './gen';
import { ftsRows } from './fts';


/** The scan's answer: per session key, the folded texts of the entries the turn tier finds. */
function truth(root: Root): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const mf = root.machines[0];
  const files = new Map<string, { lane: string; session: string }>();
  for (const m of readManifest(path.join(mf.dir, 'manifest', 'manifest.jsonl')).lines) files.set(m.lake_path, { lane: m.lane, session: m.session });
  for (const [lp, f] of files) {
    const r = readTurns(path.join(mf.dir, lp), f.lane, laneRel(lp).rel, { full: false });
    if (!r) continue;
    const k = `${mf.machine}/${f.lane}/${f.session}`;
    const l = out.get(k) ?? [];
    for (const t of r.turns) if (isSaid(t) && t.text) l.push(fold(t.text));
    out.set(k, l);
  }
  return out;
}

function indexAnswer(idx: TurnIndex, term: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of idx.match(term)) {
    const s = idx.session(m.sess_id)!;
    out.set(`${s.machine}/${s.lane}/${s.session}`, m.count);
  }
  return out;
}

function scanAnswer(t: Map<string, string[]>, term: string): Map<string, number> {
  const q = fold(term);
  const out = new Map<string, number>();
  for (const [k, texts] of t) {
    const c = texts.filter((x) => x.includes(q)).length;
    if (c > 0) out.set(k, c);
  }
  return out;
}

function sorted(m: Map<string, number>): [string, number][] {
  return [...m].sort((a, b) => a[0].localeCompare(b[0]));
}

function writeGen(floor: TestFloor, g: GenSession, chunk?: number) {
  const data = Buffer.from(g.lines.join('\n') + '\n');
  if (!chunk) floor.append(g.lane, g.rel, data);
  else for (const part of chunkLines(data, chunk)) floor.append(g.lane, g.rel, part);
}

/** Terms: substrings of real turn texts (many lengths, upper-cased too), fixed identifiers and
 * non-ASCII, and strings nobody wrote. */
function terms(t: Map<string, string[]>, seed: number, n: number): string[] {
  const r = rng(seed);
  const all = [...t.values()].flat().filter((x) => [...x].length >= 3);
  const out = new Set<string>([
    'TodoWrite', 'claude.md', 'user-message-selector.ts', '日本語', 'ファイル', 'Größe', 'NAÏVE', '🎉 ', 'ελληνικά', 'РУССКИЙ',
    '"double"', 'back\\slash', 'a%b_c', "it's", 'o(n²)', '<div>', '&amp;', 'begin immediate', 'HTTP_404', '--since=7d',
    'green and yellow', 'The ', ' the ', 'x²', '—', '→ ', 'zzzqqqxxx', 'no such phrase anywhere', '""', 'İstanbul', 'istanbul',
  ]);
  while (out.size < n) {
    const s = [...all[Math.floor(r() * all.length)]];
    const len = 3 + Math.floor(r() * 12);
    const at = Math.floor(r() * Math.max(1, s.length - len));
    let x = s.slice(at, at + len).join('');
    if (r() < 0.3) x = x.toUpperCase();
    if (r() < 0.1) x = x + 'qq';
    out.add(x);
  }
  return [...out].filter(indexable);
}

test('phrase query = literal case-insensitive scan, over every fixture and a generated corpus', () => {
  const dir = tmp('equiv');
  try {
    const floor = new TestFloor(dir);
    for (const f of fixtureTranscripts()) floor.addFixture(f);
    const r = rng(7);
    for (let i = 0; i < 25; i++) {
      writeGen(floor, genClaude(r, 3 + Math.floor(r() * 10)));
      writeGen(floor, genPi(r, 3 + Math.floor(r() * 10)));
      writeGen(floor, genCodex(r, 2 + Math.floor(r() * 6)));
    }
    const root = rootOf(dir);
    const idx = open(root);
    try {
      idx.update();
      const t = truth(root);
      const list = terms(t, 11, 400);
      assert.ok(list.length >= 380);
      let nonEmpty = 0;
      for (const term of list) {
        const a = indexAnswer(idx, term);
        const b = scanAnswer(t, term);
        if (b.size > 0) nonEmpty++;
        assert.deepEqual(sorted(a), sorted(b), `term ${JSON.stringify(term)}`);
      }
      assert.ok(nonEmpty > 300, `most terms match something (${nonEmpty})`);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function snapshot(idx: TurnIndex) {
  return {
    turns: idx.db
      .prepare(`SELECT f.lake_path, t.n, t.role, t.side, t.said, t.line_from, t.line_to, t.byte_from, t.byte_to FROM turns t JOIN files f ON f.id = t.file_id ORDER BY f.lake_path, t.n`)
      .raw()
      .all(),
    sessions: idx.db.prepare(`SELECT machine, lane, session, native, project, title, started, ended, turns FROM sessions ORDER BY session`).raw().all(),
    // The same text is indexed: the same turns match, term by term.
    fts: ['the', 'ファイル', 'todowrite', 'green and', 'ing ', '"double"'].map((t) =>
      idx
        .match(t)
        .map((m) => [idx.session(m.sess_id)!.session, m.count])
        .sort(),
    ),
  };
}

test('growing files chunk by chunk, updating after each, ends where one full build does', () => {
  const a = tmp('incr-a');
  const b = tmp('incr-b');
  try {
    const whole = new TestFloor(a);
    const grown = new TestFloor(b);
    // Sessions without timestamps (cursor) start at their capture time: make it the same in both.
    whole.fixedTime = grown.fixedTime = '2026-01-01T00:00:00.000Z';
    const fixtures = fixtureTranscripts();
    for (const f of fixtures) whole.addFixture(f);
    const r1 = rng(3);
    const gens = [genClaude(r1, 6), genPi(r1, 6), genCodex(r1, 4)];
    for (const g of gens) writeGen(whole, g);
    const ia = open(rootOf(a));
    ia.update();
    const ib = open(rootOf(b));
    try {
      // Feed every file in chunks of 1..7 lines, round robin, with an update between rounds.
      const r = rng(5);
      const pending = [
        ...fixtures.map((f) => {
          const { lane, rel } = fixtureLane(f);
          return { lane, rel, parts: chunkLines(fs.readFileSync(path.join(FIXTURES, f)), 1 + Math.floor(r() * 7)) };
        }),
        ...gens.map((g) => ({ lane: g.lane, rel: g.rel, parts: chunkLines(Buffer.from(g.lines.join('\n') + '\n'), 2) })),
      ];
      assert.ok(feedInPieces(grown, pending, () => ib.update()) > 10);
      assert.deepEqual(snapshot(ib), snapshot(ia));
      // Each resume found the file's turns to read again through its session's blocks: the turns
      // table keeps no index of its own (one on its file took 16 bytes a turn).
      assert.deepEqual(ib.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'turns'`).pluck().all(), []);
    } finally {
      ia.close();
      ib.close();
    }
  } finally {
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });
  }
});

test('an unterminated last line is indexed, and read again once it is complete', () => {
  const dir = tmp('tail');
  try {
    const floor = new TestFloor(dir);
    const g = genPi(rng(9), 3);
    const text = g.lines.join('\n');
    const cut = text.lastIndexOf('"text":"') + 12;
    floor.append(g.lane, g.rel, text.slice(0, cut));
    const idx = open(rootOf(dir));
    try {
      idx.update();
      const before = idx.stats().turns;
      floor.append(g.lane, g.rel, text.slice(cut) + '\n');
      idx.update();
      const whole = readTurns(path.join(dir, floor.lakePath(g.lane, g.rel)), 'pi', g.rel, { full: false })!;
      assert.equal(idx.stats().turns, whole.turns.filter((t) => t.role === 'user' || t.role === 'assistant').length);
      assert.ok(idx.stats().turns >= before);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every generation stays in the index; a turn two generations hold counts once', () => {
  const dir = tmp('gen');
  try {
    const floor = new TestFloor(dir);
    const g = genClaude(rng(21), 4);
    writeGen(floor, g);
    const idx = open(rootOf(dir));
    try {
      idx.update();
      assert.equal(idx.stats().turns, 8);
      // The origin was rewritten: capture opens .g2 holding its first turn as it was, then new content.
      const prompts = g.lines.map((l, i) => (typeof JSON.parse(l).message.content === 'string' ? i : -1)).filter((i) => i >= 0);
      const kept = g.lines.slice(0, prompts[1]);
      const fresh = JSON.stringify({ type: 'user', sessionId: g.session, cwd: '/work/x', timestamp: '2026-05-01T00:00:00Z', message: { role: 'user', content: 'a rewritten zebracorn prompt' } });
      floor.append(g.lane, g.rel, [...kept, fresh].join('\n') + '\n', { gen: 2, session: g.session });
      idx.update();
      assert.equal(idx.match('zebracorn').length, 1);
      // What only generation 1 holds is still found, in generation 1's file.
      const old = idx.match(JSON.parse(g.lines[prompts[2]]).message.content.slice(0, 40).toLowerCase());
      assert.equal(old.length, 1);
      assert.equal(idx.file(idx.turn(old[0].ids[0])!.file_id)!.gen, 1);
      // A turn both hold is found once, in generation 2 (the older copy left the text index).
      const shared = idx.match(JSON.parse(g.lines[0]).message.content.slice(0, 40).toLowerCase());
      assert.equal(shared.length, 1);
      assert.equal(shared[0].count, 1);
      assert.equal(idx.file(idx.turn(shared[0].ids[0])!.file_id)!.gen, 2);
      // 8 turns in generation 1, 3 in generation 2, of which 2 (the first prompt and reply) are shared.
      assert.equal(idx.stats().turns, 9);
      assert.ok(fs.existsSync(path.join(dir, floor.lakePath(g.lane, g.rel, 1))));
      const s = idx.findSessions(g.session);
      assert.equal(s.length, 1);
      assert.equal(s[0].turns, 9);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('turn rowids stay dense across sessions; a session whose turns fill several blocks is one match, in order', () => {
  const dir = tmp('blocks');
  try {
    const floor = new TestFloor(dir);
    const r = rng(41);
    // A: 2 x 180 turns, in two parts with other sessions between, so its blocks interleave theirs.
    const a = genClaude(r, 180);
    const others = Array.from({ length: 6 }, () => genClaude(r, 3));
    const firstUser = a.lines.findIndex((l, i) => i > a.lines.length / 2 && typeof JSON.parse(l).message.content === 'string');
    floor.append(a.lane, a.rel, a.lines.slice(0, firstUser).join('\n') + '\n');
    for (const o of others.slice(0, 3)) writeGen(floor, o);
    const idx = open(rootOf(dir));
    try {
      idx.update();
      for (const o of others.slice(3)) writeGen(floor, o);
      floor.append(a.lane, a.rel, a.lines.slice(firstUser).join('\n') + '\n');
      idx.update();
      const ids = idx.db.prepare('SELECT id FROM turns ORDER BY id').pluck().all() as number[];
      assert.equal(ids.length, 360 + 6 * 6);
      // Dense: each session's turns take the next block, not a range 2^24 wide.
      assert.ok(ids[ids.length - 1] < 16 * 256, `largest turn rowid ${ids[ids.length - 1]}`);
      const t = truth(rootOf(dir));
      for (const term of terms(t, 43, 60)) assert.deepEqual(sorted(indexAnswer(idx, term)), sorted(scanAnswer(t, term)), term);
      const sessA = idx.findSessions(a.session)[0];
      assert.equal(sessA.turns, 360);
      // A turn's time is kept as a number (ms), its session only through its file.
      const first = idx.turn(ids[0])!;
      assert.equal(first.ts, Date.parse(JSON.parse(a.lines[0]).timestamp));
      assert.ok(!('sess_id' in first));
      const blocks = idx.db.prepare(`SELECT count(*) FROM blocks WHERE sess_id = ?`).pluck().get(sessA.id) as number;
      assert.ok(blocks >= 2, 'A spans several blocks');
      // A word many of A's turns hold: A comes once, with every such turn, ids ascending across blocks.
      const said = t.get(`testbox/cc/${a.session}`)!;
      const hit = idx.match('the').find((x) => x.sess_id === sessA.id)!;
      assert.equal(hit.count, said.filter((x) => x.includes('the')).length);
      assert.equal(idx.match('the').filter((x) => x.sess_id === sessA.id).length, 1);
      const got = hit.all.split(',').map(Number);
      assert.ok(new Set(got.map((id) => Math.floor(id / 256))).size >= 2, 'its matches are in several blocks');
      assert.deepEqual(got, [...got].sort((x, y) => x - y));
      assert.deepEqual(hit.ids, got.slice(0, 3));
      const all = idx.db.prepare(`SELECT id FROM turns WHERE file_id IN (SELECT id FROM files WHERE sess_id = ?) AND said = 1`).pluck().all(sessA.id) as number[];
      assert.ok(got.every((id) => all.includes(id)));
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a one-line append touches only the raw lists of its own trigrams, each a small segment', () => {
  const dir = tmp('rawappend');
  try {
    const floor = new TestFloor(dir);
    const r = rng(51);
    const gens = [genClaude(r, 40), genPi(r, 30), genCodex(r, 20)];
    for (const g of gens) writeGen(floor, g);
    const idx = open(rootOf(dir));
    try {
      idx.update();
      const before = new Map((idx.db.prepare('SELECT k, hex(ids) FROM raw_post').raw().all() as [number, string][]).map(([k, v]) => [k, v]));
      const g = gens[0];
      const line = `${JSON.stringify({ type: 'user', sessionId: g.session, cwd: '/w', timestamp: '2026-05-01T00:00:00Z', message: { role: 'user', content: 'one appended line, quagmirewombat' } })}\n`;
      floor.append(g.lane, g.rel, line);
      idx.update();
      const after = idx.db.prepare('SELECT k, hex(ids), length(ids) FROM raw_post').raw().all() as [number, string, number][];
      const keys = new Set(rawTrigramKeys(Buffer.from(line), 0, Buffer.byteLength(line)));
      const changed = after.filter(([k, v]) => before.get(k) !== v);
      assert.ok(changed.length > 0);
      for (const [k, , len] of changed) {
        // Segment k of key floor(k / 2^20): nothing but the new line's keys is written again.
        assert.ok(keys.has(Math.floor(k / 2 ** 20)), `segment ${k} changed`);
        assert.ok(len <= 4096, `segment ${k} is ${len} bytes`);
      }
      assert.deepEqual([...idx.rawFiles(rawPatterns('QuagmireWombat')!)!.keys()], [idx.liveFiles().find((f) => f.lake_path === floor.lakePath(g.lane, g.rel))!.id]);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('two processes updating at once add every turn exactly once', async () => {
  const dir = tmp('conc');
  try {
    const floor = new TestFloor(dir);
    // The index exists already (a first build is one exclusive writer); then much arrives at once.
    floor.addFixture('claude/projects/-misc-git-ai/example-claude-code.jsonl');
    const first = open(rootOf(dir));
    first.update();
    first.close();
    const r = rng(13);
    for (let i = 0; i < 30; i++) writeGen(floor, genClaude(r, 20), 9);
    for (const f of fixtureTranscripts()) if (!f.endsWith('example-claude-code.jsonl')) floor.addFixture(f, 11);
    const script = path.join(dir, 'update.ts');
    fs.writeFileSync(
      script,
      `import { openIndex } from ${JSON.stringify(path.join(REPO, 'src/core/index/turnindex'))};
import { homeRoot } from ${JSON.stringify(path.join(REPO, 'src/core/index/roots'))};
const root = homeRoot({ BRAIN_HOME: ${JSON.stringify(dir)}, BRAIN_MACHINE: 'testbox', HOME: ${JSON.stringify(dir)} }, ${JSON.stringify(dir)});
const o = openIndex(root);
if (!o.ok) { console.error(o.reason); process.exit(2); }
const r = o.index.update();
console.log(JSON.stringify(r));
o.index.close();
`,
    );
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`update exited ${code}: ${err}`))));
      });
    const outs = await Promise.all([run(), run(), run()]);
    const reports = outs.map((o) => JSON.parse(o.trim().split('\n').pop()!));
    const idx = open(rootOf(dir));
    try {
      const t = truth(rootOf(dir));
      const expect = [...t.values()].flat().length;
      const got = idx.db.prepare(`SELECT count(*) FROM turns WHERE said = 1`).pluck().get();
      assert.equal(got, expect);
      const dup = idx.db.prepare(`SELECT count(*) FROM (SELECT file_id, n FROM turns GROUP BY file_id, n HAVING count(*) > 1)`).pluck().get();
      assert.equal(dup, 0);
      assert.equal(
        reports.reduce((a, x) => a + x.turns, 0) + 14,
        idx.stats().turns,
        'the updates split the work between them (14 turns were there before)',
      );
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('sessions carry project, title, times and the meta record', () => {
  const dir = tmp('sess');
  try {
    const floor = new TestFloor(dir);
    floor.addFixture('claude/projects/-misc-git-ai/example-claude-code.jsonl');
    floor.addFixture('cursor/projects/fixtures/agent-transcripts/agent-sessions-large.jsonl');
    floor.meta('cursor', 'agent-sessions-large', { cwd: '/home/u/hbo', git: { remote: 'git@example.com:u/hbo.git' } });
    const idx = open(rootOf(dir));
    try {
      idx.update();
      const cc = idx.findSessions('example-claude-code')[0];
      assert.equal(cc.project, '/Users/aidancunniffe/Desktop/ghq');
      assert.equal(cc.title, 'Make the colors green and yellow');
      assert.equal(cc.native, 'cb947e5b-246e-4253-a953-631f7e464c6b');
      assert.equal(cc.started, '2025-09-11T13:28:05.638Z');
      assert.equal(cc.turns, 14);
      const cur = idx.findSessions('agent-sessions-large')[0];
      assert.equal(cur.project, '/home/u/hbo', 'no cwd in the transcript: the meta record has it');
      assert.equal(cur.repo, 'git@example.com:u/hbo.git');
      assert.ok(cur.started, 'no timestamps in the transcript: capture time');
      // The agent's own id finds it too, and a prefix.
      assert.equal(idx.findSessions('cb947e5b')[0].session, 'example-claude-code');
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a first build with the parse thread gives the same index as one in this thread', async () => {
  const a = tmp('thread-a');
  const b = tmp('thread-b');
  const saved = { s: process.env.BRAIN_INDEX_WORKER_SCRIPT, m: process.env.BRAIN_INDEX_WORKER_MIN, w: process.env.BRAIN_INDEX_WORKER };
  try {
    const script = path.join(a, 'index-worker.js');
    const { build } = await import('esbuild');
    await build({ entryPoints: [path.join(REPO, 'src/core/index/parse-worker.ts')], outfile: script, bundle: true, platform: 'node', target: 'node22', format: 'cjs', logLevel: 'warning' });
    for (const dir of [a, b]) {
      const floor = new TestFloor(dir);
      floor.fixedTime = '2026-01-01T00:00:00.000Z';
      for (const f of fixtureTranscripts()) floor.addFixture(f, 7);
      const r = rng(17);
      for (let i = 0; i < 10; i++) writeGen(floor, genCodex(r, 5), 3);
    }
    process.env.BRAIN_INDEX_WORKER = '0';
    const ia = open(rootOf(a));
    ia.update();
    process.env.BRAIN_INDEX_WORKER = '1';
    process.env.BRAIN_INDEX_WORKER_SCRIPT = script;
    process.env.BRAIN_INDEX_WORKER_MIN = '0';
    const ib = open(rootOf(b));
    const rep = ib.update();
    try {
      assert.ok(rep.files > 30);
      assert.ok(rep.parsed_ahead > 30, `the parse thread read the files (${rep.parsed_ahead})`);
      assert.deepEqual(snapshot(ib), snapshot(ia));
    } finally {
      ia.close();
      ib.close();
    }
  } finally {
    for (const [k, v] of [
      ['BRAIN_INDEX_WORKER_SCRIPT', saved.s],
      ['BRAIN_INDEX_WORKER_MIN', saved.m],
      ['BRAIN_INDEX_WORKER', saved.w],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });
  }
});

test('the raw index names every file whose complete lines hold a term, grown in chunks, with a tail and a new generation', () => {
  const dir = tmp('raw');
  try {
    const floor = new TestFloor(dir);
    const r = rng(41);
    const gens = [genClaude(r, 5), genPi(r, 5), genCodex(r, 4)];
    const parts = [
      ...fixtureTranscripts().map((f) => {
        const { lane, rel } = fixtureLane(f);
        return { lane, rel, parts: chunkLines(fs.readFileSync(path.join(FIXTURES, f)), 40 + Math.floor(r() * 40)) };
      }),
      ...gens.map((g) => ({ lane: g.lane, rel: g.rel, parts: chunkLines(Buffer.from(g.lines.join('\n') + '\n'), 3) })),
    ];
    const idx = open(rootOf(dir));
    try {
      const check = (label: string) => {
        const live = idx.liveFiles();
        const raw = new Map(live.map((f) => [f.id, fs.readFileSync(path.join(dir, f.lake_path))]));
        for (const f of live) {
          const b = raw.get(f.id)!;
          // Complete lines only: where the last newline before the claim ends.
          const end = b.subarray(0, f.claimed).lastIndexOf(10) + 1;
          assert.equal(f.raw_done, end, `${label}: ${f.lake_path}`);
        }
        // Terms: pieces of the raw lines (JSON and all, escapes included), and strings no file holds.
        const pool = [...raw.values()].map((b) => b.toString('utf8'));
        const ts = new Set(['zzqxjvwkq', '"type":"user"', 'ファイル', '\\n\\n', 'tool_use_id']);
        while (ts.size < 80) {
          const s = [...pool[Math.floor(r() * pool.length)]];
          const len = 3 + Math.floor(r() * 14);
          const at = Math.floor(r() * Math.max(1, s.length - len));
          const x = s.slice(at, at + len).join('');
          if (!x.includes('\n')) ts.add(r() < 0.3 ? x.toUpperCase() : x);
        }
        const texts = live.map((f) => ({ f, text: fold(raw.get(f.id)!.subarray(0, f.raw_done).toString('utf8')) }));
        for (const t of ts) {
          if (!indexable(t)) continue;
          const forms = rawPatterns(t)!;
          const got = idx.rawFiles(forms)!;
          for (const { f, text } of texts) {
            if (!forms.some((p) => text.includes(p))) continue;
            assert.ok(got.has(f.id), `${label}: ${JSON.stringify(t)} is in ${f.lake_path}`);
            // Each line that holds it lies in one of the chunks named (the tool tier reads only those).
            const ranges = got.get(f.id)!;
            const b = raw.get(f.id)!;
            for (let s = 0; s < f.raw_done; ) {
              const e = b.indexOf(10, s) + 1 || f.raw_done;
              const line = fold(b.subarray(s, e).toString('utf8'));
              if (forms.some((p) => line.includes(p))) {
                let inside = false;
                for (let i = 0; i < ranges.length; i += 2) if (ranges[i] <= s && e <= ranges[i + 1]) inside = true;
                assert.ok(inside, `${label}: the line at byte ${s} of ${f.lake_path} holding ${JSON.stringify(t)} is in a chunk named (${ranges.join(',')})`);
              }
              s = e;
            }
          }
          if (t === 'zzqxjvwkq') assert.equal(got.size, 0);
        }
      };
      let rounds = 0;
      while (parts.some((p) => p.parts.length > 0)) {
        for (const p of parts) {
          const part = p.parts.shift();
          if (part) floor.append(p.lane, p.rel, part);
        }
        idx.update();
        if (rounds++ % 5 === 1) check(`round ${rounds}`);
      }
      check('all');
      // A line still being written is left out until it is complete.
      const g = gens[1];
      floor.append(g.lane, g.rel, '{"type":"message","message":{"role":"user","content":"half a line with walrusquill');
      idx.update();
      const tailFile = idx.liveFiles().find((f) => f.lake_path === floor.lakePath(g.lane, g.rel))!;
      assert.ok(tailFile.raw_done < tailFile.claimed);
      assert.equal(idx.rawFiles(rawPatterns('walrusquill')!)!.size, 0);
      floor.append(g.lane, g.rel, ' done"}}\n');
      idx.update();
      assert.deepEqual([...idx.rawFiles(rawPatterns('WalrusQuill')!)!.keys()], [tailFile.id]);
      check('tail');
      // A new generation: both generations stay in the raw index (every generation is searched),
      // each named for what it holds.
      const c = gens[0];
      const g1 = idx.liveFiles().find((f) => f.lake_path === floor.lakePath(c.lane, c.rel))!;
      floor.append(c.lane, c.rel, `${JSON.stringify({ type: 'user', sessionId: c.session, cwd: '/w', timestamp: '2026-05-01T00:00:00Z', message: { role: 'user', content: 'only in g2 marmotquill' } })}\n`, { gen: 2, session: c.session });
      idx.update();
      const g2 = idx.liveFiles().find((f) => f.base === g1.base && f.gen === 2);
      assert.ok(g2, 'generation 2 is indexed');
      assert.deepEqual([...idx.rawFiles(rawPatterns('MarmotQuill')!)!.keys()], [g2.id]);
      const everything = idx.rawFiles(rawPatterns('"type"')!)!;
      assert.ok(everything.has(g1.id) && everything.has(g2.id), 'both generations are named');
      check('generation');
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a first build writes its turns several a statement without cutting the FTS index into a segment per file', () => {
  const dir = tmp('segments');
  try {
    const floor = new TestFloor(dir);
    const r = rng(29);
    // Sessions of more turns than a multi-row insert takes, and a second generation among them
    // (its older copies leave the FTS index mid-batch).
    for (let i = 0; i < 40; i++) writeGen(floor, genClaude(r, 30));
    const g = genClaude(r, 30);
    writeGen(floor, g);
    floor.append(g.lane, g.rel, Buffer.from(g.lines.slice(0, 40).join('\n') + '\n'), { gen: 2 });
    const idx = open(rootOf(dir));
    try {
      const rep = idx.update();
      assert.ok(rep.files >= 41 && rep.turns > 40 * 60, JSON.stringify(rep));
      // (How many segments the build flushed was read from FTS5's per-turn origins, which the
      // index no longer keeps since schema 12.)
      const said = idx.db.prepare(`SELECT count(*) FROM turns WHERE said = 1`).pluck().get() as number;
      assert.equal(ftsRows(idx), said, 'one FTS row per said turn, none for the older copies');
      // The second generation's turns are found in it, not in the first.
      const term = fold(g.lines.length ? (JSON.parse(g.lines[0]) as { message: { content: string } }).message.content.slice(0, 40) : '');
      const m = idx.match(term);
      assert.equal(m.length, 1);
      assert.ok(m[0].ids.every((id) => (idx.db.prepare(`SELECT f.gen FROM turns t JOIN files f ON f.id = t.file_id WHERE t.id = ?`).pluck().get(id) as number) === 2));
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
