// Capture of origins that are SQLite databases (agents/kit/sqlite.ts declares them and the lake's
// row-record format). A live database is neither append-only nor safe to copy byte by byte, so the
// floor keeps an append-only record of its rows instead: each pass opens the database read-only,
// reads inside one read transaction (one consistent state), and appends to each session's lake
// file the rows that are new or changed since the last pass and a tombstone for each row gone.
// The lines go through the spool to the lake and the manifest like any chunk, so citations,
// backup and verify treat them as any other lake bytes.
//
// Never touching the agent's database: opened with SQLITE_OPEN_READONLY (better-sqlite3's
// `readonly`, `fileMustExist`), never `immutable=1` (which ignores the WAL and reads torn pages
// while a writer checkpoints), no write, no checkpoint, no pragma that writes. A WAL-mode database
// whose -wal and -shm are absent (no connection open) gets them created empty by SQLite, as for any
// reader; no page of the database or the WAL is written.
//
// Cheap when nothing changed: the header (the main file's identity, size, mtime and change counter
// at byte 24; the -wal's size, mtime and salts) is compared with the last pass's before anything is
// opened. A changed database has only its changed rows read whole when the table declares a
// `changed` expression (plus the key column(s) of every row, for deletions); otherwise every row is
// read and compared by a hash.
//
// The per-row state (a hash per row, the session it is in, the largest `changed` value per table)
// is kept in offsets/<lane>/<lakePrefix>.rows-state.json, a cache like the offsets: it records the
// length of each lake file it reflects, and when one differs from that file's offsets record (a
// pass killed after its chunks were applied, a lost or torn state file) it is rebuilt from the lake
// files themselves, whose last version of each row is the state. So a restart appends no duplicate
// whatever was lost, and the lake alone is the truth.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentPaths } from '../agents';
import { delLine, encodeCell, isRowsFile, ROWS_SUFFIX, readRowLine, rowLine, rowsLakeName, type Cell, type DbOrigin, type DbTable } from '../agents/kit/sqlite';
import type { Layout } from '../home';
import { loadSqlite, type SqliteDatabase } from '../sqlite';
import type { Applier, FloorEvent } from './apply';
import { writeFileAtomic } from './durable';
import { firstTimestamp, type Lane, type ManifestLine } from './manifest';
import { openOrigin } from './origin';
import { readOffsets, type OffsetRec } from './offsets';
import { commitEntry, laneSpool, spoolId } from './spool';
import { mkdirPrivate, FILE_MODE } from '../home';

/** How long a pass waits for a database another process holds locked before it says so. */
export const DB_BUSY_MS = 5000;

/** What a database pass takes from capture's pass. */
export interface DbHost {
  readonly l: Layout;
  readonly now: number;
  readonly report: { machine: string; lanes: Record<string, { files: number; new_files: number; bytes: number; lines: number; chunks: number; warnings: number }>; events: FloorEvent[] };
  readonly applier: Applier;
  readonly source: ManifestLine['source'];
  readonly busyMs: number;
  warn(lane: Lane, code: string, p: string, message: string, hint?: string): void;
}

/** The header fingerprint: equal to the last pass's, the database is unchanged. */
interface Header {
  dev: number;
  ino: number;
  size: number;
  mtime_ms: number;
  /** The file change counter (bytes 24-27 of the main file). */
  counter: number;
  /** The -wal: size, mtime and its header's salts (bytes 16-23), or null when there is none. */
  wal: [size: number, mtime_ms: number, salts: string] | null;
}

interface TableState {
  /** The largest `changed` value seen by the pass before the last one (the window re-read). */
  from: [type: 'integer' | 'real' | 'text', value: number | string] | null;
  /** The largest `changed` value seen by the last pass. */
  max: [type: 'integer' | 'real' | 'text', value: number | string] | null;
}

interface DbState {
  v: 1;
  file: string;
  header: Header | null;
  /** Each lake file (lake-relative to lake/<lane>/) and its length this state reflects. */
  lakes: Record<string, number>;
  tables: Record<string, TableState>;
  /** rowKey (table NUL key JSON) -> [lake file name, row hash]. */
  rows: Record<string, [string, string]>;
}

function stateFile(l: Layout, lane: Lane, prefix: string): string {
  return path.join(l.offsets, lane, `${prefix}.rows-state.json`);
}

