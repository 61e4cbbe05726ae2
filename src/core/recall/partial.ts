// The tool tier's read of a file the raw index named: only the bytes of the chunks it matched are
// searched for the term's raw forms, and only the lines around each match are parsed, from the
// last checkpoint the index kept before it (raw_marks). A rare term in a large file then costs a
// few dozen KB parsed instead of the whole file, with the same answer as a whole parse: every line
// that holds the term lies in a matched chunk, and a parse resumed at a checkpoint numbers turns,
// and rebuilds the turns still open there, exactly as the parse from the start did.
import * as fs from 'node:fs';
import type { Checkpoint, Dialect, DialectParser, RawLine, Turn } from '../turns';
import { turnKey } from '../turns';
import { dialectFor } from '../agents';
import { forEachLine, lineText } from '../agents/kit/jsonl';
import { laneRel } from '../index/read';
import { fold } from '../index/turnindex';
import { lakeFile } from '../index/lakepath';
import { UnsafePathError } from '../safepath';
import { NotRegularError, openRegular } from '../safeopen';
import { snippetText } from './snippet';
import { addMentions, bySection, type FileScan, type FloorFile, type Mention } from './scan';

// The matched chunks are read into one buffer kept between searches (up to 4 MB; larger ones get
// their own): a new one a chunk cost a rare term's search its allocation and page faults (short-turn
// 1 GB bench, six matched files of one ~190 KB chunk each: p50 9.7 -> 7.5 ms, medians of three). What is kept of a read
// is offsets, never the buffer.
const SCRATCH_MAX = 4 << 20;
let kept = Buffer.alloc(0);
function scratch(len: number): Buffer {
  if (kept.length < len) kept = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(len, 2 * kept.length, 256 << 10)));
  return kept;
}

/** Bytes read past a match, first, while a turn it is in is still open (doubled each read after).
 * It was 64 KB each read: on the short-turn bench, where a turn ends a line or two after the
 * match, that window was most of what a rare term's search parsed. */
const MORE = 1 << 10;

// Non-ASCII characters whose lowercase is ASCII (U+0130, U+212A): where they occur, matching
// lowercased ASCII bytes could miss what folding the decoded text finds.
const ODD = [Buffer.from('\u0130'), Buffer.from('\u212a')];

// How common a lowercase ASCII letter is in text (higher: more common); other bytes count 0.
const COMMON = 'etaoinsrhldcumfpgwybvkxjqz';
const rarity = (c: number) => {
  const i = COMMON.indexOf(String.fromCharCode(c));
  return i < 0 ? 0 : COMMON.length - i;
};

/** Adds to `hits` where `buf` holds the lowercase ASCII `form` in any case. Searching a lowercased
 * copy costs a pass of JavaScript over every byte; instead the native search looks for each case
 * of the form's rarest three bytes, and only those places are compared whole. */
function findAnyCase(buf: Buffer, form: Buffer, hits: number[]): void {
  // The anchor: two or three bytes, as few letters as can be (each letter doubles the searches),
  // then the rarest letters (fewer places to compare).
  let k = 0;
  let w = Math.min(2, form.length);
  let best = [Infinity, 0, Infinity];
  for (const width of [3, 2]) {
    for (let i = 0; i + width <= form.length; i++) {
      let letters = 0;
      let common = 0;
      for (let j = i; j < i + width; j++) {
        if (form[j] >= 97 && form[j] <= 122) letters++;
        common += rarity(form[j]);
      }
      const cost = [2 ** letters, -width, common];
      if (cost[0] < best[0] || (cost[0] === best[0] && (cost[1] < best[1] || (cost[1] === best[1] && cost[2] < best[2])))) [best, k, w] = [cost, i, width];
    }
  }
  // Every case of the anchor: letters both ways, other bytes as they are.
  let variants = [Buffer.alloc(0)];
  for (let j = k; j < k + w; j++) {
    const c = form[j];
    const cs = c >= 97 && c <= 122 ? [c, c - 32] : [c];
    variants = variants.flatMap((v) => cs.map((x) => Buffer.concat([v, Buffer.of(x)])));
  }
  for (const v of variants) {
    for (let i = buf.indexOf(v); i >= 0; i = buf.indexOf(v, i + 1)) {
      const s = i - k;
      if (s < 0 || s + form.length > buf.length) continue;
      let j = 0;
      while (j < form.length) {
        const c = buf[s + j];
        if ((c >= 65 && c <= 90 ? c + 32 : c) !== form[j]) break;
        j++;
      }
      if (j === form.length) hits.push(s);
    }
  }
}

/** The lines of buf[0, len) (complete lines, the first at file offset `at`) holding one of the
 * forms, as [from, to) file offsets, ascending. */
function matchedLines(buf: Buffer, len: number, at: number, forms: string[]): number[] {
  const out: number[] = [];
  const push = (s: number, e: number) => {
    if (out.length && out[out.length - 1] > at + s) return; // the same line again
    out.push(at + s, at + e);
  };
  const lineAt = (i: number): [number, number] => {
    const s = i > 0 ? buf.lastIndexOf(10, i - 1) + 1 : 0;
    const nl = buf.indexOf(10, i);
    return [s, nl < 0 || nl >= len ? len : nl + 1];
  };
  const view = buf.subarray(0, len);
  if (forms.every((f) => !/[^\x00-\x7f]/.test(f)) && !ODD.some((o) => view.includes(o))) {
    // ASCII forms: the bytes hold a form, in any case, exactly where the folded text does.
    const hits: number[] = [];
    for (const f of forms) findAnyCase(view, Buffer.from(f), hits);
    for (const i of hits.sort((a, b) => a - b)) push(...lineAt(i));
    return out;
  }
  for (let s = 0; s < len; ) {
    const nl = view.indexOf(10, s);
    const e = nl < 0 ? len : nl + 1;
    const t = fold(buf.toString('utf8', s, e));
    if (forms.some((f) => t.includes(f))) push(s, e);
    s = e;
  }
  return out;
}

