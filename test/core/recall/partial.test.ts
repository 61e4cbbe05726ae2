// The tool tier's partial read (recall/partial.ts): reading only the raw index's matched chunks and
// parsing from the kept checkpoint before each match gives what parsing the whole file gives, for
// every fixture transcript (several over the checkpoint spacing), whole or captured in pieces.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openIndex, type TurnIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rawPatterns, scanFile, type FileScan, type FloorFile } from '../../../src/core/recall/scan';
import { scanParts } from '../../../src/core/recall/partial';
import { markBefore } from '../../../src/core/recall/indexmemo';
import { search } from '../../../src/core/recall';
import { RAW_MARK } from '../../../src/core/index/parse-job';
import { TestFloor, chunkLines, fixtureLane, fixtureTranscripts } from '../index/floor';
import { REPO } from '../../helpers/env';
import { rng } from '../index/gen';

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

function floorFile(idx: TurnIndex, dir: string, id: number): FloorFile {
  const fr = idx.liveFiles().find((f) => f.id === id)!;
  const mf = homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir).machines[0];
  return { mf, lake_path: fr.lake_path, lane: fr.lane, session: String(fr.sess_id), gen: fr.gen, base: fr.base, to: fr.claimed, unterminated: !!fr.unterminated, first_seen: null, last_seen: null };
}

/** What a scan says, without the file it read. */
/** What each session of a file holds (a file of Aider's gathers several). */
function said(scans: FileScan[] | null) {
  const out = (scans ?? [])
    .filter((s) => s.toolCount + s.textCount > 0)
    .map((s) => ({ session: s.file.session, textCount: s.textCount, text: s.text, textKeys: s.textKeys, toolCount: s.toolCount, tool: s.tool, toolKeys: s.toolKeys }));
  return out.length ? out : null;
}

/** Terms a file holds: pieces of its lines (some of them in another case), and of its longest
 * lines (tool output, mostly) more often. */