/** The header the last complete pass saw, apart from the state (which can be large): an
 * unchanged database costs this small read and the header's, not a parse of every row's hash.
 * Written last, so a header found here means its pass finished (state and lake agree). */
function headFile(l: Layout, lane: Lane, prefix: string): string {
  return path.join(l.offsets, lane, `${prefix}.rows-head.json`);
}

function readHead(l: Layout, lane: Lane, db: DbOrigin): Header | null {
  try {
    const j = JSON.parse(fs.readFileSync(headFile(l, lane, db.lakePrefix), 'utf8')) as { file: string; header: Header };
    return j.file === db.file ? j.header : null;
  } catch {
    return null;
  }
}

/** Reads the main file's and the -wal's header fingerprint; null when the main file is missing. */
export function readHeader(file: string): Header | { skip: string } | null {
  const o = openOrigin(file);
  if ('skip' in o) return o.skip === 'gone' ? null : { skip: o.skip === 'special' ? `${o.kind}, not a regular file` : 'a symbolic link (not followed)' };
  if ('error' in o) return { skip: `cannot read: ${o.error.message}` };
  const b = Buffer.alloc(100);
  try {
    fs.readSync(o.fd, b, 0, 100, 0);
  } finally {
    fs.closeSync(o.fd);
  }
  if (o.st.size > 0 && b.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return { skip: 'not a SQLite database (its first bytes are not "SQLite format 3")' };
  let wal: Header['wal'] = null;
  try {
    const fd = fs.openSync(`${file}-wal`, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const st = fs.fstatSync(fd);
      const h = Buffer.alloc(32);
      const n = fs.readSync(fd, h, 0, 32, 0);
      wal = [st.size, st.mtimeMs, n >= 24 ? h.toString('hex', 16, 24) : ''];
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    wal = null;
  }
  return { dev: o.st.dev, ino: o.st.ino, size: o.st.size, mtime_ms: o.st.mtimeMs, counter: b.readUInt32BE(24), wal };
}

function sameHeader(a: Header | null, b: Header): boolean {
  return !!a && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtime_ms === b.mtime_ms && a.counter === b.counter && JSON.stringify(a.wal) === JSON.stringify(b.wal);
}

const q = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function rowHash(cols: Cell[]): string {
  return createHash('sha256').update(JSON.stringify(cols)).digest('base64url').slice(0, 22);
}

const rowKey = (table: string, key: unknown[]): string => `${table}\u0000${JSON.stringify(key)}`;

/** The lake files of one database (lane-relative), with their claimed lengths from the offsets. */
function lakeFilesOf(l: Layout, lane: Lane, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  const dir = path.join(l.lake, lane, prefix);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!isRowsFile(n) || !n.endsWith('.rows.jsonl')) continue;
    const rel = `${prefix}${n}`;
    out.set(rel, readOffsets(l.offsets, lane, rel)?.consumed ?? -1);
  }
  return out;
}

/** The state from the lake files alone: the last version of each row (a tombstone removes it). */
function stateFromLake(l: Layout, lane: Lane, db: DbOrigin, lakes: Map<string, number>): DbState {
  const st: DbState = { v: 1, file: db.file, header: null, lakes: {}, tables: {}, rows: {} };
  for (const [rel, consumed] of lakes) {
    if (consumed < 0) continue;
    const fd = fs.openSync(path.join(l.lake, lane, rel), 'r');
    try {
      const buf = Buffer.alloc(consumed);
      fs.readSync(fd, buf, 0, consumed, 0);
      const name = rel.slice(db.lakePrefix.length);
      for (const line of buf.toString('utf8').split('\n')) {
        if (!line) continue;
        const r = readRowLine(line);
        if (!r) continue;
        const k = rowKey(r.table, r.key);
        if (r.op === 'row') st.rows[k] = [name, rowHash(r.cols)];
        else if (st.rows[k]?.[0] === name) delete st.rows[k];
      }
    } finally {
      fs.closeSync(fd);
    }
    st.lakes[rel] = consumed;
  }
  return st;
}

