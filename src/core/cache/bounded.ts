// Reading one value of a DuckDB result without holding more of it than the answer can carry. The
// node API turns a value into JavaScript whole: a list of 60 million numbers becomes 60 million
// JavaScript values, a 300 MB text one 300 MB string, before any cap can look at it (seconds of
// the main thread and gigabytes, past any timeout, since no timer runs meanwhile). Here a value is
// first measured from its vectors, stopping once it passes the room it has; only a value that fits
// is converted whole, and a longer one gives only its head, read element by element or, for text,
// as a prefix of its bytes.
import { JsonDuckDBValueConverter, DuckDBTypeId, type DuckDBVector, type DuckDBType } from '@duckdb/node-api';

/** The vector kinds walked here, as far as this file uses them (their other members are the node
 * API's own). */
interface ListLike {
  getItemVector(i: number): DuckDBVector | null;
  getEntryLength(i: number): number;
}
interface StructLike {
  entryVectorAt(k: number): DuckDBVector;
  isItemValid(i: number): boolean;
}

// The 16-byte string header DuckDB keeps per VARCHAR/BLOB value: its byte length, then the bytes
// themselves (up to 12) or a pointer to them. The node API reads the bytes whole; reading the
// header here gives the length first, and a prefix is read by handing it a header whose length is
// shortened. When the node API no longer looks like this, values are read whole as before (and
// the bounds tests say so).
type StringBytes = (view: DataView, offset: number) => Uint8Array;
let stringBytes: StringBytes | null | undefined;
function accessor(): StringBytes | null {
  if (stringBytes === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const m = require('@duckdb/node-api/lib/vectors/dataAccessors') as { getStringBytes?: StringBytes };
      stringBytes = typeof m.getStringBytes === 'function' ? m.getStringBytes : null;
    } catch {
      stringBytes = null;
    }
  }
  return stringBytes;
}

function headerOf(v: DuckDBVector, i: number): DataView | null {
  const view = (v as unknown as { dataView?: unknown }).dataView;
  if (!(view instanceof DataView) || view.byteLength < (i + 1) * 16 || !accessor()) return null;
  return view;
}

const isText = (t: number) => t === DuckDBTypeId.VARCHAR || t === DuckDBTypeId.BLOB;

function valid(v: DuckDBVector, i: number): boolean {
  const validity = (v as unknown as { validity?: { itemValid?: (i: number) => boolean } }).validity;
  return typeof validity?.itemValid === 'function' ? validity.itemValid(i) : v.getItem(i) !== null;
}

/** Byte length of a VARCHAR/BLOB value from its header, or null when it cannot be read so. */
function textLength(v: DuckDBVector, i: number): number | null {
  const h = headerOf(v, i);
  return h ? h.getUint32(i * 16, true) : null;
}

/** The first `n` bytes of a VARCHAR/BLOB value (all of it when shorter). */
function textHead(v: DuckDBVector, i: number, n: number): Uint8Array {
  const h = headerOf(v, i)!;
  const len = h.getUint32(i * 16, true);
  if (len <= 12 || n >= len) return accessor()!(h, i * 16);
  const copy = new DataView(h.buffer.slice(h.byteOffset + i * 16, h.byteOffset + i * 16 + 16));
  // A shortened length above 12 still says "pointer", so the bytes are read from where they are.
  copy.setUint32(0, Math.max(13, n), true);
  return accessor()!(new DataView(copy.buffer, 0, 16), 0).subarray(0, n);
}

function children(v: DuckDBVector, i: number): DuckDBVector | null {
  const t = v.type.typeId;
  if (t === DuckDBTypeId.LIST) return (v as unknown as ListLike).getItemVector(i);
  if (t === DuckDBTypeId.MAP) {
    const list = (v as unknown as { listVector?: ListLike }).listVector;
    return list ? list.getItemVector(i) : null;
  }
  if (t === DuckDBTypeId.ARRAY) {
    const a = v as unknown as { childData?: DuckDBVector };
    const n = (v.type as unknown as { length: number }).length;
    return a.childData && valid(v, i) ? a.childData.slice(i * n, n) : null;
  }
  return null;
}

const NESTED = new Set<number>([DuckDBTypeId.LIST, DuckDBTypeId.MAP, DuckDBTypeId.ARRAY]);

/** Whether this value's parts can be walked here (else it is converted whole). */
function walkable(v: DuckDBVector, i: number): boolean {
  const t = v.type.typeId;
  if (isText(t)) return textLength(v, i) !== null;
  if (NESTED.has(t)) return t === DuckDBTypeId.LIST || children(v, i) !== null || !valid(v, i);
  if (t === DuckDBTypeId.STRUCT) return typeof (v as unknown as StructLike).entryVectorAt === 'function';
  return false;
}

/**
 * About how many bytes of JSON the value at `i` takes, counted until it passes `limit` (then
 * something above `limit` is returned): the work is bounded by `limit`, not by the value. Numbers
 * and other short scalars count a few bytes each, so a value measured within its room converts to
 * at most a small multiple of it.
 */
