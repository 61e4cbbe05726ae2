// Opening the turn index of a root (created when missing, rebuilt when unreadable or abandoned),
// and building it again from the floor alone (brain rebuild).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSqlite, sqliteLoadError } from '../../sqlite';
import type { Root } from '../roots';
import { PAGE_SIZE, dropFiles, indexSymlink, type DB, type UpdateReport } from './schema';
import { TurnIndex } from './update';
import { removeLeftovers } from '../../pids';

export type IndexOpen = { ok: true; index: TurnIndex } | { ok: false; reason: string };

function sqliteCode(e: unknown): string {
  return String((e as { code?: unknown }).code ?? '');
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
        db.pragma(`page_size = ${PAGE_SIZE}`);
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
      if (state === 'reopen' || state === 'abandoned' || state === 'older') {
        db.close();
        db = null;
        // A process still holding the old file (an older brain) keeps reading its own copy.
        if (state !== 'reopen') dropFiles(root.index);
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

/** Builds the index again from the floor alone (brain rebuild): into a new file beside the old
 * one, which then takes its place. The new file is a new inode while the old one is still there,
 * so a process holding the old one open can tell (FloorView reopens); a search meanwhile uses the
 * old index. */
export function rebuildIndex(root: Root): { ok: true; report: UpdateReport } | { ok: false; reason: string } {
  const tmp = `${root.index}.rebuild-${process.pid}`;
  // A rebuild that died leaves its file: remove those whose process is gone.
  removeLeftovers(path.dirname(root.index), `${path.basename(root.index)}.rebuild-`, { own: true });
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
