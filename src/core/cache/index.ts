// The DuckDB cache (brain.duckdb in BRAIN_HOME): built from lake/ + manifest/ alone, deletable at
// any time. rebuildCache makes it from nothing; updateCache reads only the manifest lines beyond
// what the cache has seen (the capture calls it after `brain record`); runReadOnlySql is the one
// SQL entry point of the CLI, the MCP server and the VS Code tools.
//
// Locking (see db.ts): an update holds DuckDB's exclusive file lock while it writes, typically
// milliseconds; a query holds a shared lock while it runs. Each side retries the other's lock
// with backoff for up to 10 s, then fails with code 'cache-locked'. A rebuild writes a new file
// beside the cache and renames it over the old one, so queries keep running during a rebuild.
import * as fs from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { BrainError } from '../errors';
import { layout, mkdirPrivate, FILE_MODE } from '../home';
import { agents, registry } from '../agents';
import { copyInto, openDb, removeDbFiles, serialised, isLockError, type Db, DEFAULT_LOCK_TIMEOUT_MS, QUERY_MEMORY } from './db';
import { ingest, readMeta, manifestCheck, type IngestStats } from './ingest';
import { loadSchema } from './sqlfiles';
import { precheck } from './readonly';
import { readOnlyQuery, type SqlResult } from './query';
import { DEFAULT_CLI_MAX_BYTES, DEFAULT_SQL_TIMEOUT_MS } from '../sqllimits';
import { hashRange } from '../floor/ranges';
import { setting } from '../settings';
import { forgetFresh, knownCurrent, noteFresh } from './fresh';
import { removeLeftovers } from '../pids';

export type { Db } from './db';
export { QUERY_MEMORY } from './db';
export type { IngestStats } from './ingest';
export { readOnlyQuery, type SqlColumn, type SqlResult, type QueryOptions } from './query';

export interface CacheOptions {
  lockTimeoutMs?: number;
  /** DuckDB memory_limit while building (default 512MB). */
  memoryLimit?: string;
  /** DuckDB memory_limit of a read-only open (default: DuckDB's own). */
  queryMemory?: string;
  threads?: number;
  timeZone?: string;
  /** Let DuckDB read whole lake files itself during a rebuild (default true); false sends every
   * line through the program's line reader, the path of incremental updates (tests compare them). */
  bulk?: boolean;
  /** Largest lake file the bulk reader takes (default 32 MB); bigger ones go through the line reader. */
  bulkMaxFileBytes?: number;
}

export interface BuildResult extends IngestStats {
  /** 'rebuild' (from nothing), 'update' (incremental) or 'current' (nothing new). */
  mode: 'rebuild' | 'update' | 'current';
  /** Why a rebuild happened when an update was asked for. */
  reason?: string;
  ms: number;
  path: string;
}

const BUILD_MEMORY = '512MB';
// A rebuild's DuckDB limit: what it holds beyond it (query state outside the buffer pool, the
// allocator's cache) and the program itself (~150 MB) come on top. On one thread (below) 384 MB
// peaked at 551 MB RSS at 200 MB of lake and 641 MB at 1 GB, 320 MB at 480 and 578 MB.
const REBUILD_MEMORY = '320MB';
// A rebuild's threads unless BRAIN_DUCKDB_THREADS says otherwise. Its statements read one load or
// derive batch (32 MB of lake, less than one row group of each table), which DuckDB scans on one
// thread anyway; a second thread only held its own buffers. 200 MB of lake on the 2-core VM, back
// to back: 2 threads 92 s wall, 74 s CPU, 607 MB peak RSS; 1 thread 79 s, 45 s, 489 MB (then, at a
// load of 7, 45-65 s of CPU from one run to the next).
const REBUILD_THREADS = 1;

/** BRAIN_DUCKDB_THREADS: how many threads a build or update may use (default: DuckDB's, one per core). */
function envThreads(): number | undefined {
  return setting(process.env, 'BRAIN_DUCKDB_THREADS');
}

