// Agents whose sessions live in a SQLite database: what such an agent declares (DbOrigin, DbTable),
// the lake's row-record format (one JSONL line per row version), and the reading of those lines
// back for dialects. The pass that reads a database and appends these lines is floor/dbcapture.ts;
// docs/sqlite-origins.md says which bytes are the agent's and which are the recorder's.
//
// The declaration, on an agent's AgentFiles (beside or instead of `roots`):
//
//   databases?(env: Env): DbOrigin[]
//
// Lake layout: one lake file per (database, session): lake/<lane>/<lakePrefix><session>.rows.jsonl,
// the session id made file-name safe by rowsLakeName(). So "a session = a lake file" holds for the
// whole pipeline: manifest, generations, turn index, citations, show and stats.
//
// Each lake file is append-only JSONL, one line per row version, deterministic (the same database
// state after the same previous state gives the same bytes; an unchanged database appends nothing;
// a restart appends no duplicate):
//
//   {"op":"row","table":"message","key":["msg_01"],"cols":[["id","text","msg_01"],["session_id","text","ses_1"],["data","text","{\"role\":\"user\"}"],["time_updated","integer",1733000000000]]}
//   {"op":"del","table":"message","key":["msg_01"]}
//
// - `cols`: every column of the row in the table's column order (those of `SELECT *`), each as
//   [name, type, value]; the type is SQLite's typeof() of the stored value:
//     "integer" JSON number (a JSON string of its digits when beyond ±2^53, so no digit is lost)
//     "real"    JSON number ("Infinity" / "-Infinity" as strings: JSON has no such number)
//     "text"    JSON string, exactly the stored text
//     "text-b64" text whose stored bytes are not valid UTF-8: base64 of those exact bytes
//     "blob"    base64 string of the exact bytes
//     "null"    null
// - `key`: the values of DbTable.key, encoded the same way, values only (no labels).
// - A row that changed is written again in full as a new `row` line; a row gone is a `del` line
//   (a tombstone: older lines stay, so old text stays findable and shows as deleted). A row that
//   moves to another session gets a `del` in the old session's file and a `row` in the new one's.
// - Within one pass, a file's new lines are: per table in declared order, the changed rows in key
//   order (ORDER BY the key columns), then the tombstones in key order.
// - A dialect reads these lines with readRowLine(); the latest version of a key wins for the
//   "current" display, earlier versions are history. Every value is the agent's; the framing
//   (op/table/key and the [name, type] labels) is the recorder's. Nothing is parsed away.
import { createHash } from 'node:crypto';
import type { Env } from '../../home';

/** One database an agent keeps sessions in. */
export interface DbOrigin {
  /** Absolute path of the agent's database file. Its -wal beside it is read through SQLite, never
   * copied; the file is opened read-only and never written, checkpointed or opened immutable. */
  file: string;
  /** Prefix inside lake/<lane>/ for this database's files ('' for the agent's only database; e.g.
   * 'crush/<project-slug>/' when there is one per project), so two databases never collide. Ends
   * with '/' when it names a folder. */
  lakePrefix: string;
  /** The tables holding sessions, in the order a pass reads them. */
  tables: DbTable[];
}

/** One table of a DbOrigin. */
export interface DbTable {
  /** The table's name as SQLite knows it (quoted by the reader, so any name works). */
  name: string;
  /** Columns that identify a row (its primary key), in order; ['rowid'] when the table has none
   * worth using (an ordinary rowid table; never for a WITHOUT ROWID one). */
  key: string[];
  /** SQL boolean expression limiting the rows read (e.g. "key LIKE 'composerData:%'"), optional.
   * Rows outside it are never read, and a row that leaves it is recorded as deleted. */
  where?: string;
  /** SQL expression giving the session id a row belongs to (e.g. 'session_id', "substr(key, 14)").
   * NULL puts the row in the database's `%none` file. */
  session: string;
  /** SQL expression over the row that grows whenever the row changes (an updated-at column; rowid
   * for an append-only table), optional: a pass then reads in full only the rows at or past the
   * largest value seen (and any key it has not seen), plus the key column(s) of every row to find
   * deletions. Without it, a changed database has every row read and compared by hash. */
  changed?: string;
}

/** The declaration an agent's paths.ts adds to AgentFiles. */
export interface AgentDatabases {
  databases?(env: Env): DbOrigin[];
}

/** Suffix of every row-record lake file. */
export const ROWS_SUFFIX = '.rows.jsonl';

/** The lake file name of a session's rows: `<prefix><safe id>.rows.jsonl`. The id is kept readable:
 * letters, digits, '-', '_' and '.' stay, every other byte is %XX (so the mapping is one-to-one and
 * sessionFromRows() reverses it); a NULL session is `%none` (no encoded id can be); a leading '.'
 * is escaped so no file is hidden. An id too long for a file name keeps its first 120 characters
 * and adds the sha256 of the whole. */
