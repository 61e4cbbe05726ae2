// The manifest: one versioned JSON line per chunk applied to the lake. Field names are the floor
// document's contract, plus lake_path (relative to BRAIN_HOME). byte_from inclusive, byte_to
// exclusive, lines 1-based inclusive, so `sed -n 'A,Bp' lake_path | sha256sum` equals chunk_sha256.
import * as fs from 'node:fs';
import type { Lane } from '../agents';
import { checkDeadline, openRegular } from '../safeopen';

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

/** Reads manifest lines starting at byte offset `from`, in blocks, ignoring a torn last line. */
export function readManifest(file: string, from = 0): ManifestRead {
  const out: ManifestRead = { lines: [], bad: [], length: from };
  let fd: number;
  try {
    // Another machine's manifest, in a store, may be a FIFO or a symlink: never blocked on, never followed.
    fd = openRegular(file, 'manifest');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = from;
    let carry = '';
    let lineNo = 0;
    for (;;) {
      checkDeadline();
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      const text = carry + buf.toString('utf8', 0, n);
      const parts = text.split('\n');
      carry = parts.pop() ?? '';
      for (const p of parts) {
        lineNo++;
        out.length += Buffer.byteLength(p) + 1;
        if (p.length === 0) continue;
        try {
          const j = JSON.parse(p);
          if (isManifestLine(j)) out.lines.push(j);
          else out.bad.push({ lineNo, text: p.slice(0, 200) });
        } catch {
          out.bad.push({ lineNo, text: p.slice(0, 200) });
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return out;
}
