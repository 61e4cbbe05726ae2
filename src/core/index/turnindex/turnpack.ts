// A block's turns (schema.ts: BLOCK rowids of one session) packed in one row of turn_packs: a row a
// turn cost ~46 bytes of record and ~20 of b-tree, most of the index on short turns, and the
// first build's writer thread one insert a turn. Each turn is written as deltas from the one
// before it in the block (they come in rowid order, mostly from one file, lines and bytes
// ascending), so a turn takes ~16 bytes, six of them its key.
//
// A turn: a flags byte (role, side, said, how ts is kept, whether its id follows the previous
// one's and its file is the same), the id's gap (a varint, unless it follows) and the file's
// delta (a zigzag varint, unless the same), then ts (the zigzag delta from the block's previous
// numeric ts, or a length and UTF-8 text), then its place: one varint, n's delta from 1 (zigzag)
// times two, plus one when the turn does not start on the line and byte after the previous one's
// end (then line_from - the previous line_to - 1 and byte_from - the previous byte_to follow, as
// zigzag varints); then line_to - line_from and byte_to - byte_from, and last the key in 6 bytes.
// Most turns follow the one before in their file: their n and start take one byte, not three.
//
// A pack starts with a byte saying whether its turns' keys are kept. They are only for a session
// with a file rewritten (generation 2 or later: its generations share turns, counted and shown
// once by key); elsewhere they would be 6 of a short turn's ~14 bytes. A pack without them gives
// each turn a key of its own past 48 bits (KEY_MAX + id), which no turn of another file shares;
// update.ts reads a file again for its keys when its session comes to need them.
import type { SqliteDatabase } from '../../sqlite';
import type { IndexRole } from '../parse-job';
import { BLOCK_BITS } from '../turncount';

/** A turn as the index keeps it (the columns of the `turns` view). */
export interface TurnRow {
  id: number;
  /** Its file's session is the file's (files.sess_id): not kept twice. */
  file_id: number;
  n: number;
  role: IndexRole;
  side: number;
  /** ms since 1970, or the transcript's text when it is no time Date.parse reads. */
  ts: number | string | null;
  line_from: number;
  line_to: number;
  byte_from: number;
  byte_to: number;
  /** The turn has a row in the FTS index: it has text, and no newer generation of its file holds
   * the same turn (whose row is the one a match finds). */
  said: number;
  /** turnKey: the same entry in another generation of the file has the same key. KEY_MAX + id
   * (unkeyed) when its pack keeps no keys. */
  key: number;
}

const ROLES: IndexRole[] = ['u', 'a', 's'];
const TS_NONE = 0;
const TS_DELTA = 1;
const TS_TEXT = 2;
/** A number too far from the previous one for an exact zigzag delta: kept as its decimal text. */
const TS_NUMTEXT = 3;
export const KEY_MAX = 2 ** 48;

/** A key a pack without keys gives its turn: its own, unlike any real key. */
export function unkeyed(t: Pick<TurnRow, 'key'>): boolean {
  return t.key >= KEY_MAX;
}
/** Flags: the id is the previous one's plus 1 (no gap written); the file is the previous one's. */
const NEXT_ID = 0x40;
const SAME_FILE = 0x80;

function zig(d: number): number {
  return d >= 0 ? d * 2 : -d * 2 - 1;
}

function unzig(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

class Writer {
  buf = Buffer.allocUnsafe(4096);
  at = 0;

  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const b = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(b, 0, 0, this.at);
    this.buf = b;
  }

  varint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`a turn's packed field is out of range (${v})`);
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  text(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.varint(b.length);
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }
}

/** The block's turns (ascending ids, all within block `block`) as one value; `keyed`: with their
 * keys (each a real one). */
