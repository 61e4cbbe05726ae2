// The raw index: every file's complete lines as trigram keys (trigrams.ts), each key with the
// list of raw chunks (raw_chunks: a file's lines read in one update) that hold it. It answers
// which files may hold a term (those with a chunk holding all its keys), and the tool tier then
// reads those files to verify: a prefilter, like rg, not an answer.
//
// A key's list is a few rows of raw_post, each a segment of ascending chunk ids, rowid
// key * SEG + segment number, so one rowid range is a key's whole list. A segment is written in
// the smaller of two forms: varint deltas (the first from 0), or, for a key most chunks hold (a
// common trigram), a bitmap: a 0 byte (no varint of the first form starts with one: ids and their
// deltas are at least 1), the first id as a varint, then one bit per id from it on.
// Chunk ids only grow, so an update appends: to the key's last segment while it is small (a
// one-line append rewrites a few KB, whatever the store's size), else to a new one. A first build
// gathers every key's list in memory and writes it once, in segments of the same size. FTS5 did this before (schema 7), at
// several times the cost: every trigram a string, tokenized and merged again and again.
import type { SqliteDatabase } from '../../sqlite';
import { ASCII_KEYS, trigramKeys } from '../trigrams';

const SEG = 2 ** 20;
/** A segment's size at most (about): eight fit a 4 KB page, so a key's last, partly filled one
 * wastes little of it, none spills to overflow pages, and a one-line append rewrites one page per
 * trigram it brings. */
const SEG_MAX = 480;

function putVarint(out: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[at++] = v;
  return at;
}

