// offsets/<lane>/<lake path>.offset.json: how far each origin has been captured, with a prefix
// fingerprint (hash of its first and last 4 KiB) that detects a rewrite from O(1) bytes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Lane } from './manifest';
import { writeFileAtomic } from './durable';
import { walkTree } from '../walk';

export interface OffsetRec {
  v: 1;
  lane: Lane;
  /** Display form of the origin path. */
  origin: string;
  /** The origin path's bytes (base64) when they are not UTF-8, so that `origin` (escaped) is not
   * a path that can be opened: verify --deep opens this. */
  origin_raw?: string;
  /** Lake path of generation 1, relative to lake/<lane>/: the identity of the origin on the floor. */
  base_rel: string;
  gen: number;
  /** Current generation's lake file, relative to BRAIN_HOME. */
  lake_path: string;
  /** Bytes of the current generation on the floor (the last chunk's byte_to). */
  consumed: number;
  /** Lines of the current generation on the floor (the last chunk's line_to). */
  lines: number;
  /** The last chunk ended without a newline (captured because quiet, vanished, or a JSON document). */
  unterminated: boolean;
  dev: number;
  ino: number;
  size: number;
  mtime_ms: number;
  head_sha: string;
  tail_sha: string;
  updated_at: string;
  /** A rewrite of a whole-file origin first seen at this time and not yet kept (coalescing). */
  deferred_since?: number;
  /** The origin grew past bytes already on the floor, which the fingerprints check only at each end:
   * `check_left` more bytes of [0, consumed) are to be compared with the lake, a slice per pass,
   * from `check_pos` on (wrapping round at `consumed`). */
  check_left?: number;
  check_pos?: number;
  /** When this check last had its turn (or was asked for): the longest waiting goes first. */
  check_at?: number;
  /** The origin is a SQLite database and this lake file a record of its rows (dbcapture.ts): the
   * origin's bytes are not the lake's, so nothing compares them. */
  rows?: true;
}

export const FP_WINDOW = 4096;

export function offsetsFile(offsetsDir: string, lane: Lane, baseRel: string): string {
  return path.join(offsetsDir, lane, `${baseRel}.offset.json`);
}

export function readOffsets(offsetsDir: string, lane: Lane, baseRel: string): OffsetRec | null {
  try {
    const j = JSON.parse(fs.readFileSync(offsetsFile(offsetsDir, lane, baseRel), 'utf8')) as OffsetRec;
    return j && j.v === 1 ? j : null;
  } catch {
    return null;
  }
}

/** Offsets are derived state (the manifest is the claim), so they are written atomically but not fsynced:
 * after a power loss, recovery re-derives them from the manifest's tail. */
export function writeOffsets(offsetsDir: string, rec: OffsetRec): void {
  writeFileAtomic(offsetsFile(offsetsDir, rec.lane, rec.base_rel), JSON.stringify(rec) + '\n', { sync: false });
}

/** Every offsets record (for vanished-origin checks and status). */
export function allOffsets(offsetsDir: string): OffsetRec[] {
  const out: OffsetRec[] = [];
  walkTree(offsetsDir, (e) => {
    if (e.dir || !e.abs.endsWith('.offset.json')) return;
    try {
      out.push(JSON.parse(fs.readFileSync(e.abs, 'utf8')) as OffsetRec);
    } catch {
      /* a torn offsets file is re-derived on the next capture of its origin */
    }
  });
  return out;
}
