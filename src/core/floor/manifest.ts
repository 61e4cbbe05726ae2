// The manifest: one versioned JSON line per chunk applied to the lake. Field names are the floor
// document's contract, plus lake_path (relative to BRAIN_HOME). byte_from inclusive, byte_to
// exclusive, lines 1-based inclusive, so `sed -n 'A,Bp' lake_path | sha256sum` equals chunk_sha256.
import * as fs from 'node:fs';
import type { Lane } from '../agents';
import { BrainError } from '../errors';
import { checkDeadline, NotRegularError, openRegular, withDeadline } from '../safeopen';

/** The lanes are the registry's (src/core/agents). */
export type { Lane };

export interface ManifestLine {
  v: 1;
  lane: Lane;
  agent: string;
  session: string;
  gen: number;
  byte_from: number;
  byte_to: number;
  line_from: number;
  line_to: number;
  chunk_sha256: string;
  captured_at: string;
  event_ts_first: string | null;
  machine_id: string;
  origin_path: string;
  source: 'watch' | 'record' | 'hook' | 'quiet' | 'vanished';
  lake_path: string;
  /** The chunk's last line has no newline: captured because the origin went quiet or vanished,
   * or because it is a complete JSON document. */
  unterminated?: boolean;
}

const TS = /"(?:timestamp|startTime|created_at|createdAt)"\s*:\s*"(\d{4}-\d\d-\d\dT[^"]{1,40})"/;

/** A line's `event_ts_first`: the first event timestamp in the head of its chunk. */
export function firstTimestamp(head: Buffer | null): string | null {
  if (!head) return null;
  // Most chunks say it in their first line: decode 4 KiB first. A match inside that prefix is the
  // first in the whole head too (a match cannot start before another and end after its start:
  // neither the spaces nor the value it allows hold a quote).
  if (head.length > 4096) {
    const m = TS.exec(head.toString('utf8', 0, 4096));
    if (m) return m[1];
  }
  const m = TS.exec(head.toString('utf8'));
  return m ? m[1] : null;
}

export function isManifestLine(x: unknown): x is ManifestLine {
  const m = x as ManifestLine;
  return (
    !!m &&
    m.v === 1 &&
    typeof m.lake_path === 'string' &&
    typeof m.chunk_sha256 === 'string' &&
    Number.isInteger(m.byte_from) &&
    Number.isInteger(m.byte_to) &&
    Number.isInteger(m.line_from) &&
    Number.isInteger(m.line_to)
  );
}

export interface ManifestRead {
  lines: ManifestLine[];
  /** Lines that are not valid manifest records (counted, never silently dropped from reports). */
  bad: { lineNo: number; text: string }[];
  /** Bytes read: a torn (unterminated) last line is not included. */
  length: number;
}

/** A manifest line is a few hundred bytes; one longer than this is not one (a file of 600 MB
 * without a newline, say) and is counted bad without being held whole. */
export const MAX_MANIFEST_LINE = 64 * 1024;

/** What one read of another machine's manifest may cost: more, and the machine is left out and
 * named (its folder is not what brain writes), so it cannot cost every other machine its answer. */
export interface ManifestBudget {
  /** Bytes of manifest read. */
  bytes: number;
  /** Lines read. */
  lines: number;
  /** Distinct lake files named. */
  files: number;
}

export const STORE_MACHINE_BUDGET: ManifestBudget = { bytes: 1 << 30, lines: 4_000_000, files: 200_000 };
/** Seconds one machine's manifest may take to read at the store (within the request's deadline). */
export const STORE_MACHINE_SECONDS = 30;

/** Reads another machine's manifest at the store under that machine's own budget and deadline. */
export function readStoreManifest(machine: string, file: string, from = 0): ManifestRead {
  return withDeadline(STORE_MACHINE_SECONDS, `reading machine ${machine}'s manifest`, () => readManifest(file, from, STORE_MACHINE_BUDGET));
}