function varintLen(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Appends the chunk ids a segment holds to `out`; returns the last one (0: none). */
function decode(b: Uint8Array, out: number[] | null): number {
  let v = 0;
  let mul = 1;
  let i = 0;
  if (b.length > 0 && b[0] === 0) {
    // A bitmap: its first id, then a bit per id.
    for (i = 1; b[i] & 0x80; i++, mul *= 128) v += (b[i] & 0x7f) * mul;
    const base = v + b[i++] * mul;
    let last = 0;
    for (let j = i; j < b.length; j++) {
      let x = b[j];
      while (x) {
        const bit = 31 - Math.clz32(x & -x);
        x &= x - 1;
        last = base + (j - i) * 8 + bit;
        out?.push(last);
      }
    }
    return last;
  }
  let prev = 0;
  for (; i < b.length; i++) {
    const x = b[i];
    v += (x & 0x7f) * mul;
    if (x & 0x80) {
      mul *= 128;
      continue;
    }
    prev += v;
    out?.push(prev);
    v = 0;
    mul = 1;
  }
  return prev;
}

/** Writes one segment: as many of `ids` from `from` on as fit SEG_MAX bytes in the smaller form,
 * into `out`. Returns the index after the last id taken and the segment's length. */
function encodeSeg(ids: ArrayLike<number>, from: number, to: number, out: Uint8Array): { end: number; len: number } {
  const base = ids[from];
  const head = 1 + varintLen(base);
  let vlen = 0;
  let prev = 0;
  let j = from;
  for (; j < to; j++) {
    const v = vlen + varintLen(ids[j] - prev);
    if (Math.min(v, head + ((ids[j] - base) >>> 3) + 1) > SEG_MAX) break;
    vlen = v;
    prev = ids[j];
  }
  const blen = head + ((ids[j - 1] - base) >>> 3) + 1;
  if (blen < vlen) {
    out.fill(0, 0, blen);
    putVarint(out, 1, base);
    for (let k = from; k < j; k++) {
      const d = ids[k] - base;
      out[head + (d >>> 3)] |= 1 << (d & 7);
    }
    return { end: j, len: blen };
  }
  let len = 0;
  prev = 0;
  for (let k = from; k < j; k++) {
    len = putVarint(out, len, ids[k] - prev);
    prev = ids[k];
  }
  return { end: j, len };
}

export function rawStatements(d: SqliteDatabase) {
  return {
    lastSeg: d.prepare(`SELECT k, ids FROM raw_post WHERE k >= ? AND k < ? ORDER BY k DESC LIMIT 1`),
    anySeg: d.prepare(`SELECT 1 FROM raw_post LIMIT 1`).pluck(),
    putSeg: d.prepare(`INSERT OR REPLACE INTO raw_post (k, ids) VALUES (?, ?)`),
    segs: d.prepare(`SELECT ids FROM raw_post WHERE k >= ? AND k < ? ORDER BY k`).pluck(),
    chunkFiles: d.prepare(`SELECT file_id, byte_from, byte_to FROM raw_chunks WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`).raw(),
    lastChunk: d.prepare(`SELECT max(id) FROM raw_chunks`).pluck(),
    allChunks: d.prepare(`SELECT id, file_id, byte_from, byte_to FROM raw_chunks`).raw(),
  };
}

type RawSt = ReturnType<typeof rawStatements>;

/** Fewer keys than this in a flush are sorted by their own slots, not the ASCII table's. */
const SMALL_FLUSH = 1 << 15;

/** Chunks' keys gathered until flush(), which writes them in the caller's transaction (the one
 * that moves the files' raw_done, so the two never disagree). Each chunk's keys are kept as they
 * came (copying them into one growing array cost a tenth of a short-turn build: its allocations'
 * page faults), then put in key order by a counting sort: a Map of lists costs ten times more. */
export class RawWriter {
  private parts: Int32Array[] = [];
  private ids: number[] = [];
  private n = 0;
  /** The table was empty when this writer began (a first build): keys it has not written yet
   * have no segment to look up. */
  private empty: boolean | null = null;
  private written = new Set<number>();

  constructor(private readonly st: RawSt) {}

  /** `keys` is kept, not copied: the caller does not change it afterwards. */
  add(chunk: number, keys: Int32Array): void {
    this.parts.push(keys);
    this.ids.push(chunk);
    this.n += keys.length;
  }

  /** Bytes held in memory (about). */
  get size(): number {
    return this.n * 4;
  }

  flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.empty ??= this.st.anySeg.get() === undefined;
    const { parts, ids } = this;
    // Each key a slot: ASCII keys are their own, the hashed ones follow in key order. A small
    // flush (an update's few lines) gives only its own keys a slot: the 2M ASCII slots cost an
    // appended line ~0.3 s of CPU to allocate and walk.
    const small = n < SMALL_FLUSH;
    const base = small ? 0 : ASCII_KEYS;
    // The keys that get a slot of their own after the `base` direct ones, in key order.
    const own = new Set<number>();
    for (const keys of parts) for (let i = 0; i < keys.length; i++) if (keys[i] >= base) own.add(keys[i]);
    const ownSorted = [...own].sort((a, b) => a - b);
    const ownSlot = new Map(ownSorted.map((k, i) => [k, base + i]));
    const slots = base + ownSorted.length;
    const slotOf = (k: number) => (k < base ? k : (ownSlot.get(k) as number));
    const start = new Int32Array(slots + 1);
    for (const keys of parts) for (let i = 0; i < keys.length; i++) start[slotOf(keys[i]) + 1]++;
    for (let s = 0; s < slots; s++) start[s + 1] += start[s];
    const fill = start.slice(0, slots);
    const order = new Int32Array(n);
    // Stable: a key's chunks stay in the order they came, which is ascending.
    for (let p = 0; p < parts.length; p++) {
      const keys = parts[p];
      const chunk = ids[p];
      for (let i = 0; i < keys.length; i++) order[fill[slotOf(keys[i])]++] = chunk;
    }
    const scratch = new Uint8Array(SEG_MAX + 5);
    for (let s = 0; s < slots; s++) {
      let i = start[s];
      const to = start[s + 1];
      if (i === to) continue;
      const k = s < base ? s : ownSorted[s - base];
      const last = this.empty && !this.written.has(k) ? undefined : (this.st.lastSeg.get(k * SEG, (k + 1) * SEG) as { k: number; ids: Uint8Array } | undefined);
      let seg = last ? last.k : k * SEG - 1;
      if (last && last.ids.length < SEG_MAX && last.ids[0] === 0) {
        // Into a bitmap segment while it has room: the new ids (all past its last) are bits set
        // in a copy. A common trigram's segment holds thousands of ids, and decoding them into a
        // list to encode them again cost a one-line append ~50 ms of CPU at 4.2 GB.
        const b = last.ids;
        let p = 1;
        let bitBase = 0;
        for (let mul = 1; ; p++, mul *= 128) {
          bitBase += (b[p] & 0x7f) * mul;
          if (!(b[p] & 0x80)) break;
        }
        const head = p + 1;
        let j = i;
        let len = b.length;
        while (j < to && head + ((order[j] - bitBase) >>> 3) < SEG_MAX) len = Math.max(len, head + ((order[j++] - bitBase) >>> 3) + 1);
        if (j > i) {
          const out = Buffer.alloc(len);
          out.set(b);
          for (let q = i; q < j; q++) {
            const d = order[q] - bitBase;
            out[head + (d >>> 3)] |= 1 << (d & 7);
          }
          this.st.putSeg.run(last.k, out);
          i = j;
        }
      } else if (last && last.ids.length < SEG_MAX) {
        // Into the last segment while it has room: its ids and the new ones, written again
        // (a segment holds fewer than 8 * SEG_MAX ids).
        const pre: number[] = [];
        decode(last.ids, pre);
        const had = pre.length;
        for (let j = i; j < to && pre.length < had + 8 * SEG_MAX; j++) pre.push(order[j]);
        const { end, len } = encodeSeg(pre, 0, pre.length, scratch);
        if (end > had) {
          this.st.putSeg.run(last.k, Buffer.from(scratch.subarray(0, len)));
          i += end - had;
        }
      }
      while (i < to) {
        const { end, len } = encodeSeg(order, i, to, scratch);
        i = end;
        if (++seg >= (k + 1) * SEG) throw new Error(`the raw index has no room left for trigram key ${k}`);
        this.st.putSeg.run(seg, Buffer.from(scratch.subarray(0, len)));
      }
      if (this.empty) this.written.add(k);
    }
    this.parts = [];
    this.ids = [];
    this.n = 0;
  }

  /** Forgets what was gathered (the tables were emptied, or the transaction rolled back). */
  clear(): void {
    this.parts = [];
    this.ids = [];
    this.n = 0;
    this.empty = null;
    this.written.clear();
  }
}

