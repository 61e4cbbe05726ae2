// One file's new bytes parsed for the index: what a parse worker thread does, and what the index
// does itself when no worker is used. The result is plain data (it crosses threads).
import type { Checkpoint, DialectCounts, FileFacts, Turn } from '../turns';
import { isSaid, turnKey } from '../turns';
import { readTurns } from './read';

export interface ParseJob {
  file: string;
  lane: string;
  rel: string;
  resume?: Checkpoint;
  to: number;
  tail: boolean;
}

/** Lowercasing is the index's and the scan's one definition of "case-insensitive". */
export function fold(s: string): string {
  return s.toLowerCase();
}

/** What the index stores of an entry whose text the turn tier finds (see isSaid):
 * [n, role ('u'|'a' for a turn, 's' for a summary, notice or name), sidechain (0|1), ts,
 * line_from, line_to, byte_from, byte_to, folded text, key (turnKey: the same entry in another
 * generation has the same key)]. Only 'u' and 'a' rows count as turns. */
export type IndexTurn = [number, IndexRole, number, string | null, number, number, number, number, string, number];
export type IndexRole = 'u' | 'a' | 's';

export function indexRole(t: Pick<Turn, 'role'>): IndexRole {
  return t.role === 'user' ? 'u' : t.role === 'assistant' ? 'a' : 's';
}

export function roleOfIndex(r: IndexRole): Turn['role'] {
  return r === 'u' ? 'user' : r === 'a' ? 'assistant' : 'system';
}

export type ParseResult =
  | {
      kind: 'turns';
      turns: IndexTurn[];
      /** The first prompt with text (main conversation first), as written: a session's title. */
      title: { n: number; side: number; text: string } | null;
      /** UTF-8 bytes of the turns' text. */
      text_bytes: number;
      facts: FileFacts;
      counts: DialectCounts;
      checkpoint: Checkpoint;
      end: { byte: number; line: number; tail: number };
    }
  /** No dialect reads this file (a sub-agent's .meta.json). */
  | { kind: 'none' }
  /** The file is not there (a store mid-sync). */
  | { kind: 'missing' };

export function runParseJob(j: ParseJob): ParseResult {
  let r;
  try {
    r = readTurns(j.file, j.lane, j.rel, { full: false, resume: j.resume, to: j.to, tail: j.tail });
  } catch (e) {
    // ELOOP: the file became a symlink after its path was checked; it is not followed.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'missing' };
    throw e;
  }
  if (!r) return { kind: 'none' };
  const turns: IndexTurn[] = [];
  let title: { n: number; side: number; text: string } | null = null;
  let bytes = 0;
  for (const t of r.turns) {
    if (!isSaid(t)) continue;
    // Folded here, in the parse thread, so the thread that writes SQLite does not.
    turns.push([t.n, indexRole(t), t.sidechain ? 1 : 0, t.ts, t.span.line_from, t.span.line_to, t.span.byte_from, t.span.byte_to, t.text ? fold(t.text) : '', turnKey(t)]);
    if (!t.text) continue;
    bytes += Buffer.byteLength(t.text);
    const side = t.sidechain ? 1 : 0;
    if (t.role === 'user' && (!title || side < title.side)) title = { n: t.n, side, text: t.text };
  }
  return { kind: 'turns', turns, title, text_bytes: bytes, facts: r.facts, counts: r.counts, checkpoint: r.checkpoint, end: r.end };
}
