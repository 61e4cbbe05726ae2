// A lake file through its dialect, whole or from a checkpoint: the one way turns are read, used by
// the index (lean), and by show and the scan tier (full).
import type { Checkpoint, DialectCounts, FileFacts, Span, Turn } from '../turns';
import { dialectFor } from '../agents';
import { forEachLine } from '../agents/kit/jsonl';

export interface FileTurns {
  turns: Turn[];
  facts: FileFacts;
  counts: DialectCounts;
  checkpoint: Checkpoint;
  /** Byte and line just after the last complete line read, and the bytes of an unterminated
   * last line after it (read too when `tail` was asked). */
  end: { byte: number; line: number; tail: number };
}

export interface ReadOptions {
  full: boolean;
  /** Resume here (the index's stored checkpoint). */
  resume?: Checkpoint;
  /** Read up to this byte (the manifest's claim); default: the file's size. */
  to?: number | null;
  /** Also read an unterminated last line (a chunk the manifest marks unterminated). */
  tail?: boolean;
  onBad?: (l: import('../turns').RawLine) => void;
  /** Called with each read's complete lines (see forEachLine), not with an unterminated tail. */
  onBlock?: (buf: Buffer, to: number) => void;
  /** Called with the parser's checkpoint after a complete line, every `every` bytes or so (the
   * index keeps them: raw_marks). */
  marks?: { every: number; add: (byte: number, ck: Checkpoint) => void };
}

/** Lane-relative path of a lake path ('lake/<lane>/<rel>' -> '<rel>'). */
export function laneRel(lakePath: string): { lane: string; rel: string } {
  const parts = lakePath.split('/');
  const i = parts[0] === 'lake' ? 1 : 0;
  return { lane: parts[i] ?? '', rel: parts.slice(i + 1).join('/') };
}

/** Reads the turns of `file` (absolute), a lake file of `lane` at lane-relative path `rel`.
 * Returns null when no dialect reads it. */
export function readTurns(file: string, lane: string, rel: string, o: ReadOptions): FileTurns | null {
  const d = dialectFor(lane);
  if (!d || !d.reads(rel)) return null;
  const turns: Turn[] = [];
  const p = d.open({ full: o.full, rel, onBad: o.onBad }, (t) => turns.push(t), o.resume);
  const from = o.resume ? { byte: o.resume.byte, line: o.resume.line } : { byte: 0, line: 1 };
  let ck: Checkpoint | null = null;
  const m = o.marks;
  // At the first line end past each multiple of `every`: a file read a few lines at a time gets
  // its marks too, and reading lines again gives the same ones.
  let nextMark = m ? (Math.floor(from.byte / m.every) + 1) * m.every : Infinity;
  const end = forEachLine(
    file,
    from,
    o.to ?? null,
    (l) => {
      p.line(l);
      if (l.to >= nextMark) {
        m!.add(l.to, p.checkpoint());
        nextMark = (Math.floor(l.to / m!.every) + 1) * m!.every;
      }
    },
    { block: o.onBlock },
  );
  if (o.tail && end.tailBytes > 0) {
    // An unterminated last line may still grow: resume before it next time.
    ck = p.checkpoint();
    forEachLine(file, { byte: end.byte, line: end.line }, o.to ?? null, (l) => p.line(l), { tail: true });
  }
  ck ??= p.checkpoint();
  p.finish();
  turns.sort((a, b) => a.n - b.n);
  return { turns, facts: p.facts, counts: p.counts, checkpoint: ck, end: { byte: end.byte, line: end.line, tail: end.tailBytes } };
}

/**
 * The text of the indexed entry (a turn, summary, notice or name) that starts at `span` (the index keeps no copy of turn
 * text): its lines are read again and parsed on their own. A turn's lines hold all of its text,
 * so this gives the text the index was built from; null when no such turn comes out. `file` is
 * the file's path, or the span's bytes already read.
 */
export function turnText(file: string | Buffer, lane: string, rel: string, span: Span & { n?: number }, role: import('../turns').Role): string | null {
  const d = dialectFor(lane);
  if (!d || !d.reads(rel)) return null;
  let found: string | null = null;
  const byN = span.n !== undefined && d.sharedSpans?.(rel) === true;
  const p = d.open({ full: false, rel }, (t) => {
    if (found === null && t.span.line_from === span.line_from && t.role === role && (!byN || t.n === span.n)) found = t.text;
  });
  const from = { byte: span.byte_from, line: span.line_from };
  if (typeof file === 'string') forEachLine(file, from, span.byte_to, (l) => p.line(l), { tail: true });
  else eachLineIn(file, from, (l) => p.line(l));
  p.finish();
  return found;
}

/** The lines of `bytes` (a span already read, starting at `from` in its file), as forEachLine
 * gives them with `tail`: a caller that also hashes the span reads it once. */
function eachLineIn(bytes: Buffer, from: { byte: number; line: number }, cb: (l: import('../turns').RawLine) => void): void {
  let line = from.line;
  let p = 0;
  for (;;) {
    const nl = bytes.indexOf(10, p);
    if (nl < 0) break;
    let e = nl;
    if (e > p && bytes[e - 1] === 13) e--;
    cb({ no: line, from: from.byte + p, to: from.byte + nl + 1, buf: bytes, s: p, e });
    line++;
    p = nl + 1;
  }
  if (p < bytes.length) cb({ no: line, from: from.byte + p, to: from.byte + bytes.length, buf: bytes, s: p, e: bytes.length });
}
