// A block's turns packed in one row (turnpack.ts) come back exactly as written: gaps in the ids
// (turns read again leave them), several files, times as numbers far apart, as text, or none, and
// keys up to 48 bits.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodePack, encodePack, KEY_MAX, packKeyed, type TurnRow } from '../../../src/core/index/turnindex/turnpack';
import { readTurns } from '../../../src/core/index/read';
import { isSaid, turnKey } from '../../../src/core/turns';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { TestFloor } from './floor';
import { genClaude, rng } from './gen';

function turn(id: number, over: Partial<TurnRow> = {}): TurnRow {
  return { id, file_id: 7, n: id % 256, role: 'u', side: 0, ts: 1_700_000_000_000 + id, line_from: id * 3, line_to: id * 3 + 1, byte_from: id * 900, byte_to: id * 900 + 850, said: 1, key: id * 7919, ...over };
}

test('a pack gives back every field of its turns, in order', () => {
  const block = 5;
  const base = block * 256;
  const turns: TurnRow[] = [
    turn(base, { ts: null, key: 0 }),
    turn(base + 1, { role: 'a', side: 1, said: 0, ts: '2024-13-45 not a time ü' }),
    turn(base + 2, { ts: -8.64e15, key: 2 ** 48 - 1 }),
    turn(base + 3, { ts: 8.64e15, file_id: 3, n: 0, line_from: 0, line_to: 0, byte_from: 0, byte_to: 0 }),
    // A gap: the ids a resume deleted.
    turn(base + 40, { role: 's', file_id: 9, byte_from: 2 ** 40, byte_to: 2 ** 40 + 5 }),
    turn(base + 41, { line_from: 5, line_to: 2, byte_from: 10, byte_to: 4 }),
    turn(base + 255),
  ];
  const packed = encodePack(block, turns);
  assert.deepEqual(decodePack(block, packed), turns);
  // Without keys, each turn has one of its own past 48 bits.
  assert.deepEqual(decodePack(block, encodePack(block, turns, false)), turns.map((t) => ({ ...t, key: KEY_MAX + t.id })));
  assert.equal(encodePack(block, turns, false).length, packed.length - 6 * turns.length);
  assert.deepEqual(decodePack(block, encodePack(block, [])), []);
  // Short turns one after another take a few bytes each besides their key.
  const run = Array.from({ length: 200 }, (_, i) => turn(base + i));
  assert.ok(encodePack(block, run).length < 200 * 20, `${encodePack(block, run).length} bytes for 200 turns`);
  // Turns each starting on the line and byte after the one before ends (most of a file's) keep
  // their n and start in one byte: 12 bytes a turn here (6 of them the key; the first time 8).
  const next = Array.from({ length: 200 }, (_, i) => turn(base + i, { n: i + 1, line_from: 2 * i + 1, line_to: 2 * i + 2, byte_from: 900 * i, byte_to: 900 * (i + 1) }));
  assert.deepEqual(decodePack(block, encodePack(block, next)), next);
  assert.ok(encodePack(block, next).length <= 200 * 12 + 8, `${encodePack(block, next).length} bytes for 200 turns that follow each other`);
});

test('a pack refuses turns out of order, outside its block, or with a key past 48 bits', () => {
  assert.throws(() => encodePack(1, [turn(300), turn(299)]), /out of order/);
  assert.throws(() => encodePack(1, [turn(600)]), /out of order/);
  assert.throws(() => encodePack(1, [turn(300, { key: 2 ** 48 })]), /key out of range/);
});

test('an index keeps one row a block for its turns, read back alike by id and through the turns view', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-packs-'));
  try {
    const floor = new TestFloor(dir);
    const r = rng(41);
    for (const n of [3, 150, 400]) {
      const g = genClaude(r, n);
      floor.append(g.lane, g.rel, Buffer.from(g.lines.join('\n') + '\n'));
    }
    const o = openIndex(homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir));
    assert.ok(o.ok);
    const idx = o.index;
    try {
      idx.update();
      const blocks = idx.db.prepare(`SELECT count(*) FROM blocks`).pluck().get() as number;
      const packs = idx.db.prepare(`SELECT count(*) FROM turn_packs`).pluck().get() as number;
      assert.equal(packs, blocks);
      const all = idx.db.prepare(`SELECT * FROM turns ORDER BY id`).all() as TurnRow[];
      assert.ok(all.length > 500, `${all.length} turns`);
      const ids = all.map((t) => t.id);
      assert.deepEqual(idx.turnsByIds(ids), all);
      assert.deepEqual(idx.turn(ids[ids.length - 1]), all[all.length - 1]);
      assert.equal(idx.turn(ids[ids.length - 1] + 1), undefined);
      // Packed, a turn costs a fraction of the ~46-byte row it had.
      const bytes = idx.db.prepare(`SELECT sum(length(data)) FROM turn_packs`).pluck().get() as number;
      assert.ok(bytes < all.length * 24, `${bytes} bytes for ${all.length} turns`);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a session's packs keep no keys until a file of it is rewritten; then each has its turn's key", () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-keys-'));
  try {
    const floor = new TestFloor(dir);
    const r = rng(53);
    const g = genClaude(r, 300);
    const other = genClaude(r, 20);
    floor.append(g.lane, g.rel, Buffer.from(g.lines.join('\n') + '\n'));
    floor.append(other.lane, other.rel, Buffer.from(other.lines.join('\n') + '\n'));
    const o = openIndex(homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir));
    assert.ok(o.ok);
    const idx = o.index;
    const packs = (sess: number) => idx.db.prepare(`SELECT p.data FROM turn_packs p JOIN blocks b ON b.id = p.id WHERE b.sess_id = ?`).pluck().all(sess) as Buffer[];
    const sessOf = (lp: string) => idx.db.prepare(`SELECT sess_id FROM files WHERE lake_path = ?`).pluck().get(lp) as number;
    const keysOf = (lp: string) => idx.db.prepare(`SELECT t.key FROM turns t JOIN files f ON f.id = t.file_id WHERE f.lake_path = ? ORDER BY t.id`).pluck().all(lp) as number[];
    const truth = (lp: string) => readTurns(path.join(dir, lp), g.lane, g.rel, { full: false })!.turns.filter(isSaid).map((t) => turnKey(t));
    try {
      idx.update();
      const s = sessOf(floor.lakePath(g.lane, g.rel));
      assert.ok(packs(s).length >= 2);
      assert.ok(packs(s).every((p) => !packKeyed(p)));
      assert.ok(keysOf(floor.lakePath(g.lane, g.rel)).every((k) => k >= KEY_MAX));
      const before = idx.findSessions(g.session)[0].turns;
      // Rewritten: generation 2 keeps the first 100 lines. Every pack of the session is written
      // again with keys, generation 1's read again for them; the other session keeps none.
      floor.append(g.lane, g.rel, Buffer.from(g.lines.slice(0, 100).join('\n') + '\n'), { gen: 2, session: g.session });
      idx.update();
      assert.ok(packs(s).every((p) => packKeyed(p)));
      assert.ok(packs(sessOf(floor.lakePath(other.lane, other.rel))).every((p) => !packKeyed(p)));
      assert.deepEqual(keysOf(floor.lakePath(g.lane, g.rel)), truth(floor.lakePath(g.lane, g.rel)));
      assert.deepEqual(keysOf(floor.lakePath(g.lane, g.rel, 2)), truth(floor.lakePath(g.lane, g.rel, 2)));
      // The turns generation 2 shares with 1 count once.
      assert.equal(idx.findSessions(g.session)[0].turns, before);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
