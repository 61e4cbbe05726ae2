// The turn index's tables, row shapes and prepared statements, and the base every open index
// shares: one connection, its schema checked or created, its batches in BEGIN IMMEDIATE
// transactions. Reading (query.ts) and writing (update.ts) build on it.
import * as fs from 'node:fs';
import type { SqliteDatabase } from '../../sqlite';
import type { Root } from '../roots';
import type { IndexRole } from '../parse-job';
import { BLOCK_BITS, filesSess, shownBase } from '../turncount';
import { rawStatements } from './rawpost';
import { defineTurnsView, type TurnRow } from './turnpack';

export type { TurnRow };

export type DB = SqliteDatabase;


// 4: files whose lake_path the guard refuses are no longer read; an index built before may hold
// text such a file pointed at, so it is built again.
// 5: summaries, notices and session names are indexed too (role 's', not counted as turns).
// 6: every generation of a file stays in the index (older ones were dropped), each turn with its
// key (turnKey), so a turn several generations hold counts once.
// 7: the raw lines of every file are indexed too (raw_fts), so the tool tier reads only the files
// that may hold a term instead of running rg over the whole lake.
// 8: the raw index is trigram keys with their chunks' ids in plain rows (raw_post) instead of
// FTS5 (raw_fts), and turn rowids are dense (blocks of BLOCK ids, each a session's) instead of
// 2^24 apart per session, which made FTS5 doclist entries across sessions 4-5 byte varints; a
// turn's time is a number, and its session is its file's (not a column of its own).
// 9: each raw chunk keeps its byte range, and the parser's checkpoint every RAW_MARK bytes of a
// file is kept (raw_marks), so the tool tier reads and parses only the matched chunks' lines.
// 10: a raw list's segment where most chunks hold its key is a bitmap (rawpost.ts): about a
// sixth of the raw index's bytes on a generated store; checkpoints every 128 KB; no index on the
// turns' file (a file's turns are read through its session's blocks).
// 11: a block's turns are packed in one row (turn_packs, turnpack.ts) instead of a row each.
// 12: the FTS index keeps no per-turn sizes (columnsize=0; contentless_delete needed them, ~12
// bytes a turn): a turn leaves it by FTS5's 'delete' with its text, which said_tail keeps for the
// turns a resume may cut; the pages are 16 KB (a 4 KB page held one or two 2 KB turn packs); a
// packed turn that follows the one before in its file keeps its n and start in one byte; only a
// session with a rewritten file keeps its turns' keys (6 bytes a turn).
// 13: a reply's key (turnKey) leaves its text out when it has a time; a session's facts come from
// all its generations (sessionFacts).
// 14: a file that gathers several sessions (a chat history appended to by every run) has a session per section
// (Turn.section): its row names the file's own session (whole) and the section's key.
// 15: a file knows whether a read of it gave a turn (has_turns): a session is shown from its
// largest form that holds turns, never from a settings, state or meta file beside them.
export const SCHEMA_VERSION = '15';
/** A first build's page size: turn packs (~2 KB) and the raw lists fill bigger pages better. */
export const PAGE_SIZE = 16384;

/** A turn's rowid is its block's id times BLOCK plus its slot. A block belongs to one session and
 * is taken when the session's last one is full, so rowids stay dense (an FTS5 doclist stores each
 * as a varint delta from the one before), a match still groups by block without reading a turn
 * (rowid >> BLOCK_BITS), and a session's turns are in rowid order. */
export { BLOCK_BITS };
const FTS_TABLES = ['turns_fts'];
export const BLOCK = 2 ** BLOCK_BITS;