export const OVER_BUDGET = 'machine-over-budget';

/** The manifest is larger than a read of it may be: refused, not read further. */
export class OverBudgetError extends BrainError {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return BrainError[Symbol.hasInstance](v) && (v as BrainError).code === OVER_BUDGET;
  }

  constructor(file: string, what: string) {
    super(OVER_BUDGET, `the manifest ${file} ${what}, more than one machine's manifest may hold here: not read`, 'it is not what brain writes; remove that machine folder or ask its machine to sync again');
    this.name = 'OverBudgetError';
  }
}

/** Reads manifest lines starting at byte offset `from`, in blocks, ignoring a torn last line. With
 * a budget, throws OverBudgetError once the manifest passes it. */
export function readManifest(file: string, from = 0, budget?: ManifestBudget): ManifestRead {
  const out: ManifestRead = { lines: [], bad: [], length: from };
  let fd: number;
  try {
    // Another machine's manifest, in a store, may be a FIFO or a symlink: never blocked on, never followed.
    fd = openRegular(file, 'manifest');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    // A symlink (to /dev/zero, say) is not followed: refused like any file that is not regular.
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularError(file, 'a symlink', 'manifest');
    throw e;
  }
  try {
    if (budget) {
      const size = fs.fstatSync(fd).size;
      if (size - from > budget.bytes) throw new OverBudgetError(file, `is ${size - from} bytes (at most ${budget.bytes})`);
    }
    const files = budget ? new Set<string>() : null;
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = from;
    // The bytes of the line read so far (a line may span blocks), unless it is past the longest
    // a manifest line can be: then only its length is counted.
    let carry: Buffer[] = [];
    let carried = 0;
    let long = false;
    let lineNo = 0;
    const line = (b: Buffer, len: number) => {
      lineNo++;
      out.length += len + 1;
      if (budget && lineNo > budget.lines) throw new OverBudgetError(file, `has more than ${budget.lines} lines`);
      if (long) {
        out.bad.push({ lineNo, text: `${b.toString('utf8', 0, 200)}… (a line of ${len} bytes)` });
        return;
      }
      if (len === 0) return;
      const p = b.toString('utf8');
      try {
        const j = JSON.parse(p);
        if (isManifestLine(j)) {
          out.lines.push(j);
          if (files) {
            files.add(j.lake_path);
            if (files.size > budget!.files) throw new OverBudgetError(file, `names more than ${budget!.files} lake files`);
          }
        } else out.bad.push({ lineNo, text: p.slice(0, 200) });
      } catch (e) {
        if (e instanceof OverBudgetError) throw e;
        out.bad.push({ lineNo, text: p.slice(0, 200) });
      }
    };
    for (;;) {
      checkDeadline();
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      let i = 0;
      for (;;) {
        const nl = buf.indexOf(10, i);
        const end = nl < 0 || nl >= n ? n : nl;
        const piece = buf.subarray(i, end);
        if (end < n && carried === 0) {
          // The whole line is in this block (most are): read where it is.
          long = piece.length > MAX_MANIFEST_LINE;
          line(piece, piece.length);
          long = false;
          i = nl + 1;
          continue;
        }
        if (!long) {
          carry.push(Buffer.from(piece));
          if (carried + piece.length > MAX_MANIFEST_LINE) {
            long = true;
            carry = [Buffer.concat(carry).subarray(0, 200)];
          }
        }
        carried += piece.length;
        if (end === n) break;
        line(Buffer.concat(carry), carried);
        carry = [];
        carried = 0;
        long = false;
        i = nl + 1;
      }
    }
    // A torn last line is left for the next read, unless it is already longer than a manifest
    // line can be: then it never will be one, and under a budget the manifest is refused.
    if (budget && carried > MAX_MANIFEST_LINE) throw new OverBudgetError(file, `ends in ${carried} bytes without a newline`);
  } finally {
    fs.closeSync(fd);
  }
  return out;
}