// BRAIN_CACHE_TRACE=1 prints the time of each build step on stderr (for bench and profiling).
function tracer(): (step: string) => void {
  if (!setting(process.env, 'BRAIN_CACHE_TRACE')) return () => undefined;
  let t = performance.now();
  let cpu = process.cpuUsage();
  return (step) => {
    const n = performance.now();
    // CPU of every thread (DuckDB's too): on a shared machine wall time says more about the others.
    const c = process.cpuUsage();
    const cpuMs = (c.user - cpu.user + c.system - cpu.system) / 1000;
    process.stderr.write(`cache: ${step} ${Math.round(n - t)} ms, cpu ${Math.round(cpuMs)} ms, rss ${Math.round(process.memoryUsage().rss / 1048576)} MB, peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
    t = n;
    cpu = c;
  };
}

function dbPath(home: string): string {
  return layout(home).duckdb;
}

/** Rebuilds brain.duckdb from the floor. Queries running meanwhile see the old file. */
export function rebuildCache(home: string, opts: CacheOptions = {}): Promise<BuildResult> {
  return serialised(dbPath(home), () => rebuildLocked(home, opts, undefined));
}

/** Brings brain.duckdb up to the manifest: ingests only manifest lines beyond what it has seen.
 * Builds it when missing, rebuilds it when the schema in sql/ changed or the manifest is not the
 * one it was built from. */
export function updateCache(home: string, opts: CacheOptions = {}): Promise<BuildResult> {
  return serialised(dbPath(home), () => updateLocked(home, opts));
}

async function rebuildLocked(home: string, opts: CacheOptions, reason: string | undefined): Promise<BuildResult> {
  const t0 = performance.now();
  const lap = tracer();
  const target = dbPath(home);
  mkdirPrivate(home);
  removeStaleRebuilds(home);
  const tmp = `${target}.rebuild-${process.pid}-${Date.now()}`;
  const compact = `${tmp}.compact`;
  removeDbFiles(tmp);
  let stats: IngestStats;
  let meta: Map<string, string>;
  const db = await openDb(tmp, {
    readOnly: false,
    memoryLimit: opts.memoryLimit ?? REBUILD_MEMORY,
    threads: opts.threads ?? envThreads() ?? REBUILD_THREADS,
    timeZone: opts.timeZone,
  });
  lap('open');
  try {
    // Spill files of a big build go beside the cache, never to a shared temp folder.
    await db.conn.run(`SET temp_directory = '${`${tmp}.tmp`.replace(/'/g, "''")}'`);
    await db.conn.run('SET preserve_insertion_order = false');
    // Hand freed memory back after each step: by default DuckDB's allocator keeps up to 128 MB per
    // thread cached, which a rebuild's alternating load and derive steps never reuse (peak RSS at
    // 200 MB of lake: 732 MB with it, 489 MB without).
    await db.conn.run(`SET allocator_flush_threshold = '16MB'; SET allocator_bulk_deallocation_flush_threshold = '16MB'`);
    const schema = loadSchema();
    await db.conn.run(schema.text);
    lap('schema');
    await seedLanes(db.conn);
    await db.conn.run('INSERT OR REPLACE INTO floor.cache_meta VALUES ($k, $v)', { k: 'schema_hash', v: schema.hash });
    stats = await ingest(db.conn, home, { offset: 0 }, {
      fromScratch: true,
      bulk: opts.bulk !== false,
      bulkMaxFileBytes: opts.bulkMaxFileBytes,
      trace: lap,
    });
    await db.conn.run(`INSERT OR REPLACE INTO floor.cache_meta VALUES ('built_at', CAST(now() AS VARCHAR))`);
    await db.conn.run('CHECKPOINT');
    lap('checkpoint');
    await copyInto(db.conn, compact);
    lap('copy into a fresh file');
    meta = await readMeta(db.conn);
  } catch (e) {
    db.close();
    removeDbFiles(tmp);
    removeDbFiles(compact);
    fs.rmSync(`${tmp}.tmp`, { recursive: true, force: true });
    throw e;
  }
  db.close();
  lap('close');
  removeDbFiles(tmp);
  fs.renameSync(compact, tmp);
  fs.rmSync(`${tmp}.tmp`, { recursive: true, force: true });
  fs.chmodSync(tmp, FILE_MODE);
  forgetFresh(target);
  await swapIn(tmp, target, opts);
  noteWhere(target, meta);
  lap('swap');
  return { ...stats, mode: 'rebuild', reason, ms: Math.round(performance.now() - t0), path: target };
}

/** Leftovers of a rebuild whose process died (brain.duckdb.rebuild-<pid>-<ms>[.wal|.tmp]). */
function removeStaleRebuilds(home: string): void {
  removeLeftovers(home, /^brain\.duckdb\.rebuild-(\d+)-\d+/);
}

/** Renames the new file over the cache. Holding the old file's write lock while renaming means
 * no writer is half-way through it (its log would otherwise land beside the new file); readers
 * only hold the old file open and are harmless, so their shared lock does not stop the swap. */
