// The chunk hashers: a chunk's digests (whole, and up to its last newline) and its newline count
// must be those of its bytes, whether it is hashed on this thread or on the worker, and however
// long after its end its result is asked for (a pass asks at the batch's commit, thousands of
// files later, after the worker's ring of blocks has gone round many times).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { InlineHasher, SLOT, WorkerHasher, type ChunkHasher, type HashResult } from '../../../src/core/floor/hasher';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** A chunk of `len` bytes with newlines at random places (none when `lines` is false). */
function chunk(r: () => number, len: number, lines: boolean): Buffer {
  const b = Buffer.alloc(len, 0x61);
  if (lines) for (let i = 0; i < len; i += 1 + Math.floor(r() * 3000)) b[i] = 10;
  return b;
}

function expected(b: Buffer): HashResult {
  const last = b.lastIndexOf(10);
  let lines = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
  return {
    full: createHash('sha256').update(b).digest('hex'),
    atNewline: last >= 0 ? createHash('sha256').update(b.subarray(0, last + 1)).digest('hex') : '',
    lines,
  };
}

/** Hands `b` over as the capture does: blocks of at most SLOT bytes read into the hasher's slot. */
function feed(h: ChunkHasher, b: Buffer): number {
  h.begin();
  for (let pos = 0; pos < b.length; ) {
    const buf = h.slot();
    const n = Math.min(buf.length, b.length - pos);
    b.copy(buf, 0, pos, pos + n);
    h.block(buf, n, buf.subarray(0, n).lastIndexOf(10));
    pos += n;
  }
  return h.end();
}

function run(h: ChunkHasher, sizes: number[], seed: number): void {
  const r = rng(seed);
  const chunks = sizes.map((len) => chunk(r, len, r() > 0.1));
  const tickets = chunks.map((b) => feed(h, b));
  // Asked for only now, as a batch's commit does, and the last ones first.
  for (let i = chunks.length - 1; i >= 0; i--) assert.deepEqual(h.result(tickets[i]), expected(chunks[i]), `chunk ${i} (${chunks[i].length} bytes)`);
}

test('worker hasher: results asked for long after their chunks, across many turns of its ring', () => {
  const r = rng(1);
  // Small chunks (a block each), chunks of several blocks, and empty ones: over 4096 blocks and
  // several times the ring's bytes go through before the first result is asked for.
  const sizes = [
    ...Array.from({ length: 5000 }, () => Math.floor(r() * 12000)),
    ...Array.from({ length: 4 }, () => SLOT * 2 + Math.floor(r() * SLOT)),
    0,
    SLOT,
    SLOT + 1,
  ];
  const h = new WorkerHasher();
  try {
    run(h, sizes, 2);
  } finally {
    h.dispose();
  }
});

test('worker hasher: more chunks ended than it keeps result slots for, none read until the end', () => {
  const h = new WorkerHasher();
  try {
    run(h, Array.from({ length: 9000 }, (_, i) => 1 + (i % 700)), 3);
  } finally {
    h.dispose();
  }
});

test('inline hasher: the same results', () => {
  const r = rng(4);
  run(new InlineHasher(), [...Array.from({ length: 300 }, () => Math.floor(r() * 20000)), SLOT + 7, 0], 5);
});

test('worker hasher: a hashing thread that fails is said, not waited for forever', () => {
  const h = new WorkerHasher();
  try {
    h.begin();
    const buf = h.slot();
    // A block the worker cannot take (past the end of the shared memory) makes it throw.
    h.block(buf, 64 << 20, -1);
    const t = h.end();
    assert.throws(() => h.result(t), /hashing thread stopped/);
  } finally {
    h.dispose();
  }
});