const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  machine TEXT NOT NULL,
  lane TEXT NOT NULL,
  session TEXT NOT NULL,
  native TEXT,
  parent TEXT,
  subagent INTEGER NOT NULL DEFAULT 0,
  project TEXT,
  repo TEXT,
  title TEXT,
  title_key INTEGER,
  title_hint TEXT,
  started TEXT,
  ended TEXT,
  turns INTEGER NOT NULL DEFAULT 0,
  -- A section of a file that gathers several sessions (Turn.section): the session whose files
  -- hold it (the file's own), and its key; NULL for every other session.
  whole INTEGER,
  section INTEGER,
  UNIQUE (machine, lane, session)
);
CREATE INDEX IF NOT EXISTS sessions_whole ON sessions (whole) WHERE whole IS NOT NULL;
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  machine TEXT NOT NULL,
  lake_path TEXT NOT NULL,
  base TEXT NOT NULL,
  gen INTEGER NOT NULL,
  lane TEXT NOT NULL,
  sess_id INTEGER NOT NULL,
  claimed INTEGER NOT NULL DEFAULT 0,
  unterminated INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  first_seen TEXT,
  last_seen TEXT,
  ck TEXT,
  facts TEXT,
  lines INTEGER NOT NULL DEFAULT 0,
  bad INTEGER NOT NULL DEFAULT 0,
  live INTEGER NOT NULL DEFAULT 1,
  raw_done INTEGER NOT NULL DEFAULT 0,
  -- The first turn rowid the file's last read gave (NULL: none): its turns a resume reads again
  -- (from the checkpoint's line on) are all that read's, so none lie below it.
  turn_from INTEGER,
  -- 1: a read of the file gave a turn (a prompt or a reply): a form of the conversation, which a
  -- session is shown from (turncount.ts shownBase), not a file of facts beside it.
  has_turns INTEGER NOT NULL DEFAULT 0,
  UNIQUE (machine, lake_path)
);
CREATE INDEX IF NOT EXISTS files_base ON files (machine, base);
CREATE INDEX IF NOT EXISTS files_sess ON files (sess_id);
CREATE INDEX IF NOT EXISTS files_behind ON files (id) WHERE live = 1 AND done < claimed;
CREATE INDEX IF NOT EXISTS files_raw_behind ON files (id) WHERE live = 1 AND raw_done < claimed;
-- Whose a block of turn rowids is (see BLOCK). A file's turns are read through its session's
-- blocks, not through an index on them.
CREATE TABLE IF NOT EXISTS blocks (id INTEGER PRIMARY KEY, sess_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS blocks_sess ON blocks (sess_id, id);
-- A block's turns, packed (turnpack.ts; each connection's temp view \`turns\` unpacks them all).
CREATE TABLE IF NOT EXISTS turn_packs (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
-- No content and no sizes: nothing ranks with bm25, so a turn's row is its postings alone. A row
-- leaves by the 'delete' command, which needs the text it was written with (update.ts).
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5 (text, tokenize = 'trigram case_sensitive 1', content = '', columnsize = 0);
-- The folded text of each said turn a resume may cut (those at or past its file's checkpoint
-- line, from the file's last read): what its FTS row is deleted with.
CREATE TABLE IF NOT EXISTS said_tail (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
-- The raw index (rawpost.ts): each trigram key's list of raw chunks, in segments. A chunk is a
-- file's complete lines read in one update; its rowid is the next number, so a key's list grows by
-- a byte or two a chunk, and its file is one lookup away.
CREATE TABLE IF NOT EXISTS raw_post (k INTEGER PRIMARY KEY, ids BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS raw_chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, byte_from INTEGER NOT NULL, byte_to INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS raw_chunks_file ON raw_chunks (file_id);
-- Where a file's parse can start again near a byte: the parser's checkpoint (JSON) after the line
-- that ends at \`byte\`, every RAW_MARK bytes or so. The tool tier parses a matched line from the
-- last mark before it instead of from the file's start.
CREATE TABLE IF NOT EXISTS raw_marks (file_id INTEGER NOT NULL, byte INTEGER NOT NULL, ck TEXT NOT NULL, PRIMARY KEY (file_id, byte)) WITHOUT ROWID;
`;

export interface SessionRow {
  id: number;
  machine: string;
  lane: string;
  session: string;
  native: string | null;
  parent: string | null;
  subagent: number;
  project: string | null;
  repo: string | null;
  title: string | null;
  title_hint: string | null;
  started: string | null;
  ended: string | null;
  turns: number;
  /** A section's (Turn.section): the session whose files hold it, and its key; else null. */
  whole: number | null;
  section: number | null;
}

export type SessionKeys = Omit<SessionRow, 'title' | 'title_hint'>;

export type LiveFile = Pick<FileRow, 'id' | 'machine' | 'lake_path' | 'base' | 'gen' | 'lane' | 'sess_id' | 'claimed' | 'unterminated' | 'first_seen' | 'last_seen' | 'raw_done'>;

export interface FileRow {
  id: number;
  machine: string;
  lake_path: string;
  base: string;
  gen: number;
  lane: string;
  sess_id: number;
  claimed: number;
  unterminated: number;
  done: number;
  first_seen: string | null;
  last_seen: string | null;
  ck: string | null;
  facts: string | null;
  lines: number;
  bad: number;
  live: number;
  /** Bytes of complete lines in the raw index (from 0). */
  raw_done: number;
  /** The first turn rowid the file's last read gave (null: none). */
  turn_from: number | null;
  /** 1: a read of the file gave a turn (a prompt or a reply). */
  has_turns: number;
}

export interface UpdateReport {
  files: number;
  bytes: number;
  turns: number;
  /** Files whose parse came from the parse thread. */
  parsed_ahead: number;
  /** UTF-8 bytes of turn text indexed. */
  text_bytes: number;
  ms: number;
  /** Files left unread: their lake_path leaves the machine's folder or meets a symlink. */
  refused: { machine: string; lake_path: string; problem: string }[];
  /** A parse thread stopped answering (it died: out of its heap, say); the rest was parsed in
   * the writing thread. */
  thread_failed?: string;
  /** Pieces read of files larger than a piece (fileread.ts pieceBytes), and such files read whole
   * after all (their checkpoint did not move). */
  pieces?: number;
  whole?: number;
  /** A budgeted update stopped with files still behind: the next update reads on. */
  more?: boolean;
}


export function dropFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

export function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}


