// What search asks the turn index on every call, asked once per state of the index. A long-lived
// reader (brain mcp's in-memory copy, the editor's worker) searches many times over an index that
// changes rarely: its statements are prepared once per connection, and answers that depend on the
// whole files table (which sessions were rewritten, each file's newest generation) are kept until
// the index changes. A one-shot search (the CLI) asks only for the files it shows or reads.
import * as fs from 'node:fs';
import { openIndex, type FileRow, type IndexOpen, type LiveFile, type TurnIndex } from '../index/turnindex';
import type { Root } from '../index/roots';
import { IndexKeeper } from '../index/turnindex/keeper';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from '../sqlite';

type Stmt = BetterSqlite3.Statement<unknown[], unknown>;

interface Memo {
  stmts: Map<string, Stmt>;
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
export function current(idx: TurnIndex): Memo {
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

/** Those of `sessions` with a file of generation 2 or later: their matches may repeat a turn.
 * Many sessions: one read of the files table (kept while the index stays the same); a few (a rare
 * term in a one-shot search): one indexed lookup each, since that table holds every file's facts. */
export function rewrittenSessions(idx: TurnIndex, sessions: number[]): Set<number> {
  const m = current(idx);
  if (!m.rewritten && sessions.length > 50) m.rewritten = new Set(stmt(idx, `SELECT DISTINCT sess_id FROM files WHERE gen > 1 AND live = 1`).pluck().all() as number[]);
  if (m.rewritten) return m.rewritten;
  const one = stmt(idx, `SELECT 1 FROM files WHERE sess_id = ? AND gen > 1 AND live = 1 LIMIT 1`).pluck();
  return new Set(sessions.filter((s) => one.get(s) !== undefined));
}

/** The newest live generation of a file's base (the file's own when none is live). One indexed
 * lookup per base, instead of grouping the whole files table on every search. */
export function newestGen(idx: TurnIndex, file: { machine: string; base: string; gen: number }): number {
  const m = current(idx);
  const k = `${file.machine}\0${file.base}`;
  let g = m.newest.get(k);
  if (g === undefined) {
    g = (stmt(idx, `SELECT max(gen) FROM files WHERE machine = ? AND base = ? AND live = 1`).pluck().get(file.machine, file.base) as number | null) ?? 0;
    m.newest.set(k, g);
  }
  return Math.max(g, file.gen);
}

/** Turns `ids` with what counting each once across generations needs (onePerTurn): the key, the
 * file's generation and base, and the newest live generation of that base. One statement prepared
 * once for any number of ids, the files' facts from the memo: a common term matches thousands of
 * turns in rewritten sessions, and a statement prepared per session, with a subquery per row,
 * cost more than the rest of the search. */
export function turnGens(idx: TurnIndex, ids: number[]): { id: number; key: number; gen: number; newest: number; base: string }[] {
  const rows = stmt(idx, `SELECT id, file_id, key FROM turns WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`)
    .raw(true)
    .all(JSON.stringify(ids)) as [number, number, number][];
  // A session has a few files: each one's facts looked up once.
  const files = new Map<number, { gen: number; base: string; newest: number } | null>();
  const out: { id: number; key: number; gen: number; newest: number; base: string }[] = [];
  for (const [id, fileId, key] of rows) {
    let f = files.get(fileId);
    if (f === undefined) {
      const r = fileRow(idx, fileId);
      files.set(fileId, (f = r ? { gen: r.gen, base: r.base, newest: newestGen(idx, r) } : null));
    }
    if (f) out.push({ id, key, gen: f.gen, base: f.base, newest: f.newest });
  }
  return out;
}

export function fileRow(idx: TurnIndex, id: number): FileRow | undefined {
  const m = current(idx);
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