function termsOf(bytes: Buffer, r: () => number, n: number): string[] {
  const lines = bytes.toString('utf8').split('\n').filter((l) => l.length > 20);
  const long = [...lines].sort((a, b) => b.length - a.length).slice(0, 5);
  const out = new Set<string>();
  for (let i = 0; i < n * 4 && out.size < n; i++) {
    const pool = r() < 0.5 ? long : lines;
    const l = pool[Math.floor(r() * pool.length)];
    if (!l) break;
    const len = 4 + Math.floor(r() * 12);
    const at = Math.floor(r() * Math.max(1, l.length - len));
    const t = l.slice(at, at + len);
    // A term holds no quote or backslash (its raw form differs), and something to match on.
    if (/["\\]/.test(t) || t.trim().length < 4) continue;
    out.add(r() < 0.3 ? t.toUpperCase() : t);
  }
  return [...out];
}

test('reading only the matched chunks from the checkpoint before each match finds what a whole parse finds', () => {
  const dir = tmp('partial');
  try {
    const floor = new TestFloor(dir);
    const fixtures = fixtureTranscripts();
    const o = openIndex(homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir));
    assert.ok(o.ok);
    const idx = o.index;
    try {
      // Half of them whole, half captured and indexed in pieces: several chunks a file, and
      // checkpoints from resumed parses.
      const pieces = fixtures.map((f, i) => {
        const { lane, rel } = fixtureLane(f);
        return { lane, rel, parts: i % 2 ? chunkLines(fs.readFileSync(path.join(REPO, 'test', 'fixtures', f)), 40) : [] };
      });
      for (const [i, f] of fixtures.entries()) if (i % 2 === 0) floor.addFixture(f);
      idx.update();
      while (pieces.some((p) => p.parts.length)) {
        for (const p of pieces) {
          const part = p.parts.shift();
          if (part) floor.append(p.lane, p.rel, part);
        }
        idx.update();
      }
      const r = rng(7);
      let compared = 0;
      let big = 0;
      let parts = 0;
      for (const fr of idx.liveFiles()) {
        const file = floorFile(idx, dir, fr.id);
        const bytes = fs.readFileSync(path.join(dir, fr.lake_path));
        if (bytes.length > 3 * RAW_MARK) big++;
        if (bytes.length > 2 * RAW_MARK && fr.lake_path.endsWith('.jsonl')) {
          const marks = Number(idx.db.prepare(`SELECT count(*) FROM raw_marks WHERE file_id = ?`).pluck().get(fr.id));
          assert.ok(marks > 0, `${fr.lake_path}: checkpoints kept`);
        }
        for (const term of termsOf(bytes, r, bytes.length > 3 * RAW_MARK ? 40 : 12)) {
          const forms = rawPatterns(term)!;
          const ranges = idx.rawFiles(forms)!.get(fr.id);
          const whole = said(scanFile(file, term, 1000, false));
          if (!ranges) {
            assert.equal(whole, null, `${fr.lake_path}: ${JSON.stringify(term)} is found by a whole parse but its chunks are not named`);
            continue;
          }
          if (ranges.length > 2) parts++;
          const part = said(scanParts(file, term, 1000, ranges, forms, (b) => markBefore(idx, fr.id, b)));
          assert.deepEqual(part, whole, `${fr.lake_path}: ${JSON.stringify(term)}`);
          compared++;
        }
      }
      // Two fixtures span three or more of the 128 KB spacings (460 KB and 974 KB: 3 and 7 marks).
      assert.ok(big >= 2, `fixtures over the checkpoint spacing: ${big}`);
      assert.ok(parts > 0, 'some files are several chunks');
      assert.ok(compared > 200, `compared ${compared}`);
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a file whose chunk holds every trigram of a term but not the term is dropped without a parse into a hit', () => {
  const dir = tmp('partial-fp');
  try {
    const floor = new TestFloor(dir);
    const lines = [
      { type: 'session', version: 3, id: 's-fp', timestamp: '2026-03-01T10:00:00Z', cwd: '/w' },
      { type: 'message', timestamp: '2026-03-01T10:00:01Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'walrusqu and squill' }] } },
    ];
    floor.append('pi', '--w--/s-fp.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { session: 's-fp' });
    const o = openIndex(homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir));
    assert.ok(o.ok);
    const idx = o.index;
    try {
      idx.update();
      const fr = idx.liveFiles()[0];
      const file = floorFile(idx, dir, fr.id);
      // Every trigram of "WalrusQuill" is in the line, the term is not.
      const forms = rawPatterns('WalrusQuill')!;
      const ranges = idx.rawFiles(forms)!.get(fr.id);
      assert.ok(ranges, 'the raw index names the file');
      assert.equal(said(scanFile(file, 'WalrusQuill', 3, false)), null);
      assert.equal(scanParts(file, 'WalrusQuill', 3, ranges, forms, (b) => markBefore(idx, fr.id, b)), null);
      // And what is there is found.
      const found = scanParts(file, 'RUSQU AND', 3, idx.rawFiles(rawPatterns('RUSQU AND')!)!.get(fr.id)!, rawPatterns('RUSQU AND')!, (b) => markBefore(idx, fr.id, b));
      assert.equal(found?.[0].toolCount, 1);
      assert.equal(found?.[0].tool[0].field, 'tool_output');
    } finally {
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a file the raw index names with lines it does not hold yet is read whole, those lines included', async () => {
  const dir = tmp('partial-tail');
  try {
    const floor = new TestFloor(dir);
    const msg = (text: string, i: number) => JSON.stringify({ type: 'message', timestamp: `2026-03-01T10:00:0${i}Z`, message: { role: 'toolResult', toolCallId: `c${i}`, toolName: 'bash', content: [{ type: 'text', text }] } });
    const rel = '--w--/s-tail.jsonl';
    floor.append('pi', rel, `${JSON.stringify({ type: 'session', version: 3, id: 's-tail', timestamp: '2026-03-01T10:00:00Z', cwd: '/w' })}\n${msg('first QuokkaLedger output', 1)}\n`, { session: 's-tail' });
    const env = { HOME: dir, BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', BRAIN_NO_RG: '1' };
    assert.equal(search({ term: 'quokkaledger' }, env).hits[0]?.matching_turns, 1);
    // A second mention on a line still being written: the raw index does not hold it yet.
    floor.append('pi', rel, msg('second QuokkaLedger output', 2), { session: 's-tail' });
    const r = search({ term: 'quokkaledger' }, env);
    assert.deepEqual(
      r.hits.map((h) => [h.session, h.tier, h.matching_turns]),
      [['s-tail', 'tools', 2]],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
