// Red team: a session of hundreds of MB stalled capture. The index parsed each file in one job, so a
// parse thread (256 MB heap) ran out of memory on it; the failure went unseen and the index waited
// 60 s + 1 s per MB for an answer before parsing the file itself, whole, in the writing thread
// (its memory the size of the file); `brain watch` captured nothing meanwhile. Now a file is parsed
// in pieces (each resumed from the last one's checkpoint, as if the file had grown by a piece at a
// time), which must give exactly the index one whole read gives; a parse thread that dies is
// noticed within seconds and said; and `brain watch` keeps capturing while the index of a large
// session is brought up.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, FIXTURES, REPO, sandbox } from '../helpers/env';
import type { TurnIndex } from '../../src/core/index/turnindex';
import { TestFloor, fixtureTranscripts, tmpDir as tmp, rootOf, openRoot as open } from '../core/index/floor';
import { genClaude, genCodex, genPi, rng } from '../core/index/gen';
import Database from 'better-sqlite3';

function snapshot(idx: TurnIndex) {
  return {
    turns: idx.db
      .prepare(`SELECT f.lake_path, t.n, t.role, t.side, t.said, t.line_from, t.line_to, t.byte_from, t.byte_to FROM turns t JOIN files f ON f.id = t.file_id ORDER BY f.lake_path, t.n`)
      .raw()
      .all(),
    files: idx.db.prepare(`SELECT lake_path, done, claimed, raw_done, lines, bad FROM files ORDER BY lake_path`).raw().all(),
    sessions: idx.db.prepare(`SELECT machine, lane, session, native, project, title, started, ended, turns FROM sessions ORDER BY session`).raw().all(),
    fts: ['the', 'ファイル', 'todowrite', 'green and', 'ing ', '"double"'].map((t) =>
      idx
        .match(t)
        .map((m) => [idx.session(m.sess_id)!.session, m.count])
        .sort(),
    ),
    // The tool tier's raw index names the same files for each term.
    raw: ['the', 'tool_use', 'function_call', 'zzzqqq'].map((t) => [...(idx.rawFiles([t]) ?? new Map()).keys()].map((id) => idx.file(id)!.lake_path).sort()),
  };
}

/** Bytes the turn index has yet to read of this floor's files (the index read alone, as a
 * search in another process would). */
