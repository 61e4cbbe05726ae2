// The one door to SQLite. The engine is better-sqlite3 13: Node-API, so one binary loads in every
// Node ≥ 22 and every Electron, and its npm package carries prebuilt binaries for linux (glibc and
// musl), darwin and win32 on x64 and arm64, so nothing is compiled at install time. node:sqlite
// (Node ≥ 22.13) was measured as the alternative: the same speed for inserts and FTS5 trigram
// queries, but experimental (a warning on stderr) in Node 22 and a SQLite version that changes
// with the runtime. Everything that opens a database goes through here, so swapping the engine
// touches this file and the `SqliteDatabase` type only.
//
// A native module may still fail to load (a platform without a prebuild, a damaged install): every
// caller has a fallback (the scan, flock(1)).
import type BetterSqlite3 from 'better-sqlite3';
import { setting } from './settings';

/** An open database, as the turn index and the floor lock use it. */
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteEngine = typeof BetterSqlite3;

let cached: SqliteEngine | null | undefined;
let loadError: unknown;

export function loadSqlite(): SqliteEngine | null {
  if (cached !== undefined) return cached;
  // A fault to inject (tests, or a user ruling out the native module): the module fails to load as
  // it would on a platform without a binary, so the same fallbacks run.
  if (setting(process.env, 'BRAIN_NO_SQLITE')) {
    loadError = new Error('BRAIN_NO_SQLITE=1');
    cached = null;
    return cached;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = require('better-sqlite3') as SqliteEngine;
  } catch (e) {
    loadError = e;
    cached = null;
  }
  return cached;
}

/** Why better-sqlite3 could not load, if it could not. */
export function sqliteLoadError(): string | undefined {
  loadSqlite();
  return loadError ? (loadError instanceof Error ? loadError.message : String(loadError)) : undefined;
}
