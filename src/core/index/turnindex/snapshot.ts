// A copy of the turn index in memory, for a reader that writes nothing at all (brain mcp).
import * as fs from 'node:fs';
import { loadSqlite, sqliteLoadError } from '../../sqlite';
import type { Root } from '../roots';
import { IndexKeeper } from './keeper';
import type { IndexOpen } from './open';
import { fileBytes, indexSymlink, type DB } from './schema';
import { TurnIndex } from './update';


/** A copy of the index in memory, for a reader that must write nothing at all (brain mcp: opening
 * the file itself, even read-only, would create its WAL and shared-memory files). Given only when
 * the file alone is the whole index (no WAL holding writes not merged into it), it did not change
 * while it was read, and it holds everything the manifests claim; otherwise a reason, and the
 * caller scans. Costs one read of the file and its size in memory while in use. */
export function snapshotIndex(root: Root): IndexOpen {
  // A long-lived reader (the MCP server) keeps the copy while the file stays the same, and lets it
  // go after a few idle minutes (it is the size of the index): the keeper marks it kept.
  return takeSnapshot(root);
}

const kept = new IndexKeeper();
/** The copy and SQLite's own take twice this while it is made (an index this size is a ~70 GB floor). */
const MAX_SNAPSHOT_BYTES = 1 << 30;

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
  const held = kept.get(key);
  if (held) {
    const why = held.behind();
    return why ? { ok: false, reason: why } : { ok: true, index: held };
  }
  kept.drop();
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
    const why = state === 'ok' ? idx.behind() : state === 'newer' ? 'the turn index was built by a newer brain' : state === 'older' ? 'the turn index was built by an older brain (the next update builds it again)' : 'the turn index is not finished';
    if (why) {
      db.close();
      return { ok: false, reason: why };
    }
  } catch (e) {
    db.close();
    return { ok: false, reason: `the turn index cannot be read (${(e as Error).message})` };
  }
  kept.keep(key, idx);
  return { ok: true, index: idx };
}
