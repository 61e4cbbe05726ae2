// The turn index's FTS5 table keeps no per-turn sizes (schema 12): a turn leaves it by FTS5's
// 'delete' with the text it was written with. These check that what leaves it leaves exactly: a
// resumed file's cut turns and a rewritten file's older copies keep no posting behind (the same
// postings as one build of the end state), so a search never finds what a turn no longer says.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../../helpers/env';
import type { TurnIndex } from '../../../src/core/index/turnindex';
import type { Root } from '../../../src/core/index/roots';
import { PAGE_SIZE, SCHEMA_VERSION } from '../../../src/core/index/turnindex/schema';
import { TestFloor, fixtureTranscripts, fixtureLane, chunkLines, tmpDir as tmp, rootOf, openRoot as open, feedInPieces } from './floor';
import { genClaude, genCodex, genPi, rng } from './gen';
import { ftsRows, ftsTerms } from './fts';


function said(idx: TurnIndex): number {
  return idx.db.prepare(`SELECT count(*) FROM turns WHERE said = 1`).pluck().get() as number;
}

/** One build of a copy of the floor as it is now: what an index kept current must equal. */
function oneBuild(dir: string): { terms: [string, number, number][]; rows: number } {
  const copy = tmp('fts-whole');
  try {
    for (const d of ['lake', 'manifest']) fs.cpSync(path.join(dir, d), path.join(copy, d), { recursive: true });
    const idx = open(rootOf(copy));
    try {
      idx.update();
      return { terms: ftsTerms(idx), rows: ftsRows(idx) };
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

test('the FTS index keeps no per-turn sizes and the file has 16 KB pages', () => {
  const dir = tmp('fts-layout');
  try {
    const floor = new TestFloor(dir);
    const g = genClaude(rng(41), 20);
    floor.append(g.lane, g.rel, g.lines.join('\n') + '\n');
    const idx = open(rootOf(dir));
    try {
      idx.update();
      assert.equal(idx.db.prepare(`SELECT v FROM meta WHERE k = 'schema'`).pluck().get(), SCHEMA_VERSION);
      const tables = idx.db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'turns_fts%' ORDER BY name`).pluck().all();
      assert.deepEqual(tables, ['turns_fts', 'turns_fts_config', 'turns_fts_data', 'turns_fts_idx']);
      assert.equal(idx.db.pragma('page_size', { simple: true }), PAGE_SIZE);
      assert.equal(PAGE_SIZE, 16384);
      assert.equal(ftsRows(idx), said(idx));
      // A finished file keeps the text of the turns its next read may cut, not of every turn.
      const tails = idx.db.prepare(`SELECT count(*) FROM said_tail`).pluck().get() as number;
      assert.ok(tails >= 1 && tails <= 2, `${tails} texts kept`);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('files read again from their checkpoint after every few lines keep no posting of the turns cut', () => {
  const dir = tmp('fts-grow');
  try {
    const floor = new TestFloor(dir);
    floor.fixedTime = '2026-01-01T00:00:00.000Z';
    const r = rng(43);
    const parts = [
      ...fixtureTranscripts().slice(0, 8).map((f) => ({ ...fixtureLane(f), parts: chunkLines(fs.readFileSync(path.join(FIXTURES, f)), 1 + Math.floor(r() * 5)) })),
      ...[genClaude(r, 8), genPi(r, 8), genCodex(r, 6)].map((g) => ({ lane: g.lane, rel: g.rel, parts: chunkLines(Buffer.from(g.lines.join('\n') + '\n'), 1) })),
    ];
    const idx = open(rootOf(dir));
    try {
      assert.ok(feedInPieces(floor, parts, () => idx.update()) > 10);
      const whole = oneBuild(dir);
      assert.equal(ftsRows(idx), said(idx));
      assert.equal(ftsRows(idx), whole.rows);
      assert.deepEqual(ftsTerms(idx), whole.terms);
      // Every text kept is a said turn's.
      assert.equal(idx.db.prepare(`SELECT count(*) FROM said_tail WHERE id NOT IN (SELECT id FROM turns WHERE said = 1)`).pluck().get(), 0);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a rewritten file's older copies leave the FTS index exactly, and what only they hold stays found", () => {
  const dir = tmp('fts-gen');
  try {
    const floor = new TestFloor(dir);
    const g = genClaude(rng(47), 12);
    floor.append(g.lane, g.rel, g.lines.join('\n') + '\n');
    const idx = open(rootOf(dir));
    try {
      idx.update();
      const prompts = g.lines.map((l) => JSON.parse(l).message.content).filter((c): c is string => typeof c === 'string');
      const first = prompts[0];
      const last = prompts[prompts.length - 1];
      assert.equal(idx.match(first.slice(0, 30).toLowerCase())[0].count, 1);
      // Generation 2 holds the first half again, then turns of its own, in two captures.
      const half = g.lines.slice(0, 12);
      const fresh = (i: number) => JSON.stringify({ type: 'user', sessionId: g.session, cwd: '/work/x', timestamp: `2026-05-01T00:00:0${i}Z`, message: { role: 'user', content: `a rewritten quillfinch prompt ${i}` } });
      floor.append(g.lane, g.rel, half.join('\n') + '\n', { gen: 2, session: g.session });
      idx.update();
      floor.append(g.lane, g.rel, [fresh(1), fresh(2)].join('\n') + '\n', { gen: 2, session: g.session });
      idx.update();
      const whole = oneBuild(dir);
      assert.equal(ftsRows(idx), said(idx));
      assert.equal(ftsRows(idx), whole.rows);
      assert.deepEqual(ftsTerms(idx), whole.terms);
      // The shared first prompt is found once (in generation 2); what only generation 1 holds is
      // found there; generation 2's own turns are found.
      const shared = idx.match(first.slice(0, 30).toLowerCase());
      assert.equal(shared.length, 1);
      assert.equal(shared[0].count, 1);
      assert.equal(idx.file(idx.turn(shared[0].ids[0])!.file_id)!.gen, 2);
      assert.equal(idx.file(idx.turn(idx.match(last.slice(0, 30).toLowerCase())[0].ids[0])!.file_id)!.gen, 1);
      assert.equal(idx.match('quillfinch')[0].count, 2);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
