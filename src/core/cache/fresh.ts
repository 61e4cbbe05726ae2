// Whether brain.duckdb is current with the manifest, told without opening it. Loading DuckDB and
// opening a cache of a few GB takes about half a second; `brain record` with nothing new, and the
// watcher between sessions, asked it every time to learn that nothing was to be done. After each
// update or rebuild the cache's place in the manifest is noted beside it (brain.duckdb.fresh.json)
// with the cache file's identity; while that file is unchanged (no other writer since, no WAL) the
// note is what the cache's own floor.cache_meta says, so it answers for it. Anything else (no note,
// another file, a WAL, other SQL files, a manifest grown or not the one noted) and the cache is
// opened as before.
import * as fs from 'node:fs';
import { writeFileAtomic } from '../floor/durable';
import { hashRange } from '../floor/ranges';
import { layout } from '../home';
import { loadSchema } from './sqlfiles';

interface Note {
  v: 1;
  schema_hash: string;
  manifest_offset: number;
  manifest_check_from: number;
  manifest_check: string;
  /** dev, ino, size, mtimeMs of brain.duckdb when noted. */
  db: [number, number, number, number];
}

/** The note beside the cache `db`; written after each update or rebuild that ended well. */
export function freshNotePath(db: string): string {
  return `${db}.fresh.json`;
}

function identity(file: string): Note['db'] | null {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? [st.dev, st.ino, st.size, st.mtimeMs] : null;
}

/** Notes where the closed cache `db` stands (its cache_meta values, as the update left them). */
export function noteFresh(db: string, schemaHash: string, meta: { offset: number; checkFrom: number; check: string }): void {
  const id = identity(db);
  if (!id || fs.existsSync(`${db}.wal`)) return forgetFresh(db);
  const n: Note = { v: 1, schema_hash: schemaHash, manifest_offset: meta.offset, manifest_check_from: meta.checkFrom, manifest_check: meta.check, db: id };
  writeFileAtomic(freshNotePath(db), JSON.stringify(n) + '\n', { sync: false });
}

export function forgetFresh(db: string): void {
  fs.rmSync(freshNotePath(db), { force: true });
}

/** True only when the note proves the cache current; false means "open it and see". */
export function knownCurrent(db: string, schemaHash: string, manifest: string): boolean {
  let n: Note;
  try {
    n = JSON.parse(fs.readFileSync(freshNotePath(db), 'utf8')) as Note;
  } catch {
    return false;
  }
  if (n?.v !== 1 || n.schema_hash !== schemaHash || !Array.isArray(n.db) || fs.existsSync(`${db}.wal`)) return false;
  const id = identity(db);
  if (!id || id.some((x, i) => x !== n.db[i])) return false;
  const size = fs.statSync(manifest, { throwIfNoEntry: false })?.size ?? 0;
  if (size !== n.manifest_offset) return false;
  if (n.manifest_offset === 0) return true;
  try {
    return n.manifest_check_from >= 0 && hashRange(manifest, n.manifest_check_from, n.manifest_offset) === n.manifest_check;
  } catch {
    return false;
  }
}

/** knownCurrent for the cache of the floor at `home`, with the SQL files this program has. Needs
 * no DuckDB: a caller can ask before loading it. */
export function cacheKnownCurrent(home: string): boolean {
  const l = layout(home);
  try {
    return knownCurrent(l.duckdb, loadSchema().hash, l.manifest);
  } catch {
    return false;
  }
}