function bytesBehind(home: string): number {
  const db = new Database(path.join(home, 'turns.sqlite'), { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return Number(db.prepare('SELECT coalesce(sum(claimed - done), 0) FROM files WHERE live = 1').pluck().get());
  } finally {
    db.close();
  }
}

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function floorIn(dir: string): void {
  const floor = new TestFloor(dir);
  floor.fixedTime = '2026-01-01T00:00:00.000Z';
  for (const f of fixtureTranscripts()) floor.addFixture(f, 5);
  const r = rng(29);
  for (const g of [genClaude(r, 40), genPi(r, 30), genCodex(r, 30)]) floor.append(g.lane, g.rel, Buffer.from(g.lines.join('\n') + '\n'));
}

async function workerScript(dir: string): Promise<string> {
  const script = path.join(dir, 'index-worker.js');
  const { build } = await import('esbuild');
  await build({ entryPoints: [path.join(REPO, 'src/core/index/parse-worker.ts')], outfile: script, bundle: true, platform: 'node', target: 'node22', format: 'cjs', logLevel: 'warning' });
  return script;
}

test('a file read in pieces (here 2 KiB, in this thread and in parse threads) gives the index one whole read gives', async () => {
  const dirs = ['whole', 'pieces', 'threads'].map((n) => tmp(`piece-${n}`));
  try {
    for (const d of dirs) floorIn(d);
    const script = await workerScript(dirs[2]);
    const build = (dir: string, env: Record<string, string | undefined>) =>
      withEnv(env, () => {
        const idx = open(rootOf(dir));
        const rep = idx.update();
        return { idx, rep };
      });
    const whole = build(dirs[0], { BRAIN_INDEX_WORKER: '0' });
    const pieces = build(dirs[1], { BRAIN_INDEX_WORKER: '0', BRAIN_INDEX_PIECE_BYTES: '2048' });
    const threads = build(dirs[2], { BRAIN_INDEX_WORKER: '1', BRAIN_INDEX_WORKER_SCRIPT: script, BRAIN_INDEX_WORKER_MIN: '0', BRAIN_INDEX_PIECE_BYTES: '2048' });
    try {
      assert.ok(threads.rep.parsed_ahead > 10, `parse threads read pieces (${threads.rep.parsed_ahead})`);
      for (const b of [pieces, threads]) assert.ok((b.rep.pieces ?? 0) > 50 && (b.rep.whole ?? 0) < (b.rep.pieces ?? 0) / 2, `read in pieces: ${JSON.stringify(b.rep)}`);
      assert.equal(whole.rep.pieces, undefined);
      for (const b of [pieces, threads]) assert.deepEqual([b.rep.files, b.rep.turns], [whole.rep.files, whole.rep.turns], 'reported once each');
      assert.equal(threads.rep.thread_failed, undefined);
      const want = snapshot(whole.idx);
      assert.ok(want.turns.length > 500);
      assert.deepEqual(snapshot(pieces.idx), want);
      assert.deepEqual(snapshot(threads.idx), want);
    } finally {
      for (const b of [whole, pieces, threads]) b.idx.close();
    }
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
});

test('a parse thread that dies is noticed within seconds and said; the index is still complete', async () => {
  const dirs = ['ok', 'dies'].map((n) => tmp(`dies-${n}`));
  try {
    for (const d of dirs) floorIn(d);
    // A worker that dies on its first job, as one out of its heap does: no answer, no event the
    // waiting thread could run.
    const script = path.join(dirs[1], 'dying-worker.js');
    fs.writeFileSync(script, `const { parentPort, workerData } = require('node:worker_threads');\nif (workerData?.brainParseWorker) workerData.port.on('message', () => process.exit(7));\n`);
    const want = withEnv({ BRAIN_INDEX_WORKER: '0' }, () => {
      const idx = open(rootOf(dirs[0]));
      idx.update();
      const s = snapshot(idx);
      idx.close();
      return s;
    });
    const t0 = Date.now();
    const { rep, got } = withEnv({ BRAIN_INDEX_WORKER: '1', BRAIN_INDEX_WORKER_SCRIPT: script, BRAIN_INDEX_WORKER_MIN: '0' }, () => {
      const idx = open(rootOf(dirs[1]));
      const rep = idx.update();
      const got = snapshot(idx);
      idx.close();
      return { rep, got };
    });
    const ms = Date.now() - t0;
    assert.match(rep.thread_failed ?? '', /stopped answering/);
    assert.ok(ms < 30_000, `noticed in ${ms} ms (it waited a minute and more)`);
    assert.deepEqual(got, want);
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
});

test('brain watch keeps capturing while a large session is indexed', async (t) => {
  const sb = sandbox({ name: 'rt-huge-watch' });
  const proj = path.join(sb.home, '.claude', 'projects', '-big');
  fs.mkdirSync(proj, { recursive: true });
  const small = path.join(proj, 'small.jsonl');
  fs.copyFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'), small);
  const w = spawn(process.execPath, [CLI, 'watch'], { env: { ...sb.env, BRAIN_QUIET_SECONDS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  w.stdout.on('data', (d) => (out += d));
  w.stderr.on('data', (d) => (out += d));
  const until = async (what: string, ok: () => boolean, ms: number, every = 50) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) assert.fail(`timed out (${ms} ms) waiting for ${what}:\n${out}`);
      await new Promise((r) => setTimeout(r, every));
    }
  };
  try {
    await until('catch-up', () => out.includes('watching'), 60_000);
    // A large session: the fixture's lines many times over (about 200 MB), written at once.
    const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl'));
    // Made beside and moved in whole: a line caught half-written is not what this is about.
    const big = path.join(proj, 'big.jsonl');
    const making = path.join(sb.dir, 'big.jsonl');
    const fd = fs.openSync(making, 'w');
    for (let n = 0; n < (200 << 20) / src.length; n++) fs.writeSync(fd, src);
    fs.closeSync(fd);
    fs.renameSync(making, big);
    const bigLake = path.join(sb.brain, 'lake', 'cc', '-big', 'big.jsonl');
    await until('the large session captured', () => fs.existsSync(bigLake) && fs.statSync(bigLake).size === fs.statSync(big).size, 120_000);
    // While its index is brought up: a line appended to another session is captured at once.
    const line = '{"type":"user","message":{"role":"user","content":"while the index works"},"uuid":"u-live","timestamp":"2026-01-01T00:00:00Z"}\n';
    fs.appendFileSync(small, line);
    const t0 = Date.now();
    const smallLake = path.join(sb.brain, 'lake', 'cc', '-big', 'small.jsonl');
    await until('the append captured', () => fs.readFileSync(smallLake).equals(fs.readFileSync(small)), 60_000);
    const ms = Date.now() - t0;
    // Captured while the large session's index was still being brought up: capture did not wait
    // for it (before, the pass waited for the whole update).
    const left = bytesBehind(sb.brain);
    t.diagnostic(`the append was captured ${ms} ms after it was written, with ${left} bytes of the large session not indexed yet`);
    assert.ok(left > 0, `captured in ${ms} ms, after the index was done`);
    // The index comes up too, in time.
    await until('the large session indexed', () => bytesBehind(sb.brain) === 0, 600_000, 1000);
  } finally {
    w.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    w.kill('SIGKILL');
    sb.cleanup();
  }
});