async function swapIn(tmp: string, target: string, opts: CacheOptions): Promise<void> {
  if (!fs.existsSync(target)) {
    fs.rmSync(`${target}.wal`, { force: true });
    fs.renameSync(tmp, target);
    return;
  }
  let old: Db | undefined;
  try {
    old = await openDb(target, { readOnly: false, lockTimeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS });
  } catch (e) {
    const cause = e instanceof BrainError ? (e.cause as Error | undefined) : (e as Error);
    const readersOnly = !!cause && /read-only mode/.test(cause.message);
    if (e instanceof BrainError && e.code === 'cache-locked' && !readersOnly) {
      removeDbFiles(tmp);
      throw e;
    }
    // Readers only, or an unreadable old file: nothing of it is worth keeping.
    if (!readersOnly) fs.rmSync(`${target}.wal`, { force: true });
  }
  try {
    fs.renameSync(tmp, target);
  } finally {
    old?.close();
  }
}

async function seedLanes(conn: DuckDBConnection): Promise<void> {
  for (const a of agents()) {
    let glob = `~/${a.lane}/**`;
    try {
      glob = a.roots(process.env).map((r) => `${r.dir}/**`).join(' ');
    } catch {
      /* informational only */
    }
    await conn.run('INSERT OR IGNORE INTO floor.lanes VALUES ($l, $a, $m, $g, true)', { l: a.lane, a: a.lane, m: 'watch', g: glob });
  }
}

type Freshness = { state: 'current' } | { state: 'behind'; offset: number } | { state: 'stale'; reason: string };

async function freshness(conn: DuckDBConnection, home: string): Promise<Freshness> {
  let meta: Map<string, string>;
  try {
    meta = await readMeta(conn);
  } catch {
    return { state: 'stale', reason: 'the cache has no floor.cache_meta table' };
  }
  const schema = loadSchema();
  if (meta.get('schema_hash') !== schema.hash) return { state: 'stale', reason: 'the SQL files in sql/ changed' };
  const offset = Number(meta.get('manifest_offset') ?? '0');
  const manifest = layout(home).manifest;
  let size = 0;
  try {
    size = fs.statSync(manifest).size;
  } catch {
    size = 0;
  }
  if (size < offset) return { state: 'stale', reason: 'the manifest is shorter than what the cache has read' };
  const from = Number(meta.get('manifest_check_from') ?? '-1');
  const check = meta.get('manifest_check') ?? '';
  if (offset > 0) {
    let now = '';
    try {
      now = from >= 0 ? hashRange(manifest, from, offset) : '';
    } catch {
      now = '';
    }
    if (now !== check) return { state: 'stale', reason: 'the manifest is not the one the cache was built from' };
  }
  return size === offset ? { state: 'current' } : { state: 'behind', offset };
}

