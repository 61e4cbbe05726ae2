// One file's new bytes parsed for the index: what a parse worker thread does, and what the index
// does itself when no worker is used. The result is plain data (it crosses threads).
import * as fs from 'node:fs';
import type { Checkpoint, DialectCounts, FileFacts, Turn } from '../turns';
import { isSaid, turnKey } from '../turns';
import { checkDeadline, NotRegularError, openRegular } from '../safeopen';
import { titleKey } from '../truth';
import { readTurns } from './read';
import { fold, rawTrigramKeys } from './trigrams';
import { readMeta, type MetaRecord } from './roots';

export interface ParseJob {
  file: string;
  lane: string;
  rel: string;
  resume?: Checkpoint;
  to: number;
  tail: boolean;
  /** Where the raw lines not yet in the raw index start (none: they are not read). */
  raw_from?: number;
  /** The session's meta record to read as well (a parse thread does, sparing the writer its
   * path checks and reads); none: the writer reads it. */
  meta?: { dir: string; lane: string; session: string };
}

/** The complete lines after raw_from, lowercased, in chunks of about RAW_CHUNK bytes, each as
 * its distinct trigram keys (rawTrigramKeys); `to` is
 * where the last complete line ends (a line still being written is left for a later read). */
export interface RawChunks {
  to: number;
  chunks: Int32Array[];
  /** Each chunk's bytes: from, to (flat pairs). */
  ranges: number[];
}

const RAW_CHUNK = 4 << 20;
/** Bytes between two kept checkpoints (raw_marks): the tool tier parses about half of this, plus
 * the turn around a match, for each file it verifies. */
export const RAW_MARK = 128 << 10;

export { fold };

/** What the index stores of an entry whose text the turn tier finds (see isSaid):
 * [n, role ('u'|'a' for a turn, 's' for a summary, notice or name), sidechain (0|1), ts (ms since
 * 1970, or the text when it is no time Date.parse reads),
 * line_from, line_to, byte_from, byte_to, folded text, key (turnKey: the same entry in another
 * generation has the same key), section (Turn.section: 0 for the file's own session)]. Only 'u'
 * and 'a' rows count as turns. */
export type IndexTurn = [number, IndexRole, number, number | string | null, number, number, number, number, string, number, number];
export type IndexRole = 'u' | 'a' | 's';

export function indexRole(t: Pick<Turn, 'role'>): IndexRole {
  return t.role === 'user' ? 'u' : t.role === 'assistant' ? 'a' : 's';
}

export function roleOfIndex(r: IndexRole): Turn['role'] {
  return r === 'u' ? 'user' : r === 'a' ? 'assistant' : 'system';
}

/** The first prompt with text (main conversation first), as written: a session's title. */
export interface TitleTurn {
  n: number;
  side: number;
  text: string;
  key: number;
}

/** A section of a file that gathers several sessions (Turn.section), as one read met it. */
export interface SectionRead {
  section: number;
  title: TitleTurn | null;
  /** Its entries' first and last time, as written. */
  started: string | null;
  ended: string | null;
}

export type ParseResult =
  | {
      kind: 'turns';
      turns: IndexTurn[];
      /** The title of the file's own session (section 0). */
      title: TitleTurn | null;
      /** The sections (Turn.section, not 0) this read met, in order. */
      sections: SectionRead[];
      /** UTF-8 bytes of the turns' text. */
      text_bytes: number;
      facts: FileFacts;
      counts: DialectCounts;
      checkpoint: Checkpoint;
      end: { byte: number; line: number; tail: number };
      raw: RawChunks | null;
      /** Checkpoints every RAW_MARK bytes: [byte of the line end, checkpoint as JSON]. */
      marks: [number, string][];
      /** The job's meta record (null: none, or unreadable); undefined when not asked for. */
      meta?: MetaRecord | null;
    }
  /** No dialect reads this file (a sub-agent's .meta.json). */
  | { kind: 'none' }
  /** The file is not there (a store mid-sync). */
  | { kind: 'missing' };

// Folders a parse thread found real (no symlink) while reading meta records: the thread lives
// for one update, as the writer's own set does (update.ts).
const seenDirs = new Set<string>();

// One read buffer kept across files: a fresh one per file is garbage the GC sees late.
let spare: Buffer | null = null;

/** Reads the complete lines between `from` and `to` (a chunk never splits a line, so a term
 * within a line is within one chunk). */