/** SQLite opens through a symlink: one planted in a store would have the index read from, or
 * written to, a file elsewhere. Why the index is not used, or null. */
export function indexSymlink(root: Root): string | null {
  const link = [root.index, `${root.index}-wal`, `${root.index}-shm`, `${root.index}-journal`].find((f) => fs.lstatSync(f, { throwIfNoEntry: false })?.isSymbolicLink());
  return link ? `${link} is a symlink, which is never followed` : null;
}

export class IndexBase {
  protected st!: ReturnType<IndexBase['prepare']>;
  protected rawSt!: ReturnType<typeof rawStatements>;
  protected fresh = false;

  constructor(
    readonly db: DB,
    readonly root: Root,
  ) {}

  /** Creates or checks the schema. 'reopen': a fresh open found another process's finished build;
   * 'abandoned': a build that never finished (its process died); 'older': an older brain's layout. */
  ensureSchema(fresh = false): 'ok' | 'reopen' | 'abandoned' | 'newer' | 'older' {
    const v = this.tableExists('meta') ? (this.db.prepare(`SELECT v FROM meta WHERE k = 'schema'`).get() as { v: string } | undefined)?.v : undefined;
    // An index a newer brain built (a store several machines share) is left alone: rebuilding it
    // here would make the newer one rebuild it in turn.
    if (v !== undefined && Number(v) > Number(SCHEMA_VERSION)) return 'newer';
    if (v !== undefined) {
      if (fresh) return 'reopen';
      if ((this.db.prepare(`SELECT v FROM meta WHERE k = 'building'`).get() as { v: string } | undefined)?.v === '1') return 'abandoned';
    }
    // An older layout: it is a cache, so it is built again, as a first build into a new file (its
    // tables dropped here would leave their pages free, and a build beside readers merges as it goes).
    if (v !== undefined && v !== SCHEMA_VERSION && !fresh) return 'older';
    if (v !== undefined && v !== SCHEMA_VERSION) {
      this.db.exec(`DROP TABLE IF EXISTS raw_fts; DROP TABLE IF EXISTS raw_post; DROP TABLE IF EXISTS raw_chunks; DROP TABLE IF EXISTS raw_marks; DROP TABLE IF EXISTS said_tail; DROP TABLE IF EXISTS turns_fts; DROP TABLE IF EXISTS blocks; DROP TABLE IF EXISTS turn_packs; DROP TABLE IF EXISTS turns; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS meta;`);
    }
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.db.exec(SCHEMA);
      if (this.db.prepare(`INSERT OR IGNORE INTO meta (k, v) VALUES ('schema', ?)`).run(SCHEMA_VERSION).changes > 0) {
        // A bigger in-memory term hash before each flush halves the build's FTS work.
        this.db.exec(`INSERT INTO turns_fts (turns_fts, rank) VALUES ('hashsize', ${32 << 20})`);
      }
      if (fresh) {
        this.db.exec(`INSERT INTO meta (k, v) VALUES ('building', '1') ON CONFLICT (k) DO UPDATE SET v = '1'`);
        // A first build merges no segments as it goes (each merge rewrites what earlier ones
        // wrote): one 'optimize' at the end merges them once (finishFresh).
        for (const t of FTS_TABLES) this.db.exec(`INSERT INTO ${t} (${t}, rank) VALUES ('automerge', 0); INSERT INTO ${t} (${t}, rank) VALUES ('crisismerge', 64)`);
      }
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    this.fresh = fresh;
    this.st = this.prepare();
    defineTurnsView(this.db);
    this.rawSt = rawStatements(this.db);
    return 'ok';
  }

