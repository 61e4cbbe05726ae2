// One origin's new bytes into its lake file, as one chunk of the pass's batch (journal.ts): the
// complete lines are the chunk, an unterminated tail waits in the pending folder (pending.ts) unless
// it is due: its origin is quiet, or the origin is a .json file that holds one whole JSON document.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentPaths } from '../agents';
import type { Layout } from '../home';
import type { Applier } from './apply';
import { fingerprints, sha256 } from './classify';
import { crashArmed, crashPoint } from './crash';
import { writeAll, writeFileAtomic } from './durable';
import type { ChunkHasher, HashResult } from './hasher';
import { firstTimestamp, type Lane, type ManifestLine } from './manifest';
import { FP_WINDOW, type OffsetRec } from './offsets';
import { dropPending, readPending, writePending } from './pending';
import type { Journal } from './journal';
import { spoolId, type ChunkEntry } from './spool';

/** What reading new bytes takes from the pass. */
export interface ChunkHost {
  readonly l: Layout;
  readonly now: number;
  readonly o: { source: ManifestLine['source']; quietMs: number };
  readonly report: { machine: string };
  readonly applier: Pick<Applier, 'openForChunk'>;
  readonly journal: Journal;
  hasherFor(bytes: number): ChunkHasher;
}

/** The head of the chunk being read, where its first event timestamp is looked for. */
const HEAD = Buffer.allocUnsafe(65536);

/** Failures writing the floor (the lake, the journal, the spool) while a file's bytes were taken
 * in: they stop the pass, as the applier's did, where a failure reading the origin is that file's. */
const floorFailures = new WeakSet<object>();

export function isFloorFailure(e: unknown): boolean {
  return !!e && typeof e === 'object' && floorFailures.has(e);
}

/** The lane's counts this adds to. */
export interface ChunkCounts {
  new_files: number;
  bytes: number;
  lines: number;
  chunks: number;
  pending: number;
}

/** Reads [consumed, size) straight into the lake file (journal.ts); the complete lines become a
 * chunk of the pass's batch, an unterminated tail waits in spool/<lane>/pending/ unless it is due
 * (quiet origin, or a whole JSON document) and is cut from the lake again. Returns the bytes of
 * the chunk (0: no chunk). */
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
  /** Whether a pending tail of this origin is waiting (else there is none to drop or update). */
  pendingWaits: boolean,
  isNew: boolean,
  /** The origin's offsets as this pass read them (null: none), so they are not read again. */
  stored?: OffsetRec | null,
): number {
  const target = openTarget(h, lane, base, stored);
  if (!target) return 0;
  const r: ReadCtx = { h, c, agent, lane, st, abs, session, base, pendingFile, pendingWaits, isNew };
  const pendingBefore = c.pending;
  const lake = path.join(h.l.root, base.lake_path);
  const out = target.fd;
  let closed = false;
  let done = false;
  // Set while the origin is read: a failure then is this file's; any other is the floor's.
  const io = { reading: false };
  try {
    const copied = copyToLake(h, fd, st, base, out, io);
    const { hasher, ticket, head, last } = copied;
    const { chunkEnd, unterminated, source, known } = settleTail(r, lake, out, copied);
    fs.closeSync(out);
    closed = true;
    if (chunkEnd === base.consumed) {
      // Only an unterminated line: nothing to claim, and no lake file made for it.
      if (!known) hasher.drop(ticket);
      if (target.created) fs.rmSync(lake, { force: true });
      done = true;
      return 0;
    }
    io.reading = true;
    const fp = chunkFingerprints(fd, base, chunkEnd, head, last);
    io.reading = false;
    const chunk: Chunk = { chunkEnd, unterminated, source, fp, eventTs: firstTimestamp(head), tookTail: c.pending > pendingBefore };
    if (known || chunk.tookTail || pendingWaits) claim(r, chunk, known ?? hasher.result(ticket));
    else {
      // The common case (no tail waits): the chunk is said in the journal when the batch commits,
      // once its hash is done, so this thread goes on to the next file while the worker hashes.
      // Until then the journal's `open` line stands for these bytes, as for any write not yet
      // said: a kill before the commit has them cut and read again, never claimed.
      h.journal.defer(() => {
        try {
          claim(r, chunk, hasher.result(ticket));
        } catch (e) {
          if (e && typeof e === 'object') floorFailures.add(e);
          throw e;
        }
      });
    }
    done = true;
    return chunkEnd - base.consumed;
  } catch (e) {
    if (!io.reading && e && typeof e === 'object') floorFailures.add(e);
    throw e;
  } finally {
    if (!closed) fs.closeSync(out);
    if (!done) {
      // A failed write (a full disk) leaves nothing past the claims: the bytes are read again.
      try {
        if (target.created) fs.rmSync(lake, { force: true });
        else fs.truncateSync(lake, base.consumed);
      } catch {
        /* the journal has it cut by the next pass */
      }
    }
  }
}