export function readRaw(file: string, from: number, to: number): RawChunks {
  const out: RawChunks = { to: from, chunks: [], ranges: [] };
  if (to <= from) return out;
  const fd = openRegular(file);
  let buf = spare ?? Buffer.allocUnsafe(RAW_CHUNK);
  spare = null;
  try {
    let pos = from;
    // Bytes of a line not complete yet at buf[0, len).
    let len = 0;
    while (pos < to) {
      if (len === buf.length) {
        // One line longer than the buffer: grow it rather than split the line.
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      checkDeadline();
      const n = fs.readSync(fd, buf, len, Math.min(buf.length - len, to - pos), pos);
      if (n <= 0) break;
      pos += n;
      len += n;
      const nl = buf.lastIndexOf(10, len - 1);
      if (nl < 0) continue;
      out.chunks.push(rawTrigramKeys(buf, 0, nl + 1));
      out.ranges.push(out.to, out.to + nl + 1);
      out.to += nl + 1;
      buf.copy(buf, 0, nl + 1, len);
      len -= nl + 1;
    }
  } finally {
    fs.closeSync(fd);
    if (buf.length === RAW_CHUNK) spare = buf;
  }
  return out;
}

/** A turn's time as the index keeps it: a number (6 bytes, not an ISO string's 24 a turn). */
function tsValue(ts: string | null): number | string | null {
  if (!ts) return null;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : ts;
}

export function runParseJob(j: ParseJob): ParseResult {
  let r;
  // When the raw lines start where the parse does (a file read from its start), their trigrams
  // are taken from the parse's own reads: the file is read once, in the same chunks readRaw
  // would cut (both read up to RAW_CHUNK bytes and cut after the last newline).
  const from = j.resume?.byte ?? 0;
  const together = j.raw_from !== undefined && j.raw_from === from;
  const streamed: RawChunks = { to: from, chunks: [], ranges: [] };
  let raw: RawChunks | null = together ? streamed : null;
  const onBlock = together
    ? (buf: Buffer, to: number) => {
        streamed.chunks.push(rawTrigramKeys(buf, 0, to));
        streamed.ranges.push(streamed.to, streamed.to + to);
        streamed.to += to;
      }
    : undefined;
  const marks: [number, string][] = [];
  try {
    r = readTurns(j.file, j.lane, j.rel, {
      full: false,
      resume: j.resume,
      to: j.to,
      tail: j.tail,
      onBlock,
      marks: { every: RAW_MARK, add: (b, ck) => marks.push([b, JSON.stringify(ck)]) },
    });
  } catch (e) {
    // ELOOP: the file became a symlink after its path was checked; it is not followed. Nor is a
    // FIFO, folder or device put there (NotRegularError).
    if (e instanceof NotRegularError || (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'missing' };
    throw e;
  }
  if (!r) return { kind: 'none' };
  const turns: IndexTurn[] = [];
  const own: SectionRead = { section: 0, title: null, started: null, ended: null };
  const sections: SectionRead[] = [];
  let bytes = 0;
  for (const t of r.turns) {
    if (!isSaid(t)) continue;
    const section = t.section ?? 0;
    // Folded here, in the parse thread, so the thread that writes SQLite does not.
    turns.push([t.n, indexRole(t), t.sidechain ? 1 : 0, tsValue(t.ts), t.span.line_from, t.span.line_to, t.span.byte_from, t.span.byte_to, t.text ? fold(t.text) : '', turnKey(t), section]);
    let sec = own;
    if (section) {
      sec = sections[sections.length - 1];
      if (sec?.section !== section) sections.push((sec = { section, title: null, started: null, ended: null }));
      if (t.ts && (!sec.started || t.ts < sec.started)) sec.started = t.ts;
      if (t.ts && (!sec.ended || t.ts > sec.ended)) sec.ended = t.ts;
    }
    if (!t.text) continue;
    bytes += Buffer.byteLength(t.text);
    if (t.role === 'user') {
      const key = titleKey(t);
      if (!sec.title || key < sec.title.key) sec.title = { n: t.n, side: t.sidechain ? 1 : 0, text: t.text, key };
    }
  }
  try {
    if (j.raw_from !== undefined && !together) raw = readRaw(j.file, j.raw_from, j.to);
  } catch (e) {
    // Gone or a symlink since it was parsed: its raw lines are read on a later update.
    if (!(e instanceof NotRegularError) && (e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
  }
  const meta = j.meta ? readMeta(j.meta.dir, j.meta.lane, j.meta.session, seenDirs) : undefined;
  return { kind: 'turns', turns, title: own.title, sections, text_bytes: bytes, facts: r.facts, counts: r.counts, checkpoint: r.checkpoint, end: r.end, raw, marks, meta };
}
