// The turn index (turns.sqlite): one row per user or assistant turn with where it sits in the
// floor, and an FTS5 trigram index over its lowercased text. A trigram phrase query matches any
// substring of three or more characters, so on lowercased text it is the same literal match a scan
// does. Only conversation text is indexed: tool output, thinking and tool arguments would make it
// larger than the floor, so those stay with the scan tier.
//
// It is a cache, kept current from the floor's manifest: each update reads the manifest lines added
// since the last one and, per file, only the bytes after the file's checkpoint (the start of the
// turns a later line could still extend). Updates from several processes are safe: each batch is a
// BEGIN IMMEDIATE transaction, and a file's progress is read again inside it, so two updates never
// add the same turns twice. A file that opened a new generation is read fresh, and the older
// generation's turns leave the index (its bytes stay on the floor).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { loadSqlite, sqliteLoadError } from '../sqlite';
import { readManifest } from '../floor/manifest';
import type { Checkpoint, FileFacts, Turn } from '../turns';
import { titleOf } from '../turns';
import { laneRel } from './read';
import { fold, runParseJob, type ParseJob, type ParseResult } from './parse-job';
import { ParsePool } from './pool';
import { baseOfGen, projectFromPath, readMeta, type MachineFloor, type Root } from './roots';
import { agentByLane } from '../agents';
import { lakeFileProblem } from '../recall/floorpath';
import { setting } from '../settings';

type DB = BetterSqlite3.Database;

// 4: files whose lake_path the guard refuses are no longer read; an index built before may hold
// text such a file pointed at, so it is built again.
const SCHEMA_VERSION = '4';

/** A turn's rowid is its session's id times SPAN plus a sequence number, so the FTS rowids of a
 * match group by session without a join (rowid >> 24), and a session's turns are one rowid range. */
const SPAN_BITS = 24;
const SPAN = 2 ** SPAN_BITS;

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
  UNIQUE (machine, lane, session)
);
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
  UNIQUE (machine, lake_path)
);
CREATE INDEX IF NOT EXISTS files_base ON files (machine, base);
CREATE INDEX IF NOT EXISTS files_sess ON files (sess_id);
CREATE INDEX IF NOT EXISTS files_behind ON files (id) WHERE live = 1 AND done < claimed;
CREATE TABLE IF NOT EXISTS turns (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  sess_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  role TEXT NOT NULL,
  side INTEGER NOT NULL DEFAULT 0,
  ts TEXT,
  line_from INTEGER NOT NULL,
  line_to INTEGER NOT NULL,
  byte_from INTEGER NOT NULL,
  byte_to INTEGER NOT NULL,
  said INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_file ON turns (file_id, line_from);
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5 (text, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
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
}

export type SessionKeys = Omit<SessionRow, 'title' | 'title_hint'>;

export type LiveFile = Pick<FileRow, 'id' | 'machine' | 'lake_path' | 'base' | 'gen' | 'lane' | 'sess_id' | 'claimed' | 'unterminated' | 'first_seen' | 'last_seen'>;

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
}

export interface TurnRow {
  id: number;
  file_id: number;
  sess_id: number;
  n: number;
  role: 'u' | 'a';
  side: number;
  ts: string | null;
  line_from: number;
  line_to: number;
  byte_from: number;
  byte_to: number;
  /** The turn has text (and a row in the FTS index). */
  said: number;
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
}

export type IndexOpen = { ok: true; index: TurnIndex } | { ok: false; reason: string };

export { fold };

/** Can the index answer this term? The trigram tokenizer needs three characters (code points). */
export function indexable(term: string): boolean {
  let n = 0;
  for (const _ of fold(term)) if (++n >= 3) return true;
  return false;
}

function phrase(term: string): string {
  return `"${fold(term).replace(/"/g, '""')}"`;
}

function dropFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

function sqliteCode(e: unknown): string {
  return String((e as { code?: unknown }).code ?? '');
}

/** SQLite opens through a symlink: one planted in a store would have the index read from, or
 * written to, a file elsewhere. Why the index is not used, or null. */
function indexSymlink(root: Root): string | null {
  const link = [root.index, `${root.index}-wal`, `${root.index}-shm`, `${root.index}-journal`].find((f) => fs.lstatSync(f, { throwIfNoEntry: false })?.isSymbolicLink());
  return link ? `${link} is a symlink, which is never followed` : null;
}