function loadState(l: Layout, lane: Lane, db: DbOrigin, events: FloorEvent[]): DbState {
  const lakes = lakeFilesOf(l, lane, db.lakePrefix);
  let st: DbState | null = null;
  try {
    st = JSON.parse(fs.readFileSync(stateFile(l, lane, db.lakePrefix), 'utf8')) as DbState;
    if (st?.v !== 1 || typeof st.rows !== 'object') st = null;
  } catch {
    st = null;
  }
  const agrees = (s: DbState): boolean => {
    if (Object.keys(s.lakes).length !== [...lakes.values()].filter((c) => c >= 0).length) return false;
    for (const [rel, len] of Object.entries(s.lakes)) if (lakes.get(rel) !== len) return false;
    return true;
  };
  if (st && st.file === db.file && agrees(st)) return st;
  if (lakes.size > 0) {
    events.push({ code: 'db-state-rebuilt', path: db.file, message: `row state rebuilt from ${lakes.size} lake file(s): the last version of each row recorded is the state` });
  }
  const rebuilt = stateFromLake(l, lane, db, lakes);
  // A state of another file (the database moved): its header is not this one's.
  if (st && st.file === db.file) rebuilt.tables = st.tables;
  return rebuilt;
}

/** One database of one agent: one pass. */
export function captureDatabase(h: DbHost, agent: AgentPaths, db: DbOrigin): void {
  const lane = agent.lane;
  const counts = h.report.lanes[lane];
  const head = readHeader(db.file);
  if (!head) return; // not there (yet): nothing to record, nothing lost
  if ('skip' in head) {
    h.warn(lane, 'db-skipped', db.file, `not read: ${head.skip}`);
    return;
  }
  counts.files++;
  if (sameHeader(readHead(h.l, lane, db), head)) return;
  const st = loadState(h.l, lane, db, h.report.events);
  if (sameHeader(st.header, head)) {
    writeFileAtomic(headFile(h.l, lane, db.lakePrefix), JSON.stringify({ file: db.file, header: head }) + '\n', { sync: false });
    return;
  }
  const Sqlite = loadSqlite();
  if (!Sqlite) {
    h.warn(lane, 'db-no-sqlite', db.file, 'not read: the SQLite module (better-sqlite3) cannot load here', 'reinstall brain; the database is read on the first pass that can load it, nothing is lost meanwhile');
    return;
  }
  if (st.header && (st.header.dev !== head.dev || st.header.ino !== head.ino)) {
    h.report.events.push({ code: 'db-replaced', path: db.file, message: 'the database file was replaced by another (a new inode): every row is compared with those recorded; changed ones get a new version, missing ones a tombstone' });
    // Another file's `changed` values say nothing about what this one holds: every row is read.
    st.tables = {};
  }
  let conn: SqliteDatabase;
  const out = new Map<string, string[]>(); // lake file name -> new lines
  const add = (name: string, line: string) => {
    let a = out.get(name);
    if (!a) out.set(name, (a = []));
    a.push(line);
  };
  const tables: Record<string, TableState> = {};
  const rows = { ...st.rows };
  try {
    conn = new Sqlite(db.file, { readonly: true, fileMustExist: true, timeout: h.busyMs });
  } catch (e) {
    h.warn(lane, 'db-unreadable', db.file, `cannot open read-only: ${(e as Error).message}`, 'nothing recorded from it this pass; it is read again by the next');
    return;
  }
  try {
    conn.defaultSafeIntegers(true);
    const utf8 = String(conn.pragma('encoding', { simple: true })).toUpperCase() === 'UTF-8';
    conn.exec('BEGIN');
    try {
      for (const t of db.tables) tables[t.name] = readTable(conn, t, st, rows, add, utf8);
    } finally {
      conn.exec('COMMIT');
    }
  } catch (e) {
    const err = e as Error & { code?: string };
    const busy = err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED';
    h.warn(
      lane,
      busy ? 'db-locked' : 'db-read-failed',
      db.file,
      busy ? `locked by another process for more than ${h.busyMs} ms: not read this pass, nothing lost` : `read failed: ${err.message}`,
      busy ? 'it is read again by the next pass' : 'nothing recorded from it this pass; check that it is the agent\'s database',
    );
    return;
  } finally {
    conn.close();
  }
  // The header read before the transaction: a write after that read (before or after the snapshot)
  // changes the header, so the next pass looks again, and finds nothing new if the snapshot had it.
  const next: DbState = { v: 1, file: db.file, header: head, lakes: { ...st.lakes }, tables, rows };
  for (const name of [...out.keys()].sort()) {
    const lines = out.get(name)!;
    const rel = `${db.lakePrefix}${name}`;
    const end = spoolRows(h, agent, db, rel, lines, head);
    next.lakes[rel] = end;
    counts.chunks++;
    counts.lines += lines.length;
  }
  if (out.size > 0) {
    const res = h.applier.applyAll();
    // Chunks the applier refused: the state must not claim them, so the next pass rebuilds it.
    if (res.events.some((e) => e.refused)) return;
  }
  writeFileAtomic(stateFile(h.l, lane, db.lakePrefix), JSON.stringify(next) + '\n', { sync: false });
  writeFileAtomic(headFile(h.l, lane, db.lakePrefix), JSON.stringify({ file: db.file, header: head }) + '\n', { sync: false });
}

