// sha256 and line count of a chunk while it is copied, with the hash state kept at the last newline
// (a chunk ends at a newline). On a large pass the hashing runs on a second core: the capture
// thread reads each block into a ring of shared memory, hands it over, writes it to the lake and
// goes on to the next block and the next file; a worker thread hashes the blocks in order. Nothing
// waits per file: a file's digests are asked for (result) when its chunk is committed, so the two
// threads only meet when the ring is full or a batch is committed. Hand-over and waking go through
// Atomics on the shared memory (no messages: a message per block cost more than the hashing).
import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { countNewlines } from './ranges';

/** The largest block one read takes. */
export const SLOT = 512 << 10;

export interface HashResult {
  /** Digest of every byte handed over. */
  full: string;
  /** Digest of the bytes up to and including the last newline ('' if there was none). */
  atNewline: string;
  /** Newlines among the bytes. */
  lines: number;
}

export interface ChunkHasher {
  /** A buffer to read the next block into, SLOT bytes long (waits until one is free). */
  slot(): Buffer;
  begin(): void;
  /** The block just read into `slot()`'s buffer: `n` bytes, last newline at `lastNl` (-1: none). */
  block(buf: Buffer, n: number, lastNl: number): void;
  /** Ends the chunk; its result is asked for with the ticket returned. */
  end(): number;
  /** The result of an ended chunk (waits for it); each ticket is asked for once. */
  result(ticket: number): HashResult;
  /** A ticket whose result is not wanted. */
  drop(ticket: number): void;
  dispose(): void;
}

export class InlineHasher implements ChunkHasher {
  private buf = Buffer.allocUnsafe(SLOT);
  private h: Hash = createHash('sha256');
  private snap: Hash | null = null;
  private lines = 0;
  private next = 0;
  private done = new Map<number, HashResult>();
  slot(): Buffer {
    return this.buf;
  }
  begin(): void {
    this.h = createHash('sha256');
    this.snap = null;
    this.lines = 0;
  }
  block(buf: Buffer, n: number, lastNl: number): void {
    if (lastNl >= 0) {
      this.h.update(buf.subarray(0, lastNl + 1));
      this.snap = this.h.copy();
      this.h.update(buf.subarray(lastNl + 1, n));
      this.lines += countNewlines(buf, 0, lastNl + 1);
    } else this.h.update(buf.subarray(0, n));
  }
  end(): number {
    const t = this.next++;
    this.done.set(t, { full: this.h.digest('hex'), atNewline: this.snap ? this.snap.digest('hex') : '', lines: this.lines });
    return t;
  }
  result(ticket: number): HashResult {
    const r = this.done.get(ticket);
    if (!r) throw new Error(`no hash for ticket ${ticket}`);
    this.done.delete(ticket);
    return r;
  }
  drop(ticket: number): void {
    this.done.delete(ticket);
  }
  dispose(): void {}
}

/** Bytes of the ring: eight full-size blocks in flight at most. */
const RING = 8 * SLOT;
/** Job descriptors in flight at most (a job is one block; small files make many). */
const JOBS = 4096;
const JOB_INTS = 5; // ring offset, bytes, last newline, flags, ticket
const FIRST = 1;
const LAST = 2;
const EXIT = 4;
/** Result slots: a ticket's slot is reused TICKETS tickets later (collected first if unread). */
const TICKETS = 8192;
const CTRL_BYTES = 32; // [0] jobs posted, [1] jobs done, [2] worker asleep, [3] capture thread asleep, [4] worker failed
const JOBS_BASE = CTRL_BYTES;
const LINES_BASE = JOBS_BASE + JOBS * JOB_INTS * 4; // one float64 per ticket
const DIGESTS_BASE = LINES_BASE + TICKETS * 8; // 65 bytes per ticket: two raw digests, and whether the second is set
const RING_BASE = DIGESTS_BASE + TICKETS * 72;