/** The files with a chunk holding every trigram key of one of `forms` (lowercased raw forms of a
 * term), each with those chunks' byte ranges (from, to pairs, ascending): a superset of the files
 * and lines that hold it. Null: a form has no trigram. */
export function rawFilesOf(st: RawSt, forms: string[]): Map<number, number[]> | null {
  const lists = new Map<number, number[]>();
  const listOf = (k: number): number[] => {
    let l = lists.get(k);
    if (!l) {
      l = [];
      // Each segment starts from 0 again: its first id is whole.
      for (const b of st.segs.all(k * SEG, (k + 1) * SEG) as Buffer[]) decode(b, l);
      lists.set(k, l);
    }
    return l;
  };
  const chunks = new Set<number>();
  for (const f of forms) {
    const keys = trigramKeys(f);
    if (keys.length === 0) return null;
    const ls = keys.map(listOf).sort((a, b) => a.length - b.length);
    if (ls[0].length === 0) continue;
    let cur = new Set(ls[0]);
    for (let i = 1; i < ls.length && cur.size; i++) {
      const next = new Set<number>();
      for (const c of ls[i]) if (cur.has(c)) next.add(c);
      cur = next;
    }
    for (const c of cur) chunks.add(c);
  }
  const files = new Map<number, number[]>();
  if (chunks.size === 0) return files;
  const add = (file: number, from: number, to: number) => {
    const r = files.get(file);
    if (r) r.push(from, to);
    else files.set(file, [from, to]);
  };
  // Most chunks: read them all; else one statement for the ids (a lookup each costs more).
  // Chunk ids grow with a file's bytes, so either way a file's ranges come in order.
  if (chunks.size * 4 > ((st.lastChunk.get() as number | null) ?? 0)) {
    for (const [id, file, from, to] of st.allChunks.all() as [number, number, number, number][]) if (chunks.has(id)) add(file, from, to);
  } else {
    for (const [file, from, to] of st.chunkFiles.all(JSON.stringify([...chunks].sort((a, b) => a - b))) as [number, number, number][]) add(file, from, to);
  }
  return files;
}