/** Reads one table's new, changed and gone rows into `add`; returns its state. */
function readTable(conn: SqliteDatabase, t: DbTable, st: DbState, rows: DbState['rows'], add: (name: string, line: string) => void, utf8: boolean): TableState {
  // A table this database does not have (an older version of the agent) has no rows; rows
  // recorded from it before (a table dropped) get their tombstones.
  if (!conn.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?").get(t.name)) {
    tombstones(t, new Set(), rows, add);
    return { from: null, max: null };
  }
  const cols = (conn.prepare(`SELECT * FROM ${q(t.name)} LIMIT 0`).columns() as { name: string }[]).map((c) => c.name);
  const where = t.where ? `(${t.where})` : '1';
  const keyExprs = t.key.map((k) => (k === 'rowid' ? 'rowid' : q(k)));
  const order = keyExprs.join(', ');
  const valueExpr = (e: string) => (utf8 ? `CASE WHEN typeof(${e}) = 'text' THEN CAST(${e} AS BLOB) ELSE ${e} END` : e);
  const keySel = keyExprs.map((k, i) => `typeof(${k}) AS "kt${i}", ${valueExpr(k)} AS "kv${i}"`).join(', ');
  const colSel = cols.map((c, i) => `typeof(${q(c)}) AS "ct${i}", ${valueExpr(q(c))} AS "cv${i}"`).join(', ');
  const full = `SELECT ${keySel}, CAST((${t.session}) AS TEXT) AS "s", ${colSel}${t.changed ? `, (${t.changed}) AS "ch"` : ''} FROM ${q(t.name)}`;
  const prev = st.tables[t.name];
  const seen = new Set<string>();
  const keyOf = (r: Record<string, unknown>): (number | string | null)[] => t.key.map((_, i) => encodeCell(r[`kt${i}`] as string, r[`kv${i}`])[1]);
  let max: TableState['max'] = null;
  let mixed = false;
  const noteMax = (v: unknown) => {
    if (v === null || v === undefined || mixed) return;
    const c: TableState['max'] = typeof v === 'bigint' ? ['integer', v.toString()] : typeof v === 'number' ? ['real', v] : typeof v === 'string' ? ['text', v] : null;
    if (!c) return void (mixed = true);
    if (!max) max = c;
    else if (max[0] !== c[0]) mixed = true;
    else if (c[0] === 'integer' ? BigInt(c[1]) > BigInt(max[1]) : c[1] > max[1]) max = c;
  };
  const take = (r: Record<string, unknown>) => {
    const key = keyOf(r);
    const k = rowKey(t.name, key);
    seen.add(k);
    const cells: Cell[] = cols.map((c, i) => {
      const [type, v] = encodeCell(r[`ct${i}`] as string, r[`cv${i}`]);
      return [c, type, v];
    });
    const hash = rowHash(cells);
    const name = rowsLakeName('', r.s === null || r.s === undefined ? null : String(r.s));
    const had = rows[k];
    if (had && had[0] === name && had[1] === hash) return;
    if (had && had[0] !== name) add(had[0], delLine(t.name, key));
    add(name, rowLine(t.name, key, cells));
    rows[k] = [name, hash];
  };
  // A window that starts at the largest value the pass before the last saw: a row committed late
  // with a value below one already seen is still read once more.
  const from = prev?.from ?? null;
  if (t.changed && from) {
    // Every key (and its `changed` value): deletions, and keys never seen whatever their value.
    const keys = conn.prepare(`SELECT ${keySel}, ${keyExprs.map((k, i) => `${k} AS "raw${i}"`).join(', ')}, (${t.changed}) AS "ch" FROM ${q(t.name)} WHERE ${where} ORDER BY ${order}`);
    const unknown: unknown[][] = [];
    for (const r of keys.iterate() as Iterable<Record<string, unknown>>) {
      const k = rowKey(t.name, keyOf(r));
      seen.add(k);
      noteMax(r.ch);
      if (!rows[k]) unknown.push(t.key.map((_, i) => r[`raw${i}`]));
    }
    const fromV = from[0] === 'integer' ? BigInt(from[1]) : from[1];
    const changed = conn.prepare(`${full} WHERE ${where} AND ((${t.changed}) >= ? OR (${t.changed}) IS NULL) ORDER BY ${order}`);
    const got = new Set<string>();
    for (const r of changed.iterate(fromV) as Iterable<Record<string, unknown>>) {
      got.add(rowKey(t.name, keyOf(r)));
      take(r);
    }
    if (unknown.length > 0) {
      const one = conn.prepare(`${full} WHERE ${where} AND ${keyExprs.map((k) => `${k} IS ?`).join(' AND ')}`);
      for (const kv of unknown) {
        const r = one.get(...kv) as Record<string, unknown> | undefined;
        if (r && !got.has(rowKey(t.name, keyOf(r)))) take(r);
      }
    }
  } else {
    for (const r of conn.prepare(`${full} WHERE ${where} ORDER BY ${order}`).iterate() as Iterable<Record<string, unknown>>) {
      take(r);
      if (t.changed) noteMax(r.ch);
    }
  }
  tombstones(t, seen, rows, add);
  return { from: mixed ? null : (prev?.max ?? null), max: mixed ? null : max };
}