export function rowsLakeName(prefix: string, session: string | null): string {
  return `${prefix}${safeSession(session)}${ROWS_SUFFIX}`;
}

export function safeSession(session: string | null): string {
  if (session === null) return '%none';
  let s = '';
  for (const b of Buffer.from(session, 'utf8')) {
    const c = String.fromCharCode(b);
    s += /[A-Za-z0-9_.-]/.test(c) && !(c === '.' && s === '') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (s === '') return '%empty';
  if (s.length > 180) {
    s = `${s.slice(0, 120)}%h${createHash('sha256').update(session).digest('hex')}`;
  }
  return s;
}

/** The session id of a row-record lake file (lane-relative, without a generation suffix): the
 * file-name part decoded; '' for the NULL session. Ids shortened by rowsLakeName stay shortened. */
export function sessionFromRows(rel: string): string {
  const base = (rel.split('/').pop() ?? rel).replace(/(\.g\d+)?\.rows\.jsonl$/, '');
  if (base === '%none' || base === '%empty') return '';
  try {
    return decodeURIComponent(base.replace(/%h[0-9a-f]{64}$/, ''));
  } catch {
    return base;
  }
}

export function isRowsFile(rel: string): boolean {
  return /\.rows(\.g\d+)?\.jsonl$/.test(rel) || rel.endsWith(ROWS_SUFFIX);
}

/** A stored value as the format writes it: [type, JSON value]. */
export type CellType = 'integer' | 'real' | 'text' | 'text-b64' | 'blob' | 'null';
export type Cell = [name: string, type: CellType, value: number | string | null];

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Encodes one value read with safe integers on and text columns read as their bytes (see
 * dbcapture's SELECT): bigint -> integer, number -> real, Buffer + 'text' -> text, Buffer ->
 * blob, null -> null. */
export function encodeCell(sqlType: string, v: unknown): [CellType, number | string | null] {
  if (v === null || v === undefined) return ['null', null];
  if (typeof v === 'bigint') return ['integer', v <= SAFE && v >= -SAFE ? Number(v) : v.toString()];
  if (typeof v === 'number') {
    if (sqlType === 'integer' && Number.isSafeInteger(v)) return ['integer', v];
    return ['real', Number.isFinite(v) ? v : v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : null];
  }
  if (typeof v === 'string') return ['text', v];
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
    const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    if (sqlType === 'text') {
      try {
        return ['text', utf8.decode(b)];
      } catch {
        return ['text-b64', b.toString('base64')];
      }
    }
    return ['blob', b.toString('base64')];
  }
  return ['text', String(v)];
}

/** A `row` line (without its newline). */
export function rowLine(table: string, key: (number | string | null)[], cols: Cell[]): string {
  return `{"op":"row","table":${JSON.stringify(table)},"key":${JSON.stringify(key)},"cols":${JSON.stringify(cols)}}`;
}

/** A `del` line (a tombstone, without its newline). */
export function delLine(table: string, key: (number | string | null)[]): string {
  return `{"op":"del","table":${JSON.stringify(table)},"key":${JSON.stringify(key)}}`;
}

/** One line of a row-record file, read back. */
export type RowRecord =
  | { op: 'row'; table: string; key: (number | string | null)[]; cols: Cell[] }
  | { op: 'del'; table: string; key: (number | string | null)[] };

/** Parses one line; null for a line this format did not write (still on the floor, counted bad). */
export function readRowLine(text: string): RowRecord | null {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return null;
  }
  if (!j || typeof j !== 'object') return null;
  const r = j as Record<string, unknown>;
  if (typeof r.table !== 'string' || !Array.isArray(r.key)) return null;
  if (r.op === 'del') return { op: 'del', table: r.table, key: r.key as RowRecord['key'] };
  if (r.op === 'row' && Array.isArray(r.cols)) return { op: 'row', table: r.table, key: r.key as RowRecord['key'], cols: r.cols as Cell[] };
  return null;
}

/** The identity of a row across versions: table and key. */
export function rowId(r: Pick<RowRecord, 'table' | 'key'>): string {
  return `${r.table}\u0000${JSON.stringify(r.key)}`;
}

/** A row's columns by name, values decoded: integer/real -> number (a big integer stays a string of
 * digits), text -> string, text-b64 -> the bytes decoded as UTF-8 with replacement, blob -> Buffer,
 * null -> null. */
export function colsOf(cols: Cell[]): Record<string, number | string | Buffer | null> {
  const o: Record<string, number | string | Buffer | null> = {};
  for (const [name, type, v] of cols) o[name] = cellValue(type, v);
  return o;
}

export function cellValue(type: CellType, v: number | string | null): number | string | Buffer | null {
  if (v === null) return null;
  if (type === 'blob') return Buffer.from(String(v), 'base64');
  if (type === 'text-b64') return Buffer.from(String(v), 'base64').toString('utf8');
  if (type === 'real' && typeof v === 'string') return v === 'Infinity' ? Infinity : -Infinity;
  return v;
}