export function encodePack(block: number, turns: readonly TurnRow[], keyed = true): Buffer {
  const w = new Writer();
  w.buf[w.at++] = keyed ? 1 : 0;
  let id = block * 2 ** BLOCK_BITS - 1;
  let file = 0;
  let n = 0;
  let ts = 0;
  let line = 0;
  let byte = 0;
  for (const t of turns) {
    if (t.id <= id || t.id >= (block + 1) * 2 ** BLOCK_BITS) throw new Error(`turn ${t.id} is out of order in block ${block}`);
    if (keyed && (!Number.isSafeInteger(t.key) || t.key < 0 || t.key >= KEY_MAX)) throw new Error(`turn ${t.id} has a key out of range (${t.key})`);
    const role = ROLES.indexOf(t.role);
    if (role < 0) throw new Error(`turn ${t.id} has an unknown role ${t.role}`);
    let kind = TS_NONE;
    if (typeof t.ts === 'number') kind = Number.isSafeInteger(zig(t.ts - ts)) ? TS_DELTA : TS_NUMTEXT;
    else if (typeof t.ts === 'string') kind = TS_TEXT;
    const next = t.id === id + 1;
    const same = t.file_id === file;
    w.room(1);
    w.buf[w.at++] = role | (t.side ? 4 : 0) | (t.said ? 8 : 0) | (kind << 4) | (next ? NEXT_ID : 0) | (same ? SAME_FILE : 0);
    if (!next) w.varint(t.id - id - 1);
    id = t.id;
    if (!same) w.varint(zig(t.file_id - file));
    file = t.file_id;
    if (kind === TS_DELTA) {
      w.varint(zig((t.ts as number) - ts));
      ts = t.ts as number;
    } else if (kind === TS_NUMTEXT) w.text(String(t.ts));
    else if (kind === TS_TEXT) w.text(t.ts as string);
    const follows = t.line_from === line + 1 && t.byte_from === byte;
    w.varint(zig(t.n - n - 1) * 2 + (follows ? 0 : 1));
    n = t.n;
    if (!follows) {
      w.varint(zig(t.line_from - line - 1));
      w.varint(zig(t.byte_from - byte));
    }
    w.varint(zig(t.line_to - t.line_from));
    line = t.line_to;
    w.varint(zig(t.byte_to - t.byte_from));
    byte = t.byte_to;
    if (keyed) {
      w.room(6);
      w.buf.writeUIntLE(t.key, w.at, 6);
      w.at += 6;
    }
  }
  return Buffer.from(w.buf.subarray(0, w.at));
}

/** Whether a pack keeps its turns' keys. */
export function packKeyed(b: Uint8Array): boolean {
  return b[0] === 1;
}

/** The turns encodePack wrote, in id order (up to id `upTo`). */
export function decodePack(block: number, b: Uint8Array, upTo = Number.POSITIVE_INFINITY): TurnRow[] {
  const out: TurnRow[] = [];
  let at = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const x = b[at++];
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v;
      mul *= 0x80;
    }
  };
  const text = (): string => {
    const len = varint();
    const s = Buffer.from(b.buffer, b.byteOffset + at, len).toString('utf8');
    at += len;
    return s;
  };
  let id = block * 2 ** BLOCK_BITS - 1;
  let file = 0;
  let n = 0;
  let ts = 0;
  let line = 0;
  let byte = 0;
  const keyed = b[at++] === 1;
  while (at < b.length) {
    const flags = b[at++];
    id += flags & NEXT_ID ? 1 : varint() + 1;
    if (id > upTo) break;
    if (!(flags & SAME_FILE)) file += unzig(varint());
    const kind = (flags >> 4) & 3;
    let t: number | string | null = null;
    if (kind === TS_DELTA) t = ts += unzig(varint());
    else if (kind === TS_NUMTEXT) t = Number(text());
    else if (kind === TS_TEXT) t = text();
    const place = varint();
    n += unzig(Math.floor(place / 2)) + 1;
    let lineFrom = line + 1;
    let byteFrom = byte;
    if (place % 2) {
      lineFrom += unzig(varint());
      byteFrom += unzig(varint());
    }
    line = lineFrom + unzig(varint());
    byte = byteFrom + unzig(varint());
    let key = KEY_MAX + id;
    if (keyed) {
      key = b[at] + b[at + 1] * 2 ** 8 + b[at + 2] * 2 ** 16 + b[at + 3] * 2 ** 24 + b[at + 4] * 2 ** 32 + b[at + 5] * 2 ** 40;
      at += 6;
    }
    out.push({ id, file_id: file, n, role: ROLES[flags & 3], side: (flags >> 2) & 1, ts: t, line_from: lineFrom, line_to: line, byte_from: byteFrom, byte_to: byte, said: (flags >> 3) & 1, key });
  }
  return out;
}

const viewed = new WeakSet<SqliteDatabase>();
const COLUMNS = ['id', 'file_id', 'n', 'role', 'side', 'ts', 'line_from', 'line_to', 'byte_from', 'byte_to', 'said', 'key'] as const;

/** Gives a connection the `turns` view (every turn, unpacked, in its columns) for the queries that
 * read all turns at once (stats, tests); lookups by id go through turnsByIds instead. */
export function defineTurnsView(db: SqliteDatabase): void {
  if (viewed.has(db)) return;
  viewed.add(db);
  // The store host's stand-in over node:sqlite (remote/nodesqlite.ts) has no table-valued
  // functions; what it serves (search, read, cite) reads turns by id, never through the view.
  if (typeof (db as { table?: unknown }).table !== 'function') return;
  db.table('unpack_turns', {
    columns: [...COLUMNS],
    parameters: ['data', 'block'],
    *rows(data: unknown, block: unknown) {
      if (!(data instanceof Uint8Array)) return;
      for (const t of decodePack(Number(block), data)) yield COLUMNS.map((c) => t[c]);
    },
  });
  db.exec(`CREATE TEMP VIEW IF NOT EXISTS turns AS SELECT t.* FROM turn_packs p, unpack_turns(p.data, p.id) t`);
}