export function measure(v: DuckDBVector, i: number, limit: number): number {
  if (!walkable(v, i)) {
    // Short scalars (numbers, dates, UUIDs…): a fixed guess; the answer's own measure is exact.
    if (!isText(v.type.typeId) && !NESTED.has(v.type.typeId) && v.type.typeId !== DuckDBTypeId.STRUCT) return 8;
    return JSON.stringify(convert(v.getItem(i), v.type) ?? null).length;
  }
  if (!valid(v, i)) return 4;
  const t = v.type.typeId;
  if (isText(t)) return textLength(v, i)! + 2;
  if (t === DuckDBTypeId.STRUCT) {
    const s = v as unknown as StructLike;
    const names = (v.type as unknown as { entryNames: string[] }).entryNames;
    let n = 2;
    for (let k = 0; k < names.length && n <= limit; k++) n += names[k].length + 4 + measure(s.entryVectorAt(k), i, limit - n);
    return n;
  }
  const c = children(v, i);
  if (!c) return 4;
  let n = 2;
  for (let j = 0; j < c.itemCount && n <= limit; j++) n += 1 + measure(c, j, limit - n);
  return n;
}

export function convert(raw: ReturnType<DuckDBVector['getItem']>, type: DuckDBType): unknown {
  return JsonDuckDBValueConverter(raw, type, JsonDuckDBValueConverter);
}

export interface Head {
  /** The start of the value as text: a text value's own characters, anything else as JSON. */
  text: string;
  /** What was left out once `kept` (a start of `text`) is kept, for the marker: "49.9 MB" (for a
   * list, estimated from the items read). */
  rest(kept: string): string;
}

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');

export function sizeText(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const u = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${u[i]}`;
}

/** The first about `room` characters of a value too long for its room, read without converting
 * the rest. Only for a value `walkable` says can be walked. */
export function head(v: DuckDBVector, i: number, room: number, json: (x: unknown) => unknown): Head {
  const t = v.type.typeId;
  if (isText(t)) {
    const len = textLength(v, i)!;
    // Up to 4 bytes a character: room characters are at most 4 * room bytes.
    const bytes = textHead(v, i, Math.min(len, room * 4 + 4));
    let text = t === DuckDBTypeId.BLOB ? blobText(bytes) : new TextDecoder().decode(bytes);
    if (text.length > room) text = text.slice(0, room);
    if (/[\uD800-\uDBFF]$/.test(text) || text.endsWith('\uFFFD')) text = text.slice(0, -1);
    return { text, rest: (k) => sizeText(len - (t === DuckDBTypeId.BLOB ? Math.min(len, blobKept(k)) : bytesOf(k))) };
  }
  const out: string[] = [];
  let used = 0;
  const push = (s: string) => {
    out.push(s);
    used += s.length;
  };
  if (t === DuckDBTypeId.STRUCT) {
    const s = v as unknown as StructLike;
    const names = (v.type as unknown as { entryNames: string[] }).entryNames;
    push('{');
    let k = 0;
    for (; k < names.length && used < room; k++) {
      push(`${k ? ',' : ''}${JSON.stringify(names[k])}:`);
      push(part(s.entryVectorAt(k), i, room - used, json));
    }
    // What is left, measured as far as 64 times the room (a bound on the work; past it, at least that).
    const total = measure(v, i, room * 64);
    return { text: out.join(''), rest: (kept) => sizeText(Math.max(0, total - bytesOf(kept))) };
  }
  const c = children(v, i)!;
  push('[');
  let j = 0;
  for (; j < c.itemCount && used < room; j++) {
    if (j) push(',');
    push(part(c, j, room - used, json));
  }
  // The rest estimated from the items read: their average size times the items not read.
  const total = j > 0 ? Math.round((used / j) * c.itemCount) + 2 : used;
  return { text: out.join(''), rest: (kept) => sizeText(Math.max(0, total - bytesOf(kept))) };
}

/** One element inside a list or struct, as JSON, within `room` characters when it can be. */
function part(v: DuckDBVector, i: number, room: number, json: (x: unknown) => unknown): string {
  if (!walkable(v, i) || measure(v, i, room) <= room) return JSON.stringify(json(convert(v.getItem(i), v.type)) ?? null);
  const h = head(v, i, Math.max(1, room), json);
  return isText(v.type.typeId) ? JSON.stringify(h.text) : h.text;
}

/** Whether `measure` is worth asking: a value that can be walked (else it is converted whole). */
export function canWalk(v: DuckDBVector, i: number): boolean {
  return walkable(v, i);
}

// A BLOB's JSON is its bytes with those outside printable ASCII as \xNN, as the node API gives it.
function blobText(b: Uint8Array): string {
  let s = '';
  for (const c of b) s += c >= 32 && c < 127 && c !== 92 ? String.fromCharCode(c) : `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
  return s;
}
function blobKept(text: string): number {
  return text.replace(/\\x[0-9A-F]{2}/g, '.').length;
}
