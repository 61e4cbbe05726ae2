// The raw index's lists (src/core/index/turnindex/rawpost.ts): a key most chunks hold is kept as
// a bitmap (about a bit a chunk, not a byte), and every list still names exactly the chunks that
// hold its key, dense or sparse, written by a first build or appended to, across segments.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openIndex, type TurnIndex } from '../../../src/core/index/turnindex';
import { SCHEMA_VERSION } from '../../../src/core/index/turnindex/schema';
import { homeRoot } from '../../../src/core/index/roots';
import { rawTrigramKeys } from '../../../src/core/index/trigrams';
import { rawPatterns } from '../../../src/core/recall/scan';
import { TestFloor } from './floor';

const FILES = 2200;

function line(session: string, text: string): string {
  return `${JSON.stringify({ type: 'user', sessionId: session, cwd: '/w', timestamp: '2026-05-01T00:00:00Z', message: { role: 'user', content: text } })}\n`;
}

test('a key most chunks hold is a bitmap; dense and sparse lists name exactly their chunks, built and appended', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-rawpost-'));
  try {
    const floor = new TestFloor(dir);
    const rel = (i: number) => `-w/${String(i).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`;
    const word = (i: number) => `kq${i.toString(36)}zv`;
    for (let i = 0; i < FILES; i++) {
      const extra = `${i % 2 ? ' oddlingword' : ''}${i % 7 === 0 ? ' septimalword' : ''} ${word(i)}`;
      floor.append('cc', rel(i), line(`s${i}`, `plain common text${extra}`));
    }
    const o = openIndex(homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir));
    assert.ok(o.ok, o.ok ? '' : o.reason);
    const idx = o.index;
    try {
      idx.update();
      // A second chunk for every file: the lists grow past one segment's ids (8 bits a byte).
      for (let i = 0; i < FILES; i++) floor.append('cc', rel(i), line(`s${i}`, `plain common text again${i % 3 === 0 ? ' tertialword' : ''}`));
      idx.update();
      const byPath = new Map(idx.liveFiles().map((f) => [f.lake_path, f.id]));
      const ids = (pick: (i: number) => boolean) => new Set(Array.from({ length: FILES }, (_, i) => i).filter(pick).map((i) => byPath.get(floor.lakePath('cc', rel(i)))!));
      const named = (term: string) => new Set(idx.rawFiles(rawPatterns(term)!)!.keys());
      assert.deepEqual(named('Common Text'), ids(() => true));
      assert.deepEqual(named('oddlingword'), ids((i) => i % 2 === 1));
      assert.deepEqual(named('septimalword'), ids((i) => i % 7 === 0));
      assert.deepEqual(named('tertialword'), ids((i) => i % 3 === 0));
      assert.deepEqual(named(word(1234)), ids((i) => i === 1234));
      // Each chunk is named with its own byte range: the second line's for the appended word.
      const f = byPath.get(floor.lakePath('cc', rel(3)))!;
      const first = Buffer.byteLength(line('s3', `plain common text ${word(3)}`)) + Buffer.byteLength(' oddlingword');
      assert.deepEqual(idx.rawFiles(rawPatterns('tertialword')!)!.get(f), [first, first + Buffer.byteLength(line('s3', 'plain common text again tertialword'))]);
      // 'mmo' is in all 4,400 chunks: a bit each (a varint delta took a byte each).
      const k = rawTrigramKeys(Buffer.from('mmo'), 0, 3)[0];
      const bytes = idx.db.prepare(`SELECT sum(length(ids)) FROM raw_post WHERE k >= ? AND k < ?`).pluck().get(k * 2 ** 20, (k + 1) * 2 ** 20) as number;
      assert.ok(bytes <= (2 * FILES) / 8 + 32, `${bytes} bytes for ${2 * FILES} chunks`);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an index an older brain built (schema 9, varint lists) is built again in the new layout, with the same answers', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-rawup-'));
  try {
    const floor = new TestFloor(dir);
    for (let i = 0; i < 300; i++) floor.append('cc', `-w/${String(i).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`, line(`s${i}`, `plain common text${i % 2 ? ' oddlingword' : ''}`));
    const root = homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir);
    const answers = (idx: TurnIndex) => ['common text', 'oddlingword', 'plain'].map((t) => [[...idx.rawFiles(rawPatterns(t)!)!.keys()].length, idx.match(t).length]);
    let o = openIndex(root);
    assert.ok(o.ok);
    o.index.update();
    const fresh = answers(o.index);
    const n = o.index.db.prepare(`SELECT count(*) FROM raw_post`).pluck().get() as number;
    // What schema 9 left: its version, and each list as varint deltas, which read as garbage now.
    o.index.db.prepare(`UPDATE meta SET v = '9' WHERE k = 'schema'`).run();
    o.index.db.prepare(`UPDATE raw_post SET ids = x'01020304'`).run();
    o.index.close();
    o = openIndex(root);
    assert.ok(o.ok, o.ok ? '' : o.reason);
    try {
      assert.equal(o.index.db.prepare(`SELECT count(*) FROM raw_post`).pluck().get(), 0, 'the old lists are dropped');
      o.index.update();
      assert.equal(o.index.db.prepare(`SELECT v FROM meta WHERE k = 'schema'`).pluck().get(), SCHEMA_VERSION);
      assert.equal(o.index.db.prepare(`SELECT count(*) FROM raw_post`).pluck().get(), n);
      assert.deepEqual(answers(o.index), fresh);
      assert.deepEqual(fresh, [[300, 300], [150, 150], [300, 300]]);
      // Built as a first build is, in a new file: merged once, finished, nothing left free.
      assert.equal(o.index.db.prepare(`SELECT v FROM meta WHERE k = 'building'`).pluck().get(), '0');
      assert.equal(o.index.db.pragma('freelist_count', { simple: true }), 0);
    } finally {
      o.index.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an update of a few lines (small flush, its own key slots) writes the same lists as a first build (one large flush)', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-rawsmall-'));
  try {
    const floor = new TestFloor(dir);
    const root = homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir);
    const rel = (i: number) => `-w/${String(i).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`;
    // ASCII and wide (hashed) trigrams, words shared by many files and words of one file each.
    const text = (i: number) =>
      `plain common text ${'filler words that make the line long enough '.repeat(6)} kq${i.toString(36)}zv` +
      `${i % 3 ? ' ünïcødé grüße' : ''}${i % 5 ? ' 検索の言葉' : ''}${i % 2 ? ' oddlingword' : ''}`;
    const terms = ['common text', 'ünïcødé', 'grüße', '検索の言葉', 'oddlingword', 'kq0zv', 'kq2szv', 'kq7rzv', 'filler'];
    const answers = (idx: TurnIndex) => terms.map((t) => [...(idx.rawFiles(rawPatterns(t)!) ?? new Map()).entries()].sort((a, b) => a[0] - b[0]));
    let o = openIndex(root);
    assert.ok(o.ok);
    // One file at a time: every flush is small.
    for (let i = 0; i < 300; i++) {
      floor.append('cc', rel(i), line(`s${i}`, text(i)));
      o.index.update();
    }
    const small = answers(o.index);
    o.index.close();
    fs.rmSync(root.index);
    o = openIndex(root);
    assert.ok(o.ok);
    try {
      // All 300 in one update: one flush of ~90k keys, the ASCII table's slots.
      o.index.update();
      assert.deepEqual(answers(o.index), small);
      assert.ok(small.every((a) => a.length > 0), 'every term is found');
      assert.equal(small[4].length, 150);
    } finally {
      o.index.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