const WORKER = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { sab, c } = workerData;
const ctrl = new Int32Array(sab, 0, 8);
const jobs = new Int32Array(sab, c.JOBS_BASE, c.JOBS * c.JOB_INTS);
const lines = new Float64Array(sab, c.LINES_BASE, c.TICKETS);
const digests = Buffer.from(sab, c.DIGESTS_BASE, c.TICKETS * 72);
let h = null, snap = null, n = 0, done = 0;
const count = (b, to) => { let k = 0, i = b.indexOf(10); while (i >= 0 && i < to) { k++; i = b.indexOf(10, i + 1); } return k; };
try { for (;;) {
  while (Atomics.load(ctrl, 0) === done) {
    Atomics.store(ctrl, 2, 1);
    Atomics.wait(ctrl, 0, done);
    Atomics.store(ctrl, 2, 0);
  }
  const j = (done % c.JOBS) * c.JOB_INTS;
  const off = jobs[j], len = jobs[j + 1], nl = jobs[j + 2], flags = jobs[j + 3], t = jobs[j + 4];
  if (flags & c.EXIT) break;
  if (flags & c.FIRST) { h = createHash('sha256'); snap = null; n = 0; }
  if (len > 0) {
    const b = Buffer.from(sab, c.RING_BASE + off, len);
    if (nl >= 0) { h.update(b.subarray(0, nl + 1)); snap = h.copy(); h.update(b.subarray(nl + 1)); n += count(b, nl + 1); }
    else h.update(b);
  }
  if (flags & c.LAST) {
    const k = t % c.TICKETS;
    h.digest().copy(digests, k * 72);
    if (snap) { snap.digest().copy(digests, k * 72 + 32); digests[k * 72 + 64] = 1; } else digests[k * 72 + 64] = 0;
    lines[k] = n;
  }
  done++;
  Atomics.store(ctrl, 1, done);
  if (Atomics.load(ctrl, 3)) Atomics.notify(ctrl, 1);
} } catch (e) {
  Atomics.store(ctrl, 4, 1);
  Atomics.notify(ctrl, 1);
  throw e;
}`;

export class WorkerHasher implements ChunkHasher {
  private sab = new SharedArrayBuffer(RING_BASE + RING);
  private ctrl = new Int32Array(this.sab, 0, 8);
  private jobs = new Int32Array(this.sab, JOBS_BASE, JOBS * JOB_INTS);
  private lines = new Float64Array(this.sab, LINES_BASE, TICKETS);
  private digests = Buffer.from(this.sab, DIGESTS_BASE, TICKETS * 72);
  private ring = Buffer.from(this.sab, RING_BASE, RING);
  /** Jobs posted; where in the ring (monotonic bytes) each job in flight starts. */
  private posted = 0;
  private starts = new Float64Array(JOBS);
  /** Monotonic ring position of the next block (its offset in the ring: modulo RING). */
  private pos = 0;
  private first = false;
  private ticket = 0;
  /** The job each ended ticket waits on, and results collected before their slot was reused. */
  private lastJob = new Map<number, number>();
  private kept = new Map<number, HashResult>();
  private worker = new Worker(WORKER, {
    eval: true,
    workerData: { sab: this.sab, c: { JOBS, JOB_INTS, FIRST, LAST, EXIT, TICKETS, JOBS_BASE, LINES_BASE, DIGESTS_BASE, RING_BASE } },
  });

  constructor() {
    this.worker.unref();
    // Its failure is said through the shared flag, to the waiting thread (waitJob).
    this.worker.on('error', () => undefined);
  }

  private doneJobs(): number {
    return Atomics.load(this.ctrl, 1);
  }

  /** Waits until the worker has finished job `j`. */
  private waitJob(j: number): void {
    // Said before each wait, so the worker wakes this thread only when it sleeps (a wake is a
    // system call; most jobs finish with nobody waiting). The timeout covers the flag's race.
    for (let d = this.doneJobs(); d <= j; d = this.doneJobs()) {
      // A worker that died (out of memory) would be waited for forever, with the floor lock held.
      if (Atomics.load(this.ctrl, 4)) throw new Error('the hashing thread stopped; run `brain record` again');
      Atomics.store(this.ctrl, 3, 1);
      if (this.doneJobs() === d) Atomics.wait(this.ctrl, 1, d, 50);
      Atomics.store(this.ctrl, 3, 0);
    }
  }

  slot(): Buffer {
    // A block never wraps: skip to the ring's start when a whole slot does not fit before its end.
    const at = this.pos % RING;
    if (RING - at < SLOT) this.pos += RING - at;
    // The bytes [pos, pos + SLOT) are free once every job that starts before pos + SLOT - RING is done.
    const need = this.pos + SLOT - RING;
    for (let d = this.doneJobs(); d < this.posted && this.starts[d % JOBS] < need; d = this.doneJobs()) this.waitJob(d);
    return this.ring.subarray(this.pos % RING, this.pos % RING + SLOT);
  }

  begin(): void {
    this.first = true;
  }

  private post(off: number, n: number, nl: number, flags: number, ticket: number): void {
    // A descriptor's place is free once the job JOBS before it is done.
    if (this.posted >= JOBS) this.waitJob(this.posted - JOBS);
    const j = (this.posted % JOBS) * JOB_INTS;
    this.jobs[j] = off;
    this.jobs[j + 1] = n;
    this.jobs[j + 2] = nl;
    this.jobs[j + 3] = flags;
    this.jobs[j + 4] = ticket;
    this.starts[this.posted % JOBS] = this.pos;
    this.posted++;
    Atomics.store(this.ctrl, 0, this.posted);
    // The worker says it sleeps before it checks for jobs again, so a job stored before this load
    // is either seen by that check or wakes it here.
    if (Atomics.load(this.ctrl, 2)) Atomics.notify(this.ctrl, 0);
  }

  block(_buf: Buffer, n: number, lastNl: number): void {
    this.post(this.pos % RING, n, lastNl, this.first ? FIRST : 0, 0);
    this.first = false;
    this.pos += n;
  }

  end(): number {
    const t = this.ticket++;
    // The result slot this ticket takes: the ticket that had it is collected first if unread.
    const old = t - TICKETS;
    if (old >= 0 && this.lastJob.has(old)) this.kept.set(old, this.result(old));
    this.post(0, 0, -1, this.first ? FIRST | LAST : LAST, t);
    this.first = false;
    this.lastJob.set(t, this.posted - 1);
    return t;
  }

  result(ticket: number): HashResult {
    const kept = this.kept.get(ticket);
    if (kept) {
      this.kept.delete(ticket);
      return kept;
    }
    const j = this.lastJob.get(ticket);
    if (j === undefined) throw new Error(`no hash for ticket ${ticket}`);
    this.waitJob(j);
    this.lastJob.delete(ticket);
    const k = (ticket % TICKETS) * 72;
    return {
      full: this.digests.toString('hex', k, k + 32),
      atNewline: this.digests[k + 64] ? this.digests.toString('hex', k + 32, k + 64) : '',
      lines: this.lines[ticket % TICKETS],
    };
  }

  drop(ticket: number): void {
    this.lastJob.delete(ticket);
    this.kept.delete(ticket);
  }

  dispose(): void {
    this.post(0, 0, -1, EXIT, 0);
    void this.worker.terminate();
  }
}