/** readNew's arguments, as its steps take them. */
interface ReadCtx {
  h: ChunkHost;
  c: ChunkCounts;
  agent: AgentPaths;
  lane: Lane;
  st: fs.Stats;
  abs: Buffer;
  session: string;
  base: OffsetRec;
  pendingFile: string;
  pendingWaits: boolean;
  isNew: boolean;
}

/** The chunk read, as its claim says it. */
interface Chunk {
  chunkEnd: number;
  unterminated: boolean;
  source: ManifestLine['source'];
  fp: { head_sha: string; tail_sha: string };
  eventTs: ManifestLine['event_ts_first'];
  /** This read left a tail in the pending folder. */
  tookTail: boolean;
}

/** The lake file open for appending at base.consumed (null: nothing to write there). Any failure is
 * the floor's. */
function openTarget(h: ChunkHost, lane: Lane, base: OffsetRec, stored: OffsetRec | null | undefined): { fd: number; created: boolean } | null {
  try {
    // Said before the lake file is made or written: a kill right after leaves nothing the journal
    // does not account for.
    h.journal.opening(base.lake_path, base.consumed);
    return h.applier.openForChunk({
      lane,
      base_rel: base.base_rel,
      lake_path: base.lake_path,
      origin_path: base.origin,
      byte_from: base.consumed,
      line_from: base.lines + 1,
      stored,
    });
  } catch (e) {
    if (e && typeof e === 'object') floorFailures.add(e);
    throw e;
  }
}

/** What copyToLake read: the hash ticket, where the last newline is, the first and last blocks. */
interface Copied {
  hasher: ChunkHasher;
  ticket: number;
  end: number;
  lastNl: number;
  head: Buffer | null;
  last: { buf: Buffer; start: number } | null;
}

/** Copies the origin's bytes [base.consumed, st.size) to the lake file, hashing them on the way. */
function copyToLake(h: ChunkHost, fd: number, st: fs.Stats, base: OffsetRec, out: number, io: { reading: boolean }): Copied {
  const hasher = h.hasherFor(st.size - base.consumed);
  hasher.begin();
  let lastNl = -1;
  let pos = base.consumed;
  let head: Buffer | null = null;
  let last: { buf: Buffer; start: number } | null = null;
  while (pos < st.size) {
    const buf = hasher.slot();
    io.reading = true;
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, st.size - pos), pos);
    io.reading = false;
    if (n === 0) break;
    const block = buf.subarray(0, n);
    if (!head) {
      // A copy (the slot is reused for the next block), into one scratch buffer for every file.
      head = HEAD.subarray(0, Math.min(n, HEAD.length));
      block.copy(head, 0, 0, head.length);
    }
    const li = block.lastIndexOf(10);
    // Hand the block to the hasher first: on a large pass it is hashed on another core while
    // this thread writes it to the lake.
    hasher.block(buf, n, li);
    if (li >= 0) lastNl = pos + li;
    if (pos === base.consumed && n > 1 && crashArmed()) {
      // Tests: a kill half-way through the write leaves a torn lake tail.
      writeAll(out, block.subarray(0, n >> 1));
      crashPoint('mid-lake-append');
      writeAll(out, block.subarray(n >> 1));
    } else writeAll(out, block);
    last = { buf: block, start: pos };
    pos += n;
  }
  const ticket = hasher.end();
  crashPoint('after-lake-write');
  return { hasher, ticket, end: pos, lastNl, head, last };
}

/** Where the chunk ends: at the last newline, with an unterminated tail either taken (due) or moved
 * to the pending folder and cut from the lake; a pending tail no longer there is dropped. */
