// Opening brain.duckdb. DuckDB locks the file per process: a read-write instance holds an
// exclusive lock (no other process may open the file, not even read-only), read-only instances
// share a lock (a writer must wait for all of them). So every holder keeps the file open only
// for one operation, and an open that meets the other side's lock is retried with backoff until
// a deadline, then fails with a BrainError naming the process that holds it.
// Inside one process DuckDB does not lock at all (two instances of one file would not see each
// other's writes), so operations on one cache file are also serialised in-process.
import * as fs from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { BrainError } from '../errors';
import { registerFunctions } from './udf';

export interface Db {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  path: string;
  readOnly: boolean;
  close(): void;
}

export interface OpenOptions {
  readOnly: boolean;
  /** How long to keep retrying a locked file (ms). */
  lockTimeoutMs?: number;
  /** DuckDB memory_limit for this instance (e.g. '512MB'). */
  memoryLimit?: string;
  threads?: number;
  /** IANA zone for dates (day grouping); default: this process's zone. */
  timeZone?: string;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** DuckDB's memory for one SQL statement of `brain sql` and the MCP and editor tools: DuckDB's own
 * default is most of the machine's memory, which one `list(range) FROM range(…)` takes before any
 * timer or byte cap sees it. Past it a statement fails with DuckDB's "Out of Memory". */
export const QUERY_MEMORY = '512MB';

export const STORAGE_VERSION = 'v1.2.0';

const LOCK_RE = /Could not set lock on file|Conflicting lock is held/i;

export function isLockError(e: unknown): boolean {
  return e instanceof Error && LOCK_RE.test(e.message);
}

function holderOf(e: unknown): string {
  const m = /held in (.+?) \(PID (\d+)\)/.exec(e instanceof Error ? e.message : String(e));
  return m ? `process ${m[2]} (${m[1]})` : 'another process';
}

export function localTimeZone(): string {
  return process.env.TZ && process.env.TZ.length > 0
    ? process.env.TZ
    : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a DuckDB file, retrying while another process holds a conflicting lock. */
export async function openDb(file: string, opts: OpenOptions): Promise<Db> {
  const deadline = Date.now() + (opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  const config: Record<string, string> = {};
  if (opts.readOnly) {
    config.access_mode = 'READ_ONLY';
    // No file reads or writes from SQL (read_text, COPY TO, ATTACH, INSTALL): the recall surface
    // must not be a way to read or write anything but the cache.
    config.enable_external_access = 'false';
  } else {
    // DuckDB's storage format of version 1.2: the default (0.10) format cannot compress long
    // strings (the floor's lines, see sql/00_floor.sql), and only the DuckDB bundled here reads
    // this file. Pinned rather than 'latest', so a DuckDB upgrade does not change it unasked.
    config.storage_compatibility_version = STORAGE_VERSION;
  }
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (opts.threads) config.threads = String(opts.threads);
  let wait = 25;
  for (;;) {
    let instance: DuckDBInstance | undefined;
    try {
      instance = await DuckDBInstance.create(file, config);
      const conn = await instance.connect();
      registerFunctions(conn);
      const tz = (opts.timeZone ?? localTimeZone()).replace(/'/g, "''");
      try {
        await conn.run(`SET TimeZone = '${tz}'`);
      } catch {
        await conn.run(`SET TimeZone = 'UTC'`);
      }
      if (opts.readOnly) await conn.run('SET lock_configuration = true');
      const inst = instance;
      return {
        instance: inst,
        conn,
        path: file,
        readOnly: opts.readOnly,
        close() {
          try {
            conn.closeSync();
          } finally {
            inst.closeSync();
          }
        },
      };
    } catch (e) {
      try {
        instance?.closeSync();
      } catch {
        /* already closed */
      }
      if (!isLockError(e)) throw e;
      if (Date.now() >= deadline) {
        throw new BrainError(
          'cache-locked',
          `${file} is locked by ${holderOf(e)}: ${opts.readOnly ? 'it is being updated' : 'it is being read or updated'}.`,
          'Try again in a moment; the lock is held only while one update or query runs. ' +
            'If that process is stuck, stop it, or delete brain.duckdb (it is a cache: `brain rebuild` makes it again).',
          { cause: e },
        );
      }
      await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
      wait = Math.min(wait * 2, 500);
    }
  }
}

// In-process serialisation per cache file.
const queues = new Map<string, Promise<unknown>>();

export function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

/** Removes a DuckDB file and its write-ahead log. */
/** Copies every schema, table, view and macro of the open database into a new file `dest`: a build's
 * checkpoints leave free blocks behind (a third of the file after a 1 GB rebuild), the copy holds
 * only what is used, compressed the same way. The last step of a build: one thread in insertion
 * order (parallel inserts leave row groups that the final checkpoint rewrites, freeing the first
 * copies), on a connection closed after it. */
export async function copyInto(conn: DuckDBConnection, dest: string): Promise<void> {
  removeDbFiles(dest);
  const name = String((await conn.runAndReadAll('SELECT current_database()')).getRows()[0][0]);
  await conn.run(`ATTACH '${dest.replace(/'/g, "''")}' AS brain_copy (STORAGE_VERSION '${STORAGE_VERSION}')`);
  // One checkpoint at the end: each one on the way leaves blocks the next frees.
  await conn.run(`SET checkpoint_threshold = '1TB'`);
  await conn.run('SET preserve_insertion_order = true');
  await conn.run('SET threads = 1');
  // The copy streams: what the buffer pool holds of the source is never read again, so a small
  // pool keeps the copy's RSS down (the build's 384 MB of cached blocks made it the rebuild's peak).
  await conn.run(`SET memory_limit = '256MB'`);
  try {
    await conn.run(`COPY FROM DATABASE "${name.replace(/"/g, '""')}" TO brain_copy`);
    // Everything into the file itself: it is renamed without a .wal beside it.
    await conn.run('CHECKPOINT brain_copy');
  } finally {
    await conn.run('RESET checkpoint_threshold');
    await conn.run('DETACH brain_copy');
  }
}

export function removeDbFiles(file: string): void {
  for (const f of [file, `${file}.wal`]) fs.rmSync(f, { force: true });
}
