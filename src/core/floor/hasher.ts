// sha256 of a chunk while it is copied, with the hash state kept at the last newline (a chunk ends
// at a newline). On a large pass the hashing runs on a second core: the capture thread reads and
// writes 4 MiB slots of a SharedArrayBuffer while a worker thread hashes the slots it has filled.
// The capture thread stays synchronous: it waits on Atomics for a free slot and for the digest.
import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

export const SLOT = 4 << 20;

export interface ChunkHasher {
  /** A buffer to read the next block into (waits until one is free). */
  slot(): Buffer;
  begin(): void;
  /** The block just read into `slot()`'s buffer: `n` bytes, last newline at `lastNl` (-1: none). */
  block(buf: Buffer, n: number, lastNl: number): void;
  /** Digests of everything, and of everything up to the last newline ('' if there was none). */
  end(): { full: string; atNewline: string };
  dispose(): void;
}

export class InlineHasher implements ChunkHasher {
  private buf = Buffer.allocUnsafe(SLOT);
  private h: Hash = createHash('sha256');
  private snap: Hash | null = null;
  slot(): Buffer {
    return this.buf;
  }
  begin(): void {
    this.h = createHash('sha256');
    this.snap = null;
  }
  block(buf: Buffer, n: number, lastNl: number): void {
    if (lastNl >= 0) {
      this.h.update(buf.subarray(0, lastNl + 1));
      this.snap = this.h.copy();
      this.h.update(buf.subarray(lastNl + 1, n));
    } else this.h.update(buf.subarray(0, n));
  }
  end(): { full: string; atNewline: string } {
    return { full: this.h.digest('hex'), atNewline: this.snap ? this.snap.digest('hex') : '' };
  }
  dispose(): void {}
}

const SLOTS = 4;
const CTRL = 64; // bytes of control words: one per slot, [15] = digest ready
const RES = 192; // two 64-byte hex digests
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { sab, slotSize, base } = workerData;
const ctrl = new Int32Array(sab, 0, 16);
const res = Buffer.from(sab, 64, 128);
let h = null, snap = null;
parentPort.on('message', (m) => {
  if (m.t === 'begin') { h = createHash('sha256'); snap = null; return; }
  if (m.t === 'block') {
    const b = Buffer.from(sab, base + m.slot * slotSize, m.n);
    if (m.nl >= 0) { h.update(b.subarray(0, m.nl + 1)); snap = h.copy(); h.update(b.subarray(m.nl + 1)); }
    else h.update(b);
    Atomics.store(ctrl, m.slot, 0);
    Atomics.notify(ctrl, m.slot);
    return;
  }
  if (m.t === 'end') {
    res.write(h.digest('hex'), 0, 'latin1');
    res.write((snap ? snap.digest('hex') : '').padEnd(64, ' '), 64, 'latin1');
    Atomics.store(ctrl, 15, 1);
    Atomics.notify(ctrl, 15);
  }
});`;

export class WorkerHasher implements ChunkHasher {
  private sab = new SharedArrayBuffer(CTRL + RES + SLOTS * SLOT);
  private ctrl = new Int32Array(this.sab, 0, 16);
  private slots = Array.from({ length: SLOTS }, (_, i) => Buffer.from(this.sab, CTRL + RES + i * SLOT, SLOT));
  private next = 0;
  private worker = new Worker(WORKER, { eval: true, workerData: { sab: this.sab, slotSize: SLOT, base: CTRL + RES } });

  constructor() {
    this.worker.unref();
  }
  slot(): Buffer {
    const i = this.next;
    // Wait for the worker to be done with this slot (it is free again once hashed).
    while (Atomics.load(this.ctrl, i) !== 0) Atomics.wait(this.ctrl, i, 1, 1000);
    return this.slots[i];
  }
  begin(): void {
    this.worker.postMessage({ t: 'begin' });
  }
  block(_buf: Buffer, n: number, lastNl: number): void {
    const i = this.next;
    Atomics.store(this.ctrl, i, 1);
    this.worker.postMessage({ t: 'block', slot: i, n, nl: lastNl });
    this.next = (i + 1) % SLOTS;
  }
  end(): { full: string; atNewline: string } {
    Atomics.store(this.ctrl, 15, 0);
    this.worker.postMessage({ t: 'end' });
    while (Atomics.load(this.ctrl, 15) === 0) Atomics.wait(this.ctrl, 15, 0, 1000);
    const res = Buffer.from(this.sab, CTRL, 128);
    return { full: res.toString('latin1', 0, 64), atNewline: res.toString('latin1', 64, 128).trim() };
  }
  dispose(): void {
    void this.worker.terminate();
  }
}
