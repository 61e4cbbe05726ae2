// The pending tail: an unterminated last line waits in spool/<lane>/pending/ (its bytes, and a
// description of where it goes) until the line is finished, the origin goes quiet or the origin
// vanishes. The last two capture it as is, flagged unterminated: no byte is ever withheld.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, mkdirPrivate, type Layout } from '../home';
import type { FloorEvent } from './apply';
import { sha256 } from './classify';
import { writeAll, writeFileAtomic } from './durable';
import { firstTimestamp, type Lane, type ManifestLine } from './manifest';
import { FP_WINDOW, readOffsets, type OffsetRec } from './offsets';
import { commitEntry, laneSpool, spoolFiles, spoolId } from './spool';

const BLOCK = 4 << 20;

export interface PendingDesc {
  v: 1;
  lane: Lane;
  agent: string;
  session: string;
  base_rel: string;
  origin_raw: string; // base64 of the raw origin path, to check whether it still exists
  origin: string;
  offsets: OffsetRec | null; // the floor's state this tail follows
  gen: number;
  lake_path: string;
  byte_from: number;
  line_from: number;
  len: number;
  size: number;
  mtime_ms: number;
}

/** What taking a pending tail in reads and counts of the pass. */
export interface PendingHost {
  readonly l: Layout;
  readonly now: number;
  readonly report: {
    machine: string;
    lanes: Record<string, { chunks: number; bytes: number; lines: number }>;
    events: FloorEvent[];
  };
}

export function pendingPath(l: Layout, lane: Lane, baseRel: string): string {
  return path.join(laneSpool(l.spool, lane), 'pending', `${createHash('sha256').update(baseRel).digest('hex').slice(0, 24)}.json`);
}

export function writePending(file: string, tmpChunk: string, from: number, len: number, desc: PendingDesc): void {
  mkdirPrivate(path.dirname(file));
  const bytesFile = file.replace(/\.json$/, '.bytes');
  const tmp = `${bytesFile}.tmp-${process.pid}`;
  const src = fs.openSync(tmpChunk, 'r');
  const dst = fs.openSync(tmp, 'w', FILE_MODE);
  try {
    const buf = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, len)));
    let done = 0;
    while (done < len) {
      const n = fs.readSync(src, buf, 0, Math.min(buf.length, len - done), from + done);
      if (n === 0) break;
      writeAll(dst, buf.subarray(0, n));
      done += n;
    }
  } finally {
    fs.closeSync(src);
    fs.closeSync(dst);
  }
  fs.renameSync(tmp, bytesFile);
  writeFileAtomic(file, JSON.stringify(desc) + '\n', { sync: false });
}

/** Captures a waiting unterminated tail as a flagged chunk: its origin went quiet or vanished.
 * True when a chunk went to the spool. */
export function capturePending(h: PendingHost, p: PendingDesc, why: 'quiet' | 'vanished'): boolean {
  const file = pendingPath(h.l, p.lane, p.base_rel);
  const bytesFile = file.replace(/\.json$/, '.bytes');
  let data: Buffer;
  try {
    data = fs.readFileSync(bytesFile);
  } catch {
    dropPending(file);
    return false;
  }
  if (data.length !== p.len) {
    dropPending(file);
    return false;
  }
  const off = p.offsets ?? readOffsets(h.l.offsets, p.lane, p.base_rel);
  const consumed = off && off.gen === p.gen ? off.consumed : 0;
  if (consumed !== p.byte_from) {
    dropPending(file);
    return false;
  }
  const dir = laneSpool(h.l.spool, p.lane);
  const id = spoolId();
  const chunk = path.join(dir, `${id}.chunk`);
  fs.renameSync(bytesFile, chunk);
  const sha = createHash('sha256').update(data).digest('hex');
  const line: ManifestLine = {
    v: 1,
    lane: p.lane,
    agent: p.agent,
    session: p.session,
    gen: p.gen,
    byte_from: p.byte_from,
    byte_to: p.byte_from + p.len,
    line_from: p.line_from,
    line_to: p.line_from,
    chunk_sha256: sha,
    captured_at: new Date().toISOString(),
    event_ts_first: firstTimestamp(data.subarray(0, 65536)),
    machine_id: h.report.machine,
    origin_path: p.origin,
    source: why,
    lake_path: p.lake_path,
    unterminated: true,
  };
  const base: OffsetRec = off ?? {
    v: 1,
    lane: p.lane,
    origin: p.origin,
    base_rel: p.base_rel,
    gen: p.gen,
    lake_path: p.lake_path,
    consumed: 0,
    lines: 0,
    unterminated: false,
    dev: -1,
    ino: -1,
    size: p.size,
    mtime_ms: p.mtime_ms,
    head_sha: '',
    tail_sha: '',
    updated_at: '',
  };
  const head = Buffer.concat([data.subarray(0, FP_WINDOW)]);
  const after: OffsetRec = {
    ...base,
    consumed: p.byte_from + p.len,
    lines: p.line_from,
    unterminated: true,
    // The tail's fingerprint from the lake once applied; recomputed at the next capture.
    head_sha: p.byte_from === 0 ? sha256(head) : base.head_sha,
    tail_sha: '',
    updated_at: new Date(h.now).toISOString(),
  };
  commitEntry(h.l.spool, { v: 1, kind: 'chunk', id, line, offsets: after });
  fs.rmSync(file, { force: true });
  const c = h.report.lanes[p.lane];
  c.chunks++;
  c.bytes += p.len;
  c.lines += 1;
  h.report.events.push({
    code: why === 'quiet' ? 'unterminated-captured' : 'vanished-captured',
    path: p.origin,
    message:
      why === 'quiet'
        ? `last line had no newline and the file was quiet; captured as is (flagged unterminated in the manifest)`
        : `file disappeared with an unterminated last line; captured as is (flagged unterminated)`,
  });
  return true;
}

/** Pending tails whose origin is gone are captured now: no byte is ever withheld. Returns how many
 * chunks went to the spool. */
export function captureVanished(h: PendingHost): number {
  let chunks = 0;
  for (const [dir, n] of spoolFiles(h.l.spool, 'pending')) {
    if (!n.endsWith('.json')) continue;
    const p = readPending(path.join(dir, n));
    if (!p) continue;
    let gone = false;
    try {
      fs.lstatSync(Buffer.from(p.origin_raw, 'base64'));
    } catch (e) {
      gone = (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
    if (gone && capturePending(h, p, 'vanished')) chunks++;
  }
  return chunks;
}

export function readPending(file: string): PendingDesc | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PendingDesc;
  } catch {
    return null;
  }
}

export function dropPending(file: string): void {
  fs.rmSync(file, { force: true });
  fs.rmSync(file.replace(/\.json$/, '.bytes'), { force: true });
}
