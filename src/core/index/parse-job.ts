// One file's new bytes parsed for the index: what a parse worker thread does, and what the index
// does itself when no worker is used. The result is plain data (it crosses threads).
import type { Checkpoint, DialectCounts, FileFacts } from '../turns';
import { readTurns } from './read';

export interface ParseJob {
  file: string;
  lane: string;
  rel: string;
  resume?: Checkpoint;
  to: number;
  tail: boolean;
}

/** A user or assistant turn as the index stores it:
 * [n, role ('u'|'a'), sidechain (0|1), ts, line_from, line_to, byte_from, byte_to, text]. */
export type IndexTurn = [number, 'u' | 'a', number, string | null, number, number, number, number, string];

export type ParseResult =
  | { kind: 'turns'; turns: IndexTurn[]; facts: FileFacts; counts: DialectCounts; checkpoint: Checkpoint; end: { byte: number; line: number; tail: number } }
  /** No dialect reads this file (a sub-agent's .meta.json). */
  | { kind: 'none' }
  /** The file is not there (a store mid-sync). */
  | { kind: 'missing' };

export function runParseJob(j: ParseJob): ParseResult {
  let r;
  try {
    r = readTurns(j.file, j.lane, j.rel, { full: false, resume: j.resume, to: j.to, tail: j.tail });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  if (!r) return { kind: 'none' };
  const turns: IndexTurn[] = [];
  for (const t of r.turns) {
    if (t.role !== 'user' && t.role !== 'assistant') continue;
    turns.push([t.n, t.role === 'user' ? 'u' : 'a', t.sidechain ? 1 : 0, t.ts, t.span.line_from, t.span.line_to, t.span.byte_from, t.span.byte_to, t.text]);
  }
  return { kind: 'turns', turns, facts: r.facts, counts: r.counts, checkpoint: r.checkpoint, end: r.end };
}