async function updateLocked(home: string, opts: CacheOptions): Promise<BuildResult> {
  const t0 = performance.now();
  const target = dbPath(home);
  if (!fs.existsSync(target)) return rebuildLocked(home, opts, 'no cache yet');
  if (knownCurrent(target, loadSchema().hash, layout(home).manifest)) {
    return { ...emptyStats(), mode: 'current', ms: Math.round(performance.now() - t0), path: target };
  }
  // Until this update has closed the file and noted where it stands.
  forgetFresh(target);
  let db: Db;
  try {
    db = await openDb(target, {
      readOnly: false,
      lockTimeoutMs: opts.lockTimeoutMs,
      memoryLimit: opts.memoryLimit ?? BUILD_MEMORY,
      threads: opts.threads ?? envThreads(),
      timeZone: opts.timeZone,
    });
  } catch (e) {
    if (isLockError(e) || (e instanceof BrainError && e.code === 'cache-locked')) throw e;
    return rebuildLocked(home, opts, `the cache could not be opened (${(e as Error).message.split('\n')[0]})`);
  }
  let stats: IngestStats;
  try {
    const f = await freshness(db.conn, home);
    if (f.state === 'stale') {
      db.close();
      return rebuildLocked(home, opts, f.reason);
    }
    if (f.state === 'current') {
      const meta = await readMeta(db.conn);
      db.close();
      noteWhere(target, meta);
      return { ...emptyStats(), mode: 'current', ms: Math.round(performance.now() - t0), path: target };
    }
    await db.conn.run('BEGIN TRANSACTION');
    try {
      stats = await ingest(db.conn, home, { offset: f.offset }, { fromScratch: false, trace: tracer() });
      await db.conn.run('COMMIT');
    } catch (e) {
      await db.conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  } catch (e) {
    db.close();
    throw e;
  }
  const meta = await readMeta(db.conn);
  db.close();
  noteWhere(target, meta);
  return { ...stats, mode: 'update', ms: Math.round(performance.now() - t0), path: target };
}

/** After the cache `target` was closed: its place in the manifest, for knownCurrent. */
function noteWhere(target: string, meta: Map<string, string>): void {
  noteFresh(target, meta.get('schema_hash') ?? '', {
    offset: Number(meta.get('manifest_offset') ?? '0'),
    checkFrom: Number(meta.get('manifest_check_from') ?? '-1'),
    check: meta.get('manifest_check') ?? '',
  });
}

function emptyStats(): IngestStats {
  return { manifestLines: 0, badManifestLines: 0, files: 0, bulkFiles: 0, stagedLines: 0, bytes: 0, problems: [], manifestOffset: 0 };
}

// ---------------------------------------------------------------------------------------------
// Reading.

export interface OpenCacheOptions extends CacheOptions {
  readOnly: boolean;
  /** Bring the cache up to the manifest first (default true). */
  ensure?: boolean;
}

export interface CacheHandle {
  conn: DuckDBConnection;
  path: string;
  readOnly: boolean;
  close(): void;
}

/** Opens the cache. Read-only handles are current with the manifest (built or updated first)
 * unless ensure is false. Close the handle soon: while it is open, an update in another
 * process waits (read-only) or is impossible (read-write). */
export async function openCache(home: string, opts: OpenCacheOptions): Promise<CacheHandle> {
  const key = dbPath(home);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let opened: Db | undefined;
  await new Promise<void>((resolve, reject) => {
    void serialised(key, async () => {
      try {
        opened = await openLocked(home, opts);
        resolve();
      } catch (e) {
        reject(e);
        return;
      }
      await held;
    });
  });
  const db = opened!;
  let closed = false;
  return {
    conn: db.conn,
    path: db.path,
    readOnly: db.readOnly,
    close() {
      if (closed) return;
      closed = true;
      try {
        db.close();
      } finally {
        release();
      }
    },
  };
}

async function openLocked(home: string, opts: OpenCacheOptions): Promise<Db> {
  const target = dbPath(home);
  if (!opts.readOnly) {
    if (opts.ensure !== false) await updateLocked(home, opts);
    return openDb(target, { readOnly: false, lockTimeoutMs: opts.lockTimeoutMs, timeZone: opts.timeZone });
  }
  if (opts.ensure === false) {
    if (!fs.existsSync(target)) {
      throw new BrainError('cache-missing', `${target} does not exist.`, 'Run `brain rebuild` to build it from the floor.');
    }
    return openDb(target, { readOnly: true, lockTimeoutMs: opts.lockTimeoutMs, timeZone: opts.timeZone, memoryLimit: opts.queryMemory });
  }
  if (fs.existsSync(target)) {
    const db = await openDb(target, { readOnly: true, lockTimeoutMs: opts.lockTimeoutMs, timeZone: opts.timeZone, memoryLimit: opts.queryMemory });
    const f = await freshness(db.conn, home).catch((): Freshness => ({ state: 'stale', reason: 'unreadable' }));
    if (f.state === 'current') return db;
    db.close();
  }
  await updateLocked(home, opts);
  return openDb(target, { readOnly: true, lockTimeoutMs: opts.lockTimeoutMs, timeZone: opts.timeZone, memoryLimit: opts.queryMemory });
}

export interface SqlOptions extends CacheOptions {
  /** Called once the cache is open and current, just before the statement runs. */
  onOpen?: () => void;
  /** false: query the cache as it stands, without bringing it up to the floor first (that
   * writes; a recall tool writes nothing). */
  ensure?: boolean;
  /** Most rows returned (default 1000). */
  limit?: number;
  /** Most bytes of the answer (default DEFAULT_CLI_MAX_BYTES). */
  maxBytes?: number;
  /** Milliseconds before the statement is interrupted (default 30 s; 0: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Runs one read-only statement against a current cache. Write statements are refused with a
 * BrainError (code 'sql-read-only'); the connection itself is read-only, cannot touch files and
 * cannot change its settings. A statement past its time fails with 'sql-timeout'. */
export async function runReadOnlySql(home: string, query: string, opts: SqlOptions = {}): Promise<SqlResult> {
  precheck(query);
  // A query's DuckDB memory is capped (db.ts QUERY_MEMORY): one statement must not take the machine.
  const h = await openCache(home, { ...opts, readOnly: true, queryMemory: QUERY_MEMORY });
  opts.onOpen?.();
  try {
    return await readOnlyQuery(h.conn, query, {
      limit: opts.limit ?? 1000,
      maxBytes: opts.maxBytes ?? DEFAULT_CLI_MAX_BYTES,
      timeoutMs: opts.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS,
      signal: opts.signal,
    });
  } finally {
    h.close();
  }
}
