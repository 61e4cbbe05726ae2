// A private copy of the turn index, for a reader that writes nothing in the floor (brain mcp).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeLeftovers } from '../../pids';
import { loadSqlite, sqliteLoadError } from '../../sqlite';
import type { Root } from '../roots';
import { IndexKeeper } from './keeper';
import type { IndexOpen } from './open';
import { fileBytes, indexSymlink, type DB } from './schema';
import { TurnIndex } from './update';

/** A copy of the index, for a reader that must write nothing in the floor (brain mcp: opening the
 * file itself, even read-only, would create its WAL and shared-memory files). Given only when
 * the file alone is the whole index (no WAL holding writes not merged into it), it did not change
 * while it was copied, and it holds everything the manifests claim; otherwise a reason, and the
 * caller scans. The copy is a file in a private temporary folder, opened and then unlinked at
 * once (nothing of it stays on disk after this process), read by SQLite page by page: copying the
 * file into memory and deserialising it took 1.3 s at a GB of lake on this project's VMs (every
 * page of fresh memory faulted in twice), the kernel's file copy ~30 ms. */
export function snapshotIndex(root: Root): IndexOpen {
  // A long-lived reader (the MCP server) keeps the copy while the file stays the same, and lets it
  // go after a few idle minutes (it is the size of the index): the keeper marks it kept.
  return takeSnapshot(root);
}

const kept = new IndexKeeper();
/** The copy takes this much of the temporary folder's disk (often memory) while in use (an index
 * this size is a ~70 GB floor). */
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
  if (size > MAX_SNAPSHOT_BYTES) return { ok: false, reason: `the turn index is too large to copy (${(size / 2 ** 30).toFixed(1)} GB)` };
  let db: DB;
  try {
    db = openCopy(Database, file);
  } catch {
    // No temporary folder it may write (a sandbox): the copy goes into memory instead.
    try {
      db = openInMemory(Database, file);
    } catch (e) {
      return { ok: false, reason: `the turn index cannot be read (${(e as Error).message})` };
    }
  }
  if (identity() !== before || walBytes() > 0) {
    db.close();
    return { ok: false, reason: 'the turn index changed while it was read' };
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

/** Copies the index into a folder of its own under the temporary folder (0700), marks the copy an
 * ordinary database (the file says WAL: format bytes 18 and 19 are 2, and a WAL database cannot
 * be read without its shared-memory file), opens it and removes it and its folder: the open file
 * stays readable until it is closed. */
function openCopy(Database: NonNullable<ReturnType<typeof loadSqlite>>, file: string): DB {
  const tmp = os.tmpdir();
  removeStaleCopies(tmp);
  const dir = fs.mkdtempSync(path.join(tmp, `brain-index-${process.pid}-`));
  const copy = path.join(dir, 'turns.sqlite');
  try {
    fs.copyFileSync(file, copy, fs.constants.COPYFILE_EXCL);
    // The copy has the file's mode, which a read-only floor has taken its write bit from.
    fs.chmodSync(copy, 0o600);
    const fd = fs.openSync(copy, 'r+');
    try {
      const head = Buffer.alloc(2);
      if (fs.readSync(fd, head, 0, 2, 18) === 2 && head[0] === 2 && head[1] === 2) fs.writeSync(fd, Buffer.from([1, 1]), 0, 2, 18);
    } finally {
      fs.closeSync(fd);
    }
    return new Database(copy, { fileMustExist: true });
  } finally {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // A system that cannot remove an open file: removed when this process ends.
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    }
  }
}

/** The copy in memory: the file read whole, marked an ordinary database, deserialised. */
function openInMemory(Database: NonNullable<ReturnType<typeof loadSqlite>>, file: string): DB {
  const buf = fs.readFileSync(file);
  if (buf.length >= 100) buf[18] = buf[19] = 1;
  return new Database(buf);
}

/** Folders of copies whose process died between making and removing them (a kill in those few
 * milliseconds): a copy of the index holds the conversations' text, so none is left behind. */
function removeStaleCopies(tmp: string): void {
  removeLeftovers(tmp, /^brain-index-(\d+)-/);
}