/** Opens (creating when missing) the turn index of a root. Fails with a reason, never throws:
 * the caller falls back to a scan and says why. */
export function openIndex(root: Root): IndexOpen {
  const Database = loadSqlite();
  if (!Database) return { ok: false, reason: `better-sqlite3 cannot load (${sqliteLoadError() ?? 'unknown error'})` };
  const link = indexSymlink(root);
  if (link) return { ok: false, reason: link };
  for (let attempt = 0; ; attempt++) {
    let db: DB | null = null;
    try {
      const fresh = !fs.existsSync(root.index) || fs.statSync(root.index).size === 0;
      db = new Database(root.index, { timeout: 30_000 });
      // Transcripts hold secrets; the index holds their text.
      if (fresh) fs.chmodSync(root.index, 0o600);
      if (fresh) {
        // A first build writes the whole index: one writer, no journal (it is a cache), and meta
        // says 'building' until it is done, so a build that died is started again, not trusted.
        db.pragma('locking_mode = EXCLUSIVE');
        db.pragma('journal_mode = OFF');
        db.pragma('synchronous = OFF');
      } else {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
      }
      db.pragma('cache_size = -16384');
      const idx = new TurnIndex(db, root);
      const state = idx.ensureSchema(fresh);
      if (state === 'newer') {
        db.close();
        return { ok: false, reason: `the turn index ${root.index} was built by a newer brain` };
      }
      if (state === 'reopen' || state === 'abandoned') {
        db.close();
        db = null;
        if (state === 'abandoned') dropFiles(root.index);
        if (attempt < 2) continue;
        return { ok: false, reason: `the turn index ${root.index} could not be opened for a build` };
      }
      return { ok: true, index: idx };
    } catch (e) {
      try {
        db?.close();
      } catch {
        /* already failing */
      }
      const code = sqliteCode(e);
      if ((code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') && attempt === 0) {
        // A cache that cannot be read is rebuilt.
        dropFiles(root.index);
        continue;
      }
      if (code.startsWith('SQLITE_BUSY')) return { ok: false, reason: `the turn index ${root.index} is busy (another process is building it)` };
      return { ok: false, reason: `the turn index ${root.index} cannot be written (${(e as Error).message})` };
    }
  }
}

/** A copy of the index in memory, for a reader that must write nothing at all (brain mcp: opening
 * the file itself, even read-only, would create its WAL and shared-memory files). Given only when
 * the file alone is the whole index (no WAL holding writes not merged into it), it did not change
 * while it was read, and it holds everything the manifests claim; otherwise a reason, and the
 * caller scans. Costs one read of the file and its size in memory while in use. */
export function snapshotIndex(root: Root): IndexOpen {
  const o = takeSnapshot(root);
  if (!o.ok) return o;
  // A long-lived reader (the MCP server) keeps the copy while the file stays the same, and lets it
  // go after a few idle minutes (it is the size of the index).
  o.index.kept = true;
  return o;
}

let kept: { key: string; index: TurnIndex; timer: NodeJS.Timeout } | null = null;
/** The copy and SQLite's own take twice this while it is made (an index this size is a ~70 GB floor). */
const MAX_SNAPSHOT_BYTES = 1 << 30;
const KEEP_MS = 5 * 60_000;

function dropKept(): void {
  if (!kept) return;
  clearTimeout(kept.timer);
  kept.index.kept = false;
  kept.index.close();
  kept = null;
}

function takeSnapshot(root: Root): IndexOpen {
  const Database = loadSqlite();
  if (!Database) return { ok: false, reason: `better-sqlite3 cannot load (${sqliteLoadError() ?? 'unknown error'})` };
  const file = root.index;
  const link = indexSymlink(root);
  if (link) return { ok: false, reason: link };
  const identity = () => {
    try {
      const st = fs.statSync(file, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return null;
    }
  };
  const walBytes = () => fileBytes(`${file}-wal`);
  const before = identity();
  if (!before) return { ok: false, reason: `no turn index at ${file}` };
  if (walBytes() > 0) return { ok: false, reason: 'the turn index has writes not yet merged into its file (a recorder is writing it)' };
  const key = `${file}\0${before}\0${root.machines.map((m) => `${m.machine}=${m.dir}`).join('\0')}`;
  if (kept && kept.key === key) {
    const why = kept.index.behind();
    if (why) return { ok: false, reason: why };
    kept.timer.refresh();
    return { ok: true, index: kept.index };
  }
  dropKept();
  const size = Number(before.split(':')[1]);
  if (size > MAX_SNAPSHOT_BYTES) return { ok: false, reason: `the turn index is too large to copy into memory (${(size / 2 ** 30).toFixed(1)} GB)` };
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    return { ok: false, reason: `the turn index cannot be read (${(e as Error).message})` };
  }
  if (identity() !== before || walBytes() > 0) return { ok: false, reason: 'the turn index changed while it was read' };
  // The file says WAL (format bytes 18 and 19 are 2); the copy is an ordinary database in memory.
  if (buf.length >= 100) buf[18] = buf[19] = 1;
  let db: DB;
  try {
    db = new Database(buf);
  } catch (e) {
    return { ok: false, reason: `the turn index cannot be read (${(e as Error).message})` };
  }
  const idx = new TurnIndex(db, root);
  try {
    const state = idx.ensureSchema(false);
    const why = state === 'ok' ? idx.behind() : state === 'newer' ? 'the turn index was built by a newer brain' : 'the turn index is not finished';
    if (why) {
      db.close();
      return { ok: false, reason: why };
    }
  } catch (e) {
    db.close();
    return { ok: false, reason: `the turn index cannot be read (${(e as Error).message})` };
  }
  kept = { key, index: idx, timer: setTimeout(dropKept, KEEP_MS).unref() };
  return { ok: true, index: idx };
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Builds the index again from the floor alone (brain rebuild): into a new file beside the old
 * one, which then takes its place. The new file is a new inode while the old one is still there,
 * so a process holding the old one open can tell (FloorView reopens); a search meanwhile uses the
 * old index. */
export function rebuildIndex(root: Root): { ok: true; report: UpdateReport } | { ok: false; reason: string } {
  const tmp = `${root.index}.rebuild-${process.pid}`;
  // A rebuild that died leaves its file: remove those whose process is gone.
  const dir = path.dirname(root.index);
  const stem = `${path.basename(root.index)}.rebuild-`;
  for (const f of fs.readdirSync(dir)) {
    const pid = f.startsWith(stem) ? Number.parseInt(f.slice(stem.length), 10) : Number.NaN;
    if (Number.isInteger(pid) && (pid === process.pid || !alive(pid))) fs.rmSync(path.join(dir, f), { force: true });
  }
  const o = openIndex({ ...root, index: tmp });
  if (!o.ok) return o;
  let report: UpdateReport;
  try {
    report = o.index.update();
  } catch (e) {
    o.index.close();
    dropFiles(tmp);
    throw e;
  }
  // Closing the last connection checkpoints the new file's WAL and removes it.
  o.index.close();
  // The old file's WAL and shared memory must go with it: a new connection would read them as
  // the new file's.
  dropFiles(root.index);
  fs.renameSync(tmp, root.index);
  return { ok: true, report };
}

/** What a parse was based on: a result parsed ahead is stale once this changes. */
function progressKey(r: FileRow): string {
  return `${r.ck ?? ''}|${r.done}|${r.claimed}|${r.unterminated}`;
}

interface Claim {
  mf: MachineFloor;
  lake_path: string;
  lane: string;
  session: string;
  gen: number;
  byte_to: number;
  unterminated: boolean;
  first_seen: string;
  last_seen: string;
}

export class TurnIndex {
  private st!: ReturnType<TurnIndex['prepare']>;
  private fresh = false;

  constructor(
    readonly db: DB,
    readonly root: Root,
  ) {}

  /** Creates or checks the schema. 'reopen': a fresh open found another process's finished build;
   * 'abandoned': a build that never finished (its process died). */
  ensureSchema(fresh = false): 'ok' | 'reopen' | 'abandoned' | 'newer' {
    const v = this.tableExists('meta') ? (this.db.prepare(`SELECT v FROM meta WHERE k = 'schema'`).get() as { v: string } | undefined)?.v : undefined;
    // An index a newer brain built (a store several machines share) is left alone: rebuilding it
    // here would make the newer one rebuild it in turn.
    if (v !== undefined && Number(v) > Number(SCHEMA_VERSION)) return 'newer';
    if (v !== undefined) {
      if (fresh) return 'reopen';
      if ((this.db.prepare(`SELECT v FROM meta WHERE k = 'building'`).get() as { v: string } | undefined)?.v === '1') return 'abandoned';
    }
    if (v !== undefined && v !== SCHEMA_VERSION) {
      // Another layout: it is a cache, so start again.
      this.db.exec(`DROP TABLE IF EXISTS turns_fts; DROP TABLE IF EXISTS turns; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS meta;`);
    }
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.db.exec(SCHEMA);
      if (this.db.prepare(`INSERT OR IGNORE INTO meta (k, v) VALUES ('schema', ?)`).run(SCHEMA_VERSION).changes > 0) {
        // A bigger in-memory term hash before each flush halves the build's FTS work.
        this.db.exec(`INSERT INTO turns_fts (turns_fts, rank) VALUES ('hashsize', ${32 << 20})`);
      }
      if (fresh) this.db.exec(`INSERT INTO meta (k, v) VALUES ('building', '1') ON CONFLICT (k) DO UPDATE SET v = '1'`);
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    this.fresh = fresh;
    this.st = this.prepare();
    return 'ok';
  }

  /** After a first build: mark it finished and go back to shared, journaled (WAL) access. */
  private finishFresh(): void {
    if (!this.fresh) return;
    this.fresh = false;
    // The build's segment merges leave free pages behind (about a sixth of the file): give them
    // back while the file is still this process's alone. A crash meanwhile leaves 'building' set,
    // so the next open starts again.
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
      progress: d.prepare(`UPDATE files SET done = ?, ck = ?, facts = ?, lines = ?, bad = ? WHERE id = ?`),
      newerGen: d.prepare(`SELECT max(gen) FROM files WHERE machine = ? AND base = ?`).pluck(),
      olderLive: d.prepare(`SELECT id FROM files WHERE machine = ? AND base = ? AND gen < ? AND live = 1`).pluck(),
      setDead: d.prepare(`UPDATE files SET live = 0 WHERE id = ?`),
      behind: d.prepare(`SELECT * FROM files WHERE live = 1 AND done < claimed ORDER BY id`),
      sessByKey: d.prepare(`SELECT id FROM sessions WHERE machine = ? AND lane = ? AND session = ?`).pluck(),
      insertSess: d.prepare(`INSERT INTO sessions (machine, lane, session) VALUES (?, ?, ?)`),
      updSess: d.prepare(
        `UPDATE sessions SET native = ?, parent = ?, subagent = ?, project = ?, repo = ?, title_hint = ?, started = ?, ended = ?, turns = ? WHERE id = ?`,
      ),
      sessById: d.prepare(`SELECT * FROM sessions WHERE id = ?`),
      fileById: d.prepare(`SELECT * FROM files WHERE id = ?`),
      delFtsFrom: d.prepare(`DELETE FROM turns_fts WHERE rowid IN (SELECT id FROM turns WHERE file_id = ? AND line_from >= ? AND said = 1)`),
      delTurnsFrom: d.prepare(`DELETE FROM turns WHERE file_id = ? AND line_from >= ?`),
      insTurn: d.prepare(
        `INSERT INTO turns (id, file_id, sess_id, n, role, side, ts, line_from, line_to, byte_from, byte_to, said) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insFts: d.prepare(`INSERT INTO turns_fts (rowid, text) VALUES (?, ?)`),
      countTurns: d.prepare(`SELECT count(*) FROM turns WHERE id >= ? AND id < ?`).pluck(),
      untitle: d.prepare(`UPDATE sessions SET title = NULL, title_key = NULL WHERE id = ? AND title_key % ${2 ** 31} > ?`),
      setTitle: d.prepare(`UPDATE sessions SET title = ?, title_key = ? WHERE id = ? AND (title_key IS NULL OR title_key >= ?)`),

      lastSeq: d.prepare(`SELECT max(id) FROM turns WHERE id >= ? AND id < ?`).pluck(),
      liveFileOfSess: d.prepare(`SELECT * FROM files WHERE sess_id = ? AND live = 1 ORDER BY gen DESC, id`),
      match: d.prepare(
        // The matching turns of each session in order, from the same pass that counts them (FTS5
        // does not seek on a rowid bound, so asking again per session would read every match
        // again). A built-in aggregate: a JavaScript one costs a callback per matching turn.
        `SELECT rowid >> ${SPAN_BITS} AS s, count(*) AS c, group_concat(rowid ORDER BY rowid) AS ids FROM turns_fts WHERE turns_fts MATCH ? GROUP BY s`,
      ),
      turnById: d.prepare(`SELECT * FROM turns WHERE id = ?`),
    };
  }

  /** A snapshot kept for later calls (snapshotIndex) is closed when it is replaced, not by them. */
  kept = false;

  close(): void {
    if (!this.kept) this.db.close();
  }

  // ---------------------------------------------------------------- update

  /** Brings the index up to date with the floor. Throws (SQLite errors) when it cannot write. */
  update(): UpdateReport {
    const t0 = Date.now();
    const rep: UpdateReport = { files: 0, bytes: 0, turns: 0, parsed_ahead: 0, text_bytes: 0, ms: 0, refused: [] };
    const offsets: { key: string; to: number }[] = [];
    const claims = new Map<string, Claim>();
    if (this.root.kind === 'home') {
      // This machine's index is named after it: a renamed machine starts again under its new name.
      const name = this.root.machines[0].machine;
      const was = this.st.getMeta.get('home_machine') as string | undefined;
      if (was !== name) {
        if (was !== undefined) this.reset();
        this.tx(() => this.st.setMeta.run('home_machine', name));
      }
    }
    for (const mf of this.root.machines) {
      const p = this.manifestProgress(mf);
      if (!p) continue;
      const { key, from, size, mfile } = p;
      if (size < from) {
        // A manifest is append-only; a shorter one is another floor: read it all again.
        this.reset();
        return this.update();
      }
      if (size === from) continue;
      const r = readManifest(mfile, from);
      for (const m of r.lines) {
        const k = `${mf.machine}\0${m.lake_path}`;
        const c = claims.get(k);
        if (!c) {
          const { lane } = laneRel(m.lake_path);
          claims.set(k, {
            mf,
            lake_path: m.lake_path,
            lane: m.lane ?? lane,
            session: m.session,
            gen: m.gen ?? 1,
            byte_to: m.byte_to,
            unterminated: !!m.unterminated,
            first_seen: m.captured_at,
            last_seen: m.captured_at,
          });
        } else {
          if (m.byte_to >= c.byte_to) {
            c.byte_to = m.byte_to;
            c.unterminated = !!m.unterminated;
          }
          if (m.captured_at < c.first_seen) c.first_seen = m.captured_at;
          if (m.captured_at > c.last_seen) c.last_seen = m.captured_at;
        }
      }
      offsets.push({ key, to: r.length });
    }
    // Claims first (cheap), then the bytes, in batches so another process can take the lock between.
    const todo = [...claims.values()].sort((a, b) => a.gen - b.gen);
    this.tx(() => {
      for (const c of todo) this.claim(c);
    });
    const behind = this.st.behind.all() as FileRow[];
    const pending = behind.reduce((a, r) => a + Math.max(0, r.claimed - (r.ck ? (JSON.parse(r.ck) as Checkpoint).byte : 0)), 0);
    // A parse thread pays off on a first build or a big catch-up, not on a few appended lines.
    let pool = pending >= setting(process.env, 'BRAIN_INDEX_WORKER_MIN') ? ParsePool.start() : null;
    const sent: ({ key: string; bytes: number } | undefined)[] = [];
    let next = 0;
    let inFlight = 0;
    const fill = (from: number) => {
      if (!pool) return;
      // Keep the parse thread a few files (at most 48 MB) ahead of the inserts.
      while (next < behind.length && next - from < 16 && inFlight < 48 << 20) {
        const row = behind[next];
        const job = this.jobFor(row);
        if (job) {
          const bytes = Math.max(0, row.claimed - (job.resume?.byte ?? 0));
          pool.send(job);
          sent[next] = { key: progressKey(row), bytes };
          inFlight += bytes;
        }
        next++;
      }
    };
    try {
      let i = 0;
      while (i < behind.length) {
        const started = Date.now();
        let bytes = 0;
        this.tx(() => {
          while (i < behind.length && bytes < 256 << 20 && Date.now() - started < 2000) {
            fill(i);
            let ahead: { key: string; result: ParseResult } | undefined;
            const s = sent[i];
            if (s && pool) {
              // A minute, plus a second per MB: far more than a parse takes, unless the thread died.
              const m = pool.next(60_000 + s.bytes / 1000);
              inFlight -= s.bytes;
              if (!m) {
                pool.close();
                pool = null;
              } else if (m.ok && m.result) ahead = { key: s.key, result: m.result };
              // A job that failed there is parsed again here, where its error is reported.
            }
            const r = this.indexFile(behind[i++], ahead, rep.refused);
            if (r.ahead) rep.parsed_ahead++;
            rep.text_bytes += r.text;
            bytes += r.bytes;
            rep.bytes += r.bytes;
            rep.turns += r.turns;
            if (r.bytes > 0 || r.turns > 0) rep.files++;
          }
        });
      }
    } finally {
      pool?.close();
    }
    if (offsets.length) {
      this.tx(() => {
        for (const o of offsets) {
          const cur = Number(this.st.getMeta.get(o.key) ?? 0);
          if (o.to > cur) this.st.setMeta.run(o.key, String(o.to));
        }
      });
    }
    const wasFresh = this.fresh;
    this.finishFresh();
    // After a change, or when an earlier merge found a reader in the way.
    if (!wasFresh && (offsets.length > 0 || fileBytes(`${this.root.index}-wal`) > 0)) this.mergeWal();
    rep.ms = Date.now() - t0;
    return rep;
  }

  /** After a change, the WAL is merged into the file and emptied when no reader is in the way, so
   * the file alone is the whole index again: `brain mcp`, which writes nothing, can then read a
   * copy of it (snapshotIndex). Never waits: a busy index is merged on a later change. */
  private mergeWal(): void {
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      /* busy or not in WAL mode: nothing to do */
    } finally {
      this.db.pragma('busy_timeout = 30000');
    }
  }

  /** How far into a machine's manifest this index has read, and how long it is now (null: none). */
  private manifestProgress(mf: MachineFloor): { key: string; from: number; size: number; mfile: string } | null {
    const key = `manifest:${mf.machine}`;
    const mfile = path.join(mf.dir, 'manifest', 'manifest.jsonl');
    try {
      return { key, from: Number(this.st.getMeta.get(key) ?? 0), size: fs.statSync(mfile).size, mfile };
    } catch {
      return null;
    }
  }

  /** Why this index does not hold everything the floor's manifests claim (null: it does). */
  behind(): string | null {
    if (this.root.kind === 'home' && this.st.getMeta.get('home_machine') !== this.root.machines[0].machine) return 'the turn index was built for another machine name';
    for (const mf of this.root.machines) {
      const p = this.manifestProgress(mf);
      if (p && p.from !== p.size) return `the turn index is behind the floor of ${mf.machine} (${p.size - p.from} manifest bytes not read yet)`;
    }
    return null;
  }

  /** Forgets everything (a replaced floor). */
  reset(): void {
    this.tx(() => {
      this.db.exec(`DELETE FROM turns; DELETE FROM files; DELETE FROM sessions; DELETE FROM meta WHERE k NOT IN ('schema', 'building');`);
      this.db.exec(`INSERT INTO turns_fts (turns_fts) VALUES ('delete-all')`);
    });
  }

  private tx(fn: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  private sessionId(machine: string, lane: string, session: string): number {
    const id = this.st.sessByKey.get(machine, lane, session) as number | undefined;
    if (id !== undefined) return id;
    return Number(this.st.insertSess.run(machine, lane, session).lastInsertRowid);
  }

  private claim(c: Claim): void {
    const machine = c.mf.machine;
    let row = this.st.fileByPath.get(machine, c.lake_path) as FileRow | undefined;
    if (!row) {
      const agent = agentByLane(c.lane);
      const { rel } = laneRel(c.lake_path);
      const session = c.session || agent?.sessionOf(baseOfGen(rel, c.gen)) || rel;
      const sid = this.sessionId(machine, c.lane, session);
      const base = baseOfGen(c.lake_path, c.gen);
      this.st.insertFile.run(machine, c.lake_path, base, c.gen, c.lane, sid, c.first_seen, c.last_seen);
      row = this.st.fileByPath.get(machine, c.lake_path) as FileRow;
    }
    this.st.claimFile.run(c.byte_to, c.unterminated ? 1 : 0, c.first_seen, c.first_seen, c.last_seen, row.id);
    // A newer generation replaces older ones in the index.
    const newest = this.st.newerGen.get(machine, row.base) as number;
    if (row.gen < newest) this.retire(row.id);
    else for (const old of this.st.olderLive.all(machine, row.base, row.gen) as number[]) this.retire(old);
  }

  private retire(fileId: number): void {
    this.st.delFtsFrom.run(fileId, 0);
    this.st.delTurnsFrom.run(fileId, 0);
    this.st.setDead.run(fileId);
    this.st.progress.run(0, null, null, 0, 0, fileId);
    const f = this.db.prepare(`SELECT sess_id FROM files WHERE id = ?`).pluck().get(fileId) as number;
    this.refreshSession(f);
  }

  /** The parse job for a file's new bytes; null when its machine is gone or its path is refused
   * (a manifest line naming `..` or a symlink: it stays behind, and is reported on each update). */
  private jobFor(row: FileRow, refused?: UpdateReport['refused']): ParseJob | null {
    const mf = this.root.machines.find((m) => m.machine === row.machine);
    if (!mf) return null;
    const problem = lakeFileProblem(mf.dir, row.lake_path);
    if (problem) {
      refused?.push({ machine: row.machine, lake_path: row.lake_path, problem });
      return null;
    }
    return {
      file: path.join(mf.dir, row.lake_path),
      lane: row.lane,
      rel: laneRel(row.lake_path).rel,
      resume: row.ck ? (JSON.parse(row.ck) as Checkpoint) : undefined,
      to: row.claimed,
      tail: !!row.unterminated,
    };
  }

  /** Reads a file's new bytes. Runs inside the batch's transaction, so `row` is read again here;
   * a result parsed ahead (by the parse thread) is used only if the row has not moved since. */
  private indexFile(stale: FileRow, ahead: { key: string; result: ParseResult } | undefined, refused: UpdateReport['refused']): { bytes: number; turns: number; text: number; ahead?: boolean } {
    const row = this.st.fileById.get(stale.id) as FileRow;
    if (!row.live || row.done >= row.claimed) return { bytes: 0, turns: 0, text: 0 };
    const job = this.jobFor(row, refused);
    if (!job) return { bytes: 0, turns: 0, text: 0 };
    const used = !!ahead && ahead.key === progressKey(row);
    const r = used ? ahead.result : runParseJob(job);
    if (r.kind === 'missing') return { bytes: 0, turns: 0, text: 0 }; // not synced yet
    if (r.kind === 'none') {
      // No dialect reads this file (a sub-agent's .meta.json): remember it is done.
      this.st.progress.run(row.claimed, null, null, 0, 0, row.id);
      return { bytes: 0, turns: 0, text: 0 };
    }
    const resume = job.resume;
    if (resume) {
      this.st.delFtsFrom.run(row.id, resume.line);
      this.st.delTurnsFrom.run(row.id, resume.line);
      // A title taken from a turn read again (a Codex user item may turn out to be context) is
      // taken again from what this read finds.
      this.st.untitle.run(row.sess_id, resume.n);
    }
    const base = row.sess_id * SPAN;
    let seq = ((this.st.lastSeq.get(base, base + SPAN) as number | null) ?? base) - base;
    for (const t of r.turns) {
      if (++seq >= SPAN) throw new Error(`session ${row.sess_id} has more than ${SPAN - 1} turns`);
      const id = base + seq;
      const folded = t[8];
      this.st.insTurn.run(id, row.id, row.sess_id, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], folded ? 1 : 0);
      if (folded) this.st.insFts.run(id, folded);
    }
    // The title is the first prompt (the main conversation's before a sub-agent's).
    if (r.title) {
      const key = r.title.side * 2 ** 31 + r.title.n;
      this.st.setTitle.run(titleOf(r.title.text), key, row.sess_id, key);
    }
    // A file shorter than its claim (a store mid-sync) stays behind and is read again next time.
    const done = r.end.byte + (row.unterminated ? r.end.tail : 0);
    const readFrom = resume ? resume.byte : 0;
    this.st.progress.run(Math.min(done, row.claimed), JSON.stringify(r.checkpoint), JSON.stringify(r.facts), r.counts.lines, r.counts.bad, row.id);
    this.refreshSession(row.sess_id, r.facts, row);
    return { bytes: Math.max(0, r.end.byte - readFrom), turns: r.turns.length, text: r.text_bytes, ahead: used };
  }

  private refreshSession(sid: number, facts?: FileFacts, file?: FileRow): void {
    const s = this.st.sessById.get(sid) as SessionRow;
    const live = this.st.liveFileOfSess.all(sid) as FileRow[];
    const f = file && file.live ? file : live[0];
    const ff: FileFacts | null = facts ?? (f?.facts ? (JSON.parse(f.facts) as FileFacts) : null);
    const mf = this.root.machines.find((m) => m.machine === s.machine);
    const meta = mf ? readMeta(mf.dir, s.lane, s.session) : null;
    const { rel } = f ? laneRel(f.base) : { rel: '' };
    const project = ff?.cwd ?? meta?.cwd ?? projectFromPath(s.lane, rel);
    const repo = meta?.git?.remote ?? meta?.git?.common_dir ?? null;
    const turns = this.st.countTurns.get(sid * SPAN, (sid + 1) * SPAN) as number;
    this.st.updSess.run(
      ff?.native_session ?? null,
      ff?.parent_session ?? null,
      ff?.subagent ? 1 : 0,
      project,
      repo,
      ff?.title_hint ? titleOf(ff.title_hint) : null,
      ff?.started ?? f?.first_seen ?? null,
      ff?.ended ?? f?.last_seen ?? null,
      turns,
      sid,
    );
  }

  // ---------------------------------------------------------------- queries

  /** Sessions whose user or assistant turns contain `term` (case-insensitive, literal), with the
   * number of such turns and the ids of the first three. */
  match(term: string): { sess_id: number; count: number; ids: number[] }[] {
    const rows = this.st.match.all(phrase(term)) as { s: number; c: number; ids: string }[];
    return rows.map((r) => ({ sess_id: r.s, count: r.c, ids: r.ids.split(',', 3).map(Number) }));
  }

  turn(id: number): TurnRow | undefined {
    return this.st.turnById.get(id) as TurnRow | undefined;
  }

  session(id: number): SessionRow | undefined {
    return this.st.sessById.get(id) as SessionRow | undefined;
  }

  /** Every session's keys, place and dates: what filtering and ranking need, without the titles. */
  sessionKeys(): SessionKeys[] {
    return this.db.prepare(`SELECT id, machine, lane, session, native, parent, subagent, project, repo, started, ended, turns FROM sessions`).all() as SessionKeys[];
  }

  sessions(): SessionRow[] {
    return this.db.prepare(`SELECT * FROM sessions WHERE turns > 0 OR id IN (SELECT sess_id FROM files WHERE live = 1)`).all() as SessionRow[];
  }

  file(id: number): FileRow | undefined {
    return this.db.prepare(`SELECT * FROM files WHERE id = ?`).get(id) as FileRow | undefined;
  }

  /** Every live file, with where it is and what the manifest claims (not its parse state). */
  liveFiles(): LiveFile[] {
    return this.db
      .prepare(`SELECT id, machine, lake_path, base, gen, lane, sess_id, claimed, unterminated, first_seen, last_seen FROM files WHERE live = 1`)
      .all() as LiveFile[];
  }

  filesOf(sessId: number): FileRow[] {
    return this.st.liveFileOfSess.all(sessId) as FileRow[];
  }

  /** Sessions whose id, the agent's own id, or a prefix of either is `ref`. */
  findSessions(ref: string): SessionRow[] {
    const exact = this.db.prepare(`SELECT * FROM sessions WHERE session = ? OR native = ?`).all(ref, ref) as SessionRow[];
    if (exact.length) return exact;
    const esc = ref.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.db
      .prepare(`SELECT * FROM sessions WHERE session LIKE ? ESCAPE '\\' OR native LIKE ? ESCAPE '\\' LIMIT 50`)
      .all(`${esc}%`, `${esc}%`) as SessionRow[];
  }

  stats(): { sessions: number; files: number; turns: number; bytes_indexed: number } {
    const g = (sql: string) => Number(this.db.prepare(sql).pluck().get() ?? 0);
    return {
      sessions: g(`SELECT count(*) FROM sessions`),
      files: g(`SELECT count(*) FROM files WHERE live = 1`),
      turns: g(`SELECT count(*) FROM turns`),
      bytes_indexed: g(`SELECT coalesce(sum(done), 0) FROM files WHERE live = 1`),
    };
  }
}

export type { Turn };
