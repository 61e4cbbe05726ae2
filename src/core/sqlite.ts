// better-sqlite3 is a native module: it may fail to load (wrong ABI in an editor build, missing
// binary). Everything that uses it goes through here and has a fallback.
import type BetterSqlite3 from 'better-sqlite3';
import { setting } from './settings';

let cached: typeof BetterSqlite3 | null | undefined;
let loadError: unknown;

export function loadSqlite(): typeof BetterSqlite3 | null {
  if (cached !== undefined) return cached;
  // A fault to inject (tests, or a user ruling out the native module): the module fails to load as
  // it would with the wrong ABI, so the same fallbacks run.
  if (setting(process.env, 'BRAIN_NO_SQLITE')) {
    loadError = new Error('BRAIN_NO_SQLITE=1');
    cached = null;
    return cached;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = require('better-sqlite3') as typeof BetterSqlite3;
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
