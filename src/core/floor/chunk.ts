// One origin's new bytes into one spool chunk: the complete lines are committed to the spool, an
// unterminated tail waits in the pending folder (pending.ts) unless it is due: its origin is quiet,
// or the origin is a .json file that holds one whole JSON document.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentPaths } from '../agents';
import { FILE_MODE, mkdirPrivate, type Layout } from '../home';
import { fingerprints } from './classify';
import { crashPoint } from './crash';
import { writeAll, writeFileAtomic } from './durable';
import type { ChunkHasher } from './hasher';
import { firstTimestamp, type Lane, type ManifestLine } from './manifest';
import type { OffsetRec } from './offsets';
import { dropPending, readPending, writePending } from './pending';
import { countNewlines } from './ranges';
import { commitEntry, laneSpool, spoolId, type ChunkEntry } from './spool';

/** What reading new bytes takes from the pass. */
export interface ChunkHost {
  readonly l: Layout;
  readonly now: number;
  readonly o: { source: ManifestLine['source']; quietMs: number };
  readonly report: { machine: string };
  hasherFor(bytes: number): ChunkHasher;
}

/** The lane's counts this adds to. */
export interface ChunkCounts {
  new_files: number;
  bytes: number;
  lines: number;
  chunks: number;
  pending: number;
}

/** Reads [consumed, size) into a spool chunk; the complete lines are committed, an unterminated
 * tail waits in spool/<lane>/pending/ unless it is due (quiet origin, or a whole JSON document).
 * Returns the bytes committed (0: no chunk). */
export function readNew(
  h: ChunkHost,
  c: ChunkCounts,
  agent: AgentPaths,
  lane: Lane,
  fd: number,
  st: fs.Stats,
  abs: Buffer,
  session: string,
  base: OffsetRec,
  pendingFile: string,
  isNew: boolean,
): number {
  const dir = laneSpool(h.l.spool, lane);
  mkdirPrivate(dir);
  const id = spoolId();
  const tmp = path.join(dir, `.tmp-${id}.chunk`);
  const out = fs.openSync(tmp, 'wx', FILE_MODE);
  let closed = false;
  try {
    fs.fchmodSync(out, FILE_MODE);
    const hasher = h.hasherFor(st.size - base.consumed);
    hasher.begin();
    let nl = 0;
    let lastNl = -1;
    let pos = base.consumed;
    let head: Buffer | null = null;
    while (pos < st.size) {
      const buf = hasher.slot();
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, st.size - pos), pos);
      if (n === 0) break;
      const block = buf.subarray(0, n);
      if (!head) head = Buffer.from(block.subarray(0, Math.min(n, 65536)));
      const li = block.lastIndexOf(10);
      // Hand the block to the hasher first: on a large pass it is hashed on another core while
      // this thread writes it to the spool.
      hasher.block(buf, n, li);
      if (li >= 0) {
        nl += countNewlines(block, 0, li + 1);
        lastNl = pos + li;
      }
      writeAll(out, block);
      if (pos === base.consumed) crashPoint('mid-spool-write');
      pos += n;
    }
    const digests = hasher.end();
    const end = pos;
    const complete = lastNl >= 0 ? lastNl + 1 : base.consumed;
    let chunkEnd = complete;
    let digest = digests.atNewline;
    let lineCount = nl;
    let unterminated = false;
    let source = h.o.source;
    if (end > complete) {
      const quiet = h.now - st.mtimeMs >= h.o.quietMs;
      const jsonDoc = !quiet && base.consumed === 0 && isJsonDocument(tmp, abs);
      if (quiet || jsonDoc) {
        chunkEnd = end;
        digest = digests.full;
        lineCount = nl + 1;
        unterminated = true;
        if (quiet) source = 'quiet';
      } else {
        writePending(pendingFile, tmp, complete - base.consumed, end - complete, {
          v: 1,
          lane,
          agent: agent.agent,
          session,
          base_rel: base.base_rel,
          origin_raw: abs.toString('base64'),
          origin: base.origin,
          offsets: null,
          gen: base.gen,
          lake_path: base.lake_path,
          byte_from: complete,
          line_from: base.lines + nl + 1,
          len: end - complete,
          size: st.size,
          mtime_ms: st.mtimeMs,
        });
        c.pending++;
        fs.ftruncateSync(out, complete - base.consumed);
      }
    } else dropPending(pendingFile);
    fs.closeSync(out);
    closed = true;
    if (chunkEnd === base.consumed) {
      fs.rmSync(tmp, { force: true });
      return 0;
    }
    const after: OffsetRec = {
      ...base,
      consumed: chunkEnd,
      lines: base.lines + lineCount,
      unterminated,
      ...fingerprints(fd, chunkEnd),
      updated_at: new Date(h.now).toISOString(),
    };
    // The pending tail (if any) must know the floor state it follows, for a vanished origin.
    const p = readPending(pendingFile);
    if (p) writeFileAtomic(pendingFile, JSON.stringify({ ...p, offsets: after }) + '\n', { sync: false });
    const line: ManifestLine = {
      v: 1,
      lane,
      agent: agent.agent,
      session,
      gen: base.gen,
      byte_from: base.consumed,
      byte_to: chunkEnd,
      line_from: base.lines + 1,
      line_to: base.lines + lineCount,
      chunk_sha256: digest,
      captured_at: new Date().toISOString(),
      event_ts_first: firstTimestamp(head),
      machine_id: h.report.machine,
      origin_path: base.origin,
      source,
      lake_path: base.lake_path,
      ...(unterminated ? { unterminated: true } : {}),
    };
    fs.renameSync(tmp, path.join(dir, `${id}.chunk`));
    crashPoint('after-spool-chunk');
    commitEntry(h.l.spool, { v: 1, kind: 'chunk', id, line, offsets: after } satisfies ChunkEntry);
    crashPoint('after-spool-commit');
    c.chunks++;
    c.bytes += chunkEnd - base.consumed;
    c.lines += lineCount;
    if (isNew && base.gen === 1) c.new_files++;
    return chunkEnd - base.consumed;
  } finally {
    if (!closed) {
      fs.closeSync(out);
      fs.rmSync(tmp, { force: true });
    }
  }
}

/** A .json origin without a trailing newline is complete when it parses as one JSON document. */
function isJsonDocument(tmpChunk: string, abs: Buffer): boolean {
  if (!abs.toString('utf8').endsWith('.json')) return false;
  try {
    const st = fs.statSync(tmpChunk);
    if (st.size > 64 << 20) return false;
    JSON.parse(fs.readFileSync(tmpChunk, 'utf8'));
    return true;
  } catch {
    return false;
  }
}
