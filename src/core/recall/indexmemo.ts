// What search asks the turn index on every call, asked once per state of the index. A long-lived
// reader (brain mcp's private copy, the editor's worker) searches many times over an index that
// changes rarely: its statements are prepared once per connection, and answers that depend on the
// whole files table (which sessions were rewritten, each file's newest generation) are kept until
// the index changes. A one-shot search (the CLI) asks only for the files it shows or reads.
// Whether the index changed is asked once a search (lookups), not once a lookup: a common term in
// rewritten sessions looks up thousands of files' facts, and two pragmas each cost more than the
// lookups themselves.
import * as fs from 'node:fs';
import { openIndex, type FileRow, type IndexOpen, type LiveFile, type TurnIndex } from '../index/turnindex';
import type { Root } from '../index/roots';
import { filesSess } from '../index/turncount';
import { IndexKeeper } from '../index/turnindex/keeper';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from '../sqlite';

type Stmt = BetterSqlite3.Statement<unknown[], unknown>;

interface Memo {
  stmts: Map<string, Stmt>;
  mapped?: boolean;
  /** The index's state when the answers below were taken (see version). */
  at: string;
  rewritten?: Set<number>;
  newest: Map<string, number>;
  files: Map<number, FileRow | undefined>;
}

const memos = new WeakMap<SqliteDatabase, Memo>();

function memoOf(idx: TurnIndex): Memo {
  let m = memos.get(idx.db);
  if (!m) memos.set(idx.db, (m = { stmts: new Map(), at: '', newest: new Map(), files: new Map() }));
  return m;
}

function stmt(idx: TurnIndex, sql: string): Stmt {
  const m = memoOf(idx);
  let s = m.stmts.get(sql);
  if (!s) m.stmts.set(sql, (s = idx.db.prepare<unknown[]>(sql)));
  return s;
}

/** The index's state: data_version changes when another connection commits, total_changes when
 * this one does (an update). Two pragmas, no table read. */
function version(idx: TurnIndex): string {
  return `${stmt(idx, 'PRAGMA data_version').pluck().get()}:${stmt(idx, 'SELECT total_changes()').pluck().get()}`;
}

/** The memo, emptied when the index changed since its answers were taken. */
function current(idx: TurnIndex): Memo {
  const m = memoOf(idx);
  const v = version(idx);
  if (m.at !== v) {
    m.at = v;
    m.rewritten = undefined;
    m.newest.clear();
    m.files.clear();
  }
  return m;
}

/** The index with its memo, as one search sees it: the memo's answers checked against the index's
 * state once, when taken (a search reads the index after its own update, in one go). */
export interface Lookups {
  idx: TurnIndex;
  memo: Memo;
}

export function lookups(idx: TurnIndex): Lookups {
  return { idx, memo: current(idx) };
}

/** A search reads the index file through a memory map (once set, for the connection's life): a
 * common term's search reads a few thousand pages, and a page read as a system call costs more
 * than the page's work (on a loaded VM most of the match and of reading the files table). Only
 * reads use it: SQLite writes with system calls as before, and an index being built is not mapped.
 * Not on Windows, where a mapped file cannot be replaced: `brain rebuild` puts a new index in place
 * while the editor's worker holds the old one open. */
export function readMapped(idx: TurnIndex): void {
  const m = memoOf(idx);
  if (m.mapped || process.platform === 'win32') return;
  idx.db.pragma(`mmap_size = ${2 ** 30}`);
  m.mapped = true;
}

/** Those of `sessions` with a file of generation 2 or later: their matches may repeat a turn.
 * Many sessions: one read of the files table (kept while the index stays the same); a few (a rare
 * term in a one-shot search): one indexed lookup each, since that table holds every file's facts. */
export function rewrittenSessions({ idx, memo: m }: Lookups, sessions: number[]): Set<number> {
  if (!m.rewritten && sessions.length > 50) m.rewritten = idx.rewrittenSessions();
  if (m.rewritten) return m.rewritten;
  // A section's (Turn.section) files are its file's session's.
  const one = stmt(idx, `SELECT 1 FROM files WHERE sess_id = ${filesSess('?')} AND gen > 1 AND live = 1 LIMIT 1`).pluck();
  return new Set(sessions.filter((s) => one.get(s) !== undefined));
}

/** The newest live generation of a file's base (the file's own when none is live). One indexed
 * lookup per base, instead of grouping the whole files table on every search. */
export function newestGen({ idx, memo: m }: Lookups, file: { machine: string; base: string; gen: number }): number {
  const k = `${file.machine}\0${file.base}`;
  let g = m.newest.get(k);
  if (g === undefined) {
    g = (stmt(idx, `SELECT max(gen) FROM files WHERE machine = ? AND base = ? AND live = 1`).pluck().get(file.machine, file.base) as number | null) ?? 0;
    m.newest.set(k, g);
  }
  return Math.max(g, file.gen);
}