/** Tombstones, in the order of their key's JSON text, for the rows of this table recorded and not seen. */
function tombstones(t: DbTable, seen: Set<string>, rows: DbState['rows'], add: (name: string, line: string) => void): void {
  const prefix = `${t.name}\u0000`;
  const gone = Object.keys(rows).filter((k) => k.startsWith(prefix) && !seen.has(k));
  gone.sort();
  for (const k of gone) {
    add(rows[k][0], delLine(t.name, JSON.parse(k.slice(prefix.length)) as (number | string | null)[]));
    delete rows[k];
  }
}

/** Puts one lake file's new lines in the spool as one chunk following what the floor claims. */
function spoolRows(h: DbHost, agent: AgentPaths, db: DbOrigin, rel: string, lines: string[], head: Header): number {
  const lane = agent.lane;
  const off = readOffsets(h.l.offsets, lane, rel);
  const consumed = off?.consumed ?? 0;
  const lineCount = off?.lines ?? 0;
  const data = Buffer.from(lines.map((x) => `${x}\n`).join(''));
  const id = spoolId();
  const dir = laneSpool(h.l.spool, lane);
  mkdirPrivate(dir);
  const chunk = path.join(dir, `${id}.chunk`);
  fs.writeFileSync(chunk, data, { mode: FILE_MODE });
  const lakePath = `lake/${lane}/${rel}`;
  const session = agent.sessionOf(rel);
  // The origin of one session's rows: the database and the session's lake name, so that each lake
  // file has an origin of its own (the cache tells documents apart by origin).
  const origin = `${db.file}#${rel.slice(db.lakePrefix.length, -ROWS_SUFFIX.length)}`;
  const line: ManifestLine = {
    v: 1,
    lane,
    agent: agent.agent,
    session,
    gen: 1,
    byte_from: consumed,
    byte_to: consumed + data.length,
    line_from: lineCount + 1,
    line_to: lineCount + lines.length,
    chunk_sha256: createHash('sha256').update(data).digest('hex'),
    captured_at: new Date().toISOString(),
    event_ts_first: firstTimestamp(data.subarray(0, 65536)),
    machine_id: h.report.machine,
    origin_path: origin,
    source: h.source,
    lake_path: lakePath,
  };
  const offsets: OffsetRec = {
    v: 1,
    lane,
    origin,
    base_rel: rel,
    gen: 1,
    lake_path: lakePath,
    consumed: consumed + data.length,
    lines: lineCount + lines.length,
    unterminated: false,
    dev: head.dev,
    ino: head.ino,
    size: head.size,
    mtime_ms: head.mtime_ms,
    head_sha: '',
    tail_sha: '',
    updated_at: new Date(h.now).toISOString(),
    rows: true,
  };
  if (!off) h.report.lanes[lane].new_files++;
  h.report.lanes[lane].bytes += data.length;
  commitEntry(h.l.spool, { v: 1, kind: 'chunk', id, line, offsets });
  return consumed + data.length;
}