/** What `file` holds for `term` (as scanFile says it, per session, without the sessions' info), reading only
 * the byte `ranges` (from, to pairs, ascending: the chunks the raw index matched) and parsing
 * around the lines that hold one of `forms`. `markBefore` gives the last kept checkpoint at or
 * before a byte. Null: no line holds the term (the raw index's false match), or the file is gone. */
export function scanParts(
  file: FloorFile,
  term: string,
  keep: number,
  ranges: number[],
  forms: string[],
  markBefore: (byte: number) => { byte: number; ck: string } | null,
): FileScan[] | null {
  const { rel } = laneRel(file.lake_path);
  const d = dialectFor(file.lane);
  if (!d || !d.reads(rel)) return null;
  const end = file.to ?? Infinity;
  let fd: number;
  try {
    // One open for the chunks and the parse: the path was checked by the search that listed the
    // file (file.abs), and a symlink or FIFO put there since is refused by the open (openRegular).
    fd = openRegular(file.abs ?? lakeFile(file.mf.dir, file.lake_path));
  } catch (e) {
    if (e instanceof UnsafePathError || e instanceof NotRegularError || ['ENOENT', 'ELOOP'].includes(String((e as NodeJS.ErrnoException).code))) return null;
    throw e;
  }
  try {
    return parts(fd, file, d, rel, end, term, keep, ranges, forms, markBefore);
  } finally {
    fs.closeSync(fd);
  }
}

function parts(
  fd: number,
  file: FloorFile,
  d: Dialect,
  rel: string,
  end: number,
  term: string,
  keep: number,
  ranges: number[],
  forms: string[],
  markBefore: (byte: number) => { byte: number; ck: string } | null,
): FileScan[] | null {
  const lines: number[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    const from = ranges[i];
    const len = Math.min(ranges[i + 1], end) - from;
    if (len <= 0) continue;
    const buf = len <= SCRATCH_MAX ? scratch(len) : Buffer.allocUnsafe(len);
    const n = fs.readSync(fd, buf, 0, len, from);
    lines.push(...matchedLines(buf, n, from, forms));
  }
  if (lines.length === 0) return null;

  const q = fold(term);
  const turns = new Map<number, Turn>();
  const bad = new Map<number, Mention>();
  const onBad = (l: RawLine) => {
    if (bad.has(l.no)) return;
    const t = lineText(l);
    if (!fold(t).includes(q)) return;
    bad.set(l.no, { turn: null, key: turnKey({ role: 'tool', kind: 'output', ts: null, text: t }), field: 'unparsed_line', snippet: snippetText(t, term), span: { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to } });
  };
  // The parse under way, and where it has read to (the next line's byte and number).
  const cur: { p: DialectParser | null; at: { byte: number; line: number } } = { p: null, at: { byte: 0, line: 1 } };
  const read = (to: number) => {
    const p = cur.p!;
    const r = forEachLine(fd, cur.at, Math.min(to, end), (l) => p.line(l));
    cur.at = { byte: r.byte, line: r.line };
  };
  const start = (ck: Checkpoint | undefined) => {
    // A parse left behind is not finished: the turns it holds open are read again by this one.
    cur.p = d.open({ full: true, rel, onBad }, (t) => {
      if (!turns.has(t.n)) turns.set(t.n, t);
    }, ck);
    cur.at = ck ? { byte: ck.byte, line: ck.line } : { byte: 0, line: 1 };
  };
  // Whether a turn that began before `byte` is still open.
  const open = (byte: number) => cur.p!.checkpoint().byte < byte;
  let atEnd = false;
  for (let i = 0; i < lines.length && !atEnd; i += 2) {
    const [from, to] = [lines[i], lines[i + 1]];
    if (!cur.p || cur.at.byte < to) {
      const m = markBefore(from);
      // A new parse from the mark when it skips bytes this one has not read yet.
      if (!cur.p || (m && m.byte > cur.at.byte)) start(m ? (JSON.parse(m.ck) as Checkpoint) : undefined);
      read(to);
    }
    // On until no turn that began before the match's line end is still open: mostly the next
    // line or two, so a small window first, doubled each time (a long turn costs a few reads).
    let more = MORE;
    while (open(to) && cur.at.byte < end) {
      const before = cur.at.byte;
      read(before + more);
      if (cur.at.byte === before && before + more >= end) break; // nothing more to read
      more *= 2;
    }
    if (cur.at.byte >= end || open(to)) atEnd = true;
  }
  // At the end of the file what is still open is all there is of it.
  if (atEnd) cur.p?.finish();

  const scans = bySection(
    file,
    [...turns.values()].sort((a, b) => a.n - b.n),
  ).map((g): FileScan => {
    const out: FileScan = { file: g.file, info: null, textCount: 0, text: [], toolCount: 0, tool: [], textKeys: [], toolKeys: [] };
    addMentions(out, g.turns, q, term, keep);
    return out;
  });
  // Unparsed lines come after the turns' mentions, in line order (the first session's).
  const out = scans[0];
  const badList = [...bad.entries()].sort((a, b) => a[0] - b[0]).map(([, m]) => m);
  out.toolCount += badList.length;
  out.toolKeys.push(...badList.map((m) => m.key));
  out.tool.push(...badList.slice(0, Math.max(0, keep - out.tool.length)));
  return scans;
}