/** Turns with what counting each once across generations needs (onePerTurn): the key, the file's
 * generation and base, and the newest live generation of that base; `ids` is turn ids joined by
 * commas, as the match gives them (any number of sessions' at once). One statement for the turns
 * and one for their files: a common term matches thousands of turns in rewritten sessions, and a
 * statement per session, or per file, cost more than the rest of the search. */
export function turnGens(l: Lookups, ids: string): Map<number, TurnGen> {
  const rows = l.idx.turnsByIds(ids ? ids.split(',').map(Number) : []).map((t) => [t.id, t.file_id, t.key]);
  // Each file's facts once, for all files in one statement (thousands when many sessions were
  // rewritten): its generation, base, and the newest live generation of that base (newestGen).
  const facts = stmt(
    l.idx,
    `SELECT f.id, f.gen, f.base, max(f.gen, coalesce((SELECT max(g.gen) FROM files g WHERE g.machine = f.machine AND g.base = f.base AND g.live = 1), 0))
     FROM files f WHERE f.id IN (SELECT value FROM json_each(?))`,
  )
    .raw(true)
    .all(JSON.stringify([...new Set(rows.map((r) => r[1]))])) as [number, number, string, number][];
  const files = new Map(facts.map(([id, gen, base, newest]) => [id, { gen, base, newest }]));
  const out = new Map<number, TurnGen>();
  for (const [id, fileId, key] of rows) {
    const f = files.get(fileId);
    if (f) out.set(id, { id, key, gen: f.gen, base: f.base, newest: f.newest });
  }
  return out;
}

export interface TurnGen {
  id: number;
  key: number;
  gen: number;
  newest: number;
  base: string;
}

export function fileRow({ idx, memo: m }: Lookups, id: number): FileRow | undefined {
  if (!m.files.has(id)) m.files.set(id, stmt(idx, `SELECT * FROM files WHERE id = ?`).get(id) as FileRow | undefined);
  return m.files.get(id);
}

/** The last checkpoint kept (raw_marks) at or before `byte` of a file (null: parse from the start). */
export function markBefore(idx: TurnIndex, fileId: number, byte: number): { byte: number; ck: string } | null {
  return (stmt(idx, `SELECT byte, ck FROM raw_marks WHERE file_id = ? AND byte <= ? ORDER BY byte DESC LIMIT 1`).get(fileId, byte) as { byte: number; ck: string } | undefined) ?? null;
}

const LIVE_COLS = 'id, machine, lake_path, base, gen, lane, sess_id, claimed, unterminated, first_seen, last_seen, raw_done';

/** The live files among `ids` (raw_fts named them), and those with lines raw_fts does not hold yet
 * (a line still being written, a file not read): what the tool tier reads for a term. */
export function liveFilesAmong(idx: TurnIndex, ids: Iterable<number>): LiveFile[] {
  const out = stmt(idx, `SELECT ${LIVE_COLS} FROM files WHERE live = 1 AND raw_done < claimed`).all() as LiveFile[];
  const one = stmt(idx, `SELECT ${LIVE_COLS} FROM files WHERE id = ? AND live = 1 AND raw_done >= claimed`);
  for (const id of ids) {
    const f = one.get(id) as LiveFile | undefined;
    if (f) out.push(f);
  }
  return out;
}

// ---------------------------------------------------------------- a live index kept open

const live = new IndexKeeper();

/** Which file a root's index is now: `brain rebuild` puts a new file (a new inode) in its place. */
function identity(root: Root): string | null {
  try {
    const st = fs.statSync(root.index, { bigint: true });
    return `${root.index}\0${st.dev}:${st.ino}\0${root.machines.map((m) => `${m.machine}=${m.dir}`).join('\0')}`;
  } catch {
    return null;
  }
}

/** The root's turn index opened for updates, kept open across the searches of a long-lived process
 * (the editor's worker) while its file stays the same, and closed after a few idle minutes:
 * opening it (loading the schema, preparing statements) costs more than a search. */
export function keptLive(root: Root): IndexOpen {
  const held = live.get(identity(root));
  if (held) return { ok: true, index: held };
  live.drop();
  const o = openIndex(root);
  if (!o.ok) return o;
  // The file may have been made just now: its identity is taken once it is there.
  const now = identity(root);
  if (now !== null) live.keep(now, o.index);
  return o;
}

/** Forgets a kept index that failed (an update that could not write): the next search opens it again. */
export function dropKeptLive(index: TurnIndex): void {
  if (live.holds(index)) live.drop();
  else index.close();
}