  /** After a first build: mark it finished and go back to shared, journaled (WAL) access. */
  protected finishFresh(): void {
    if (!this.fresh) return;
    this.fresh = false;
    // The build's segment merges leave free pages behind (about a sixth of the file): give them
    // back while the file is still this process's alone. A crash meanwhile leaves 'building' set,
    // so the next open starts again.
    for (const t of FTS_TABLES) {
      this.db.exec(`INSERT INTO ${t} (${t}) VALUES ('optimize')`);
      this.db.exec(`INSERT INTO ${t} (${t}, rank) VALUES ('automerge', 4); INSERT INTO ${t} (${t}, rank) VALUES ('crisismerge', 16)`);
    }
    const free = Number(this.db.pragma('freelist_count', { simple: true }));
    const pages = Number(this.db.pragma('page_count', { simple: true }));
    if (free > pages / 20) this.db.exec('VACUUM');
    this.db.exec(`UPDATE meta SET v = '0' WHERE k = 'building'`);
    this.db.pragma('locking_mode = NORMAL');
    this.db.prepare(`SELECT count(*) FROM meta`).get(); // releases the exclusive lock
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
  }

  private tableExists(name: string): boolean {
    return !!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name);
  }

  private prepare() {
    const d = this.db;
    return {
      getMeta: d.prepare(`SELECT v FROM meta WHERE k = ?`).pluck(),
      setMeta: d.prepare(`INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`),
      fileByPath: d.prepare(`SELECT * FROM files WHERE machine = ? AND lake_path = ?`),
      insertFile: d.prepare(
        `INSERT INTO files (machine, lake_path, base, gen, lane, sess_id, claimed, unterminated, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)`,
      ),
      claimFile: d.prepare(
        `UPDATE files SET claimed = max(claimed, ?), unterminated = ?, first_seen = coalesce(min(first_seen, ?), ?), last_seen = max(coalesce(last_seen, ''), ?) WHERE id = ?`,
      ),
      progress: d.prepare(`UPDATE files SET done = ?, ck = ?, facts = ?, lines = ?, bad = ?, turn_from = ?, has_turns = max(has_turns, ?) WHERE id = ?`),
      behind: d.prepare(`SELECT * FROM files WHERE live = 1 AND done < claimed ORDER BY id`),
      sessByKey: d.prepare(`SELECT id FROM sessions WHERE machine = ? AND lane = ? AND session = ?`).pluck(),
      insertSess: d.prepare(`INSERT INTO sessions (machine, lane, session) VALUES (?, ?, ?)`),
      insertSection: d.prepare(`INSERT INTO sessions (machine, lane, session, whole, section) VALUES (?, ?, ?, ?, ?)`),
      // The blocks from block @from on of every session a file holds (@sess, its own, and its
      // sections'), in id order.
      fileBlocks: d.prepare(`SELECT id, sess_id FROM blocks WHERE sess_id IN (SELECT id FROM sessions WHERE id = @sess OR whole = @sess) AND id >= @from ORDER BY id`).raw(),
      updSess: d.prepare(
        `UPDATE sessions SET native = ?, parent = ?, subagent = ?, project = ?, repo = ?, title_hint = ?, started = ?, ended = ?, turns = ? WHERE id = ?`,
      ),
      sessById: d.prepare(`SELECT * FROM sessions WHERE id = ?`),
      fileById: d.prepare(`SELECT * FROM files WHERE id = ?`),
      insFts: d.prepare(`INSERT INTO turns_fts (rowid, text) VALUES (?, ?)`),
      delFts: d.prepare(`INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', ?, ?)`),
      tail: d.prepare(`SELECT text FROM said_tail WHERE id = ?`).pluck(),
      putTail: d.prepare(`INSERT OR REPLACE INTO said_tail (id, text) VALUES (?, ?)`),
      dropTail: d.prepare(`DELETE FROM said_tail WHERE id = ?`),
      pack: d.prepare(`SELECT data FROM turn_packs WHERE id = ?`).pluck(),
      putPack: d.prepare(`INSERT INTO turn_packs (id, data) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data`),
      blockSess: d.prepare(`SELECT sess_id FROM blocks WHERE id = ?`).pluck(),
      sessRewritten: d.prepare(`SELECT 1 FROM files WHERE sess_id = ${filesSess('?')} AND gen > 1 LIMIT 1`).pluck(),
      sessBlocks: d.prepare(`SELECT id FROM blocks WHERE sess_id = ? AND id >= ? ORDER BY id`).pluck(),
      // Older generations of a file (@machine, @base, @gen), with their sessions.
      olderFiles: d.prepare(`SELECT id, sess_id FROM files WHERE machine = @machine AND base = @base AND gen < @gen`).raw(),
      // The session's files whose turns are its count (see sessionTurns in turncount.ts).
      shownFiles: d.prepare(`SELECT id FROM files WHERE sess_id = ${filesSess('@sess')} AND live = 1 AND base = ${shownBase(filesSess('@sess'))}`).pluck(),
      insChunk: d.prepare(`INSERT INTO raw_chunks (file_id, byte_from, byte_to) VALUES (?, ?, ?)`),
      insMark: d.prepare(`INSERT OR REPLACE INTO raw_marks (file_id, byte, ck) VALUES (?, ?, ?)`),
      setRaw: d.prepare(`UPDATE files SET raw_done = ? WHERE id = ?`),
      // The titles of a file's sessions (@sess, its own, and its sections') taken from a turn from
      // number @n on.
      untitle: d.prepare(`UPDATE sessions SET title = NULL, title_key = NULL WHERE (id = @sess OR whole = @sess) AND title_key % ${2 ** 30} > @n`),
      setTitle: d.prepare(`UPDATE sessions SET title = ?, title_key = ? WHERE id = ? AND (title_key IS NULL OR title_key >= ?)`),

      lastBlock: d.prepare(`SELECT max(id) FROM blocks WHERE sess_id = ?`).pluck(),
      newBlock: d.prepare(`INSERT INTO blocks (sess_id) VALUES (?)`),
      liveFileOfSess: d.prepare(`SELECT * FROM files WHERE sess_id = ? AND live = 1 ORDER BY gen DESC, id`),
      // A section's files are those of the session whose files hold it.
      filesOfSess: d.prepare(`SELECT * FROM files WHERE sess_id = ${filesSess('?')} AND live = 1 ORDER BY gen DESC, id`),
      match: d.prepare(
        // The matching turns of each block in order, from the same pass that counts them (FTS5
        // does not seek on a rowid bound, so asking again per session would read every match
        // again), then each block's session: one lookup a block, not a turn. A built-in
        // aggregate: a JavaScript one costs a callback per matching turn.
        `SELECT b.sess_id AS s, m.c, m.ids FROM (SELECT rowid >> ${BLOCK_BITS} AS k, count(*) AS c, group_concat(rowid ORDER BY rowid) AS ids FROM turns_fts WHERE turns_fts MATCH ? GROUP BY k) m JOIN blocks b ON b.id = m.k ORDER BY b.sess_id, m.k`,
      ),
    };
  }

  /** A snapshot kept for later calls (snapshotIndex) is closed when it is replaced, not by them. */
  kept = false;

  close(): void {
    if (!this.kept) this.db.close();
  }


  protected tx(fn: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }
}