function settleTail(
  r: ReadCtx,
  lake: string,
  out: number,
  { hasher, ticket, end, lastNl }: Copied,
): { chunkEnd: number; unterminated: boolean; source: ManifestLine['source']; known: HashResult | null } {
  const { h, c, st, base, abs, pendingFile } = r;
  const complete = lastNl >= 0 ? lastNl + 1 : base.consumed;
  let chunkEnd = complete;
  let unterminated = false;
  let source = h.o.source;
  // Known now only where a pending tail needs the line count; else at the batch's commit.
  let known: HashResult | null = null;
  if (end > complete) {
    const quiet = h.now - st.mtimeMs >= h.o.quietMs;
    const jsonDoc = !quiet && base.consumed === 0 && isJsonDocument(lake, abs);
    if (quiet || jsonDoc) {
      chunkEnd = end;
      unterminated = true;
      if (quiet) source = 'quiet';
    } else {
      known = hasher.result(ticket);
      writePending(pendingFile, lake, complete, end - complete, {
        v: 1,
        lane: r.lane,
        agent: r.agent.agent,
        session: r.session,
        base_rel: base.base_rel,
        origin_raw: abs.toString('base64'),
        origin: base.origin,
        offsets: null,
        gen: base.gen,
        lake_path: base.lake_path,
        byte_from: complete,
        line_from: base.lines + known.lines + 1,
        len: end - complete,
        size: st.size,
        mtime_ms: st.mtimeMs,
      });
      c.pending++;
      crashPoint('after-pending');
      fs.ftruncateSync(out, complete);
    }
  } else if (r.pendingWaits) dropPending(pendingFile);
  return { chunkEnd, unterminated, source, known };
}

/** The fingerprints from the blocks still in memory when they hold both windows (a new file
 * read in one block, the common case); else read from the origin. */
function chunkFingerprints(fd: number, base: OffsetRec, chunkEnd: number, head: Buffer | null, last: { buf: Buffer; start: number } | null): { head_sha: string; tail_sha: string } {
  const hw = Math.min(FP_WINDOW, chunkEnd);
  const tf = Math.max(0, chunkEnd - FP_WINDOW);
  return base.consumed === 0 && head && head.length >= hw && last && tf >= last.start && chunkEnd <= last.start + last.buf.length
    ? { head_sha: sha256(head.subarray(0, hw)), tail_sha: sha256(last.buf.subarray(tf - last.start, chunkEnd - last.start)) }
    : fingerprints(fd, chunkEnd);
}

/** Says the chunk in the journal with its offsets after it, and counts it. */
function claim(x: ReadCtx, k: Chunk, r: HashResult): void {
  const { h, c, base, pendingFile } = x;
  const { chunkEnd, unterminated } = k;
  const lineCount = unterminated ? r.lines + 1 : r.lines;
  const after: OffsetRec = {
    ...base,
    consumed: chunkEnd,
    lines: base.lines + lineCount,
    unterminated,
    ...k.fp,
    updated_at: new Date(h.now).toISOString(),
  };
  // The pending tail (if any) must know the floor state it follows, for a vanished origin.
  const p = k.tookTail || x.pendingWaits ? readPending(pendingFile) : null;
  if (p) writeFileAtomic(pendingFile, JSON.stringify({ ...p, offsets: after }) + '\n', { sync: false });
  const line: ManifestLine = {
    v: 1,
    lane: x.lane,
    agent: x.agent.agent,
    session: x.session,
    gen: base.gen,
    byte_from: base.consumed,
    byte_to: chunkEnd,
    line_from: base.lines + 1,
    line_to: base.lines + lineCount,
    chunk_sha256: unterminated ? r.full : r.atNewline,
    captured_at: new Date().toISOString(),
    event_ts_first: k.eventTs,
    machine_id: h.report.machine,
    origin_path: base.origin,
    source: k.source,
    lake_path: base.lake_path,
    ...(unterminated ? { unterminated: true } : {}),
  };
  h.journal.written({ v: 1, kind: 'chunk', id: spoolId(), line, offsets: after } satisfies ChunkEntry);
  crashPoint('after-journal-chunk');
  c.chunks++;
  c.bytes += chunkEnd - base.consumed;
  c.lines += lineCount;
  if (x.isNew && base.gen === 1) c.new_files++;
}

/** A .json origin without a trailing newline is complete when it parses as one JSON document
 * (`file`: the lake file it was just written to whole). */
function isJsonDocument(file: string, abs: Buffer): boolean {
  if (!abs.toString('utf8').endsWith('.json')) return false;
  try {
    const st = fs.statSync(file);
    if (st.size > 64 << 20) return false;
    JSON.parse(fs.readFileSync(file, 'utf8'));
    return true;
  } catch {
    return false;
  }
}
