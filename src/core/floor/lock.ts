// One writer at a time, across processes (VS Code windows, the CLI, the timer). The lock is a
// kernel lock that dies with its holder: SQLite's fcntl lock on a small file in locks/, taken with
// BEGIN EXCLUSIVE and busy_timeout 0. Where better-sqlite3 cannot load, flock(1) holds the lock in a
// child process whose stdin is our pipe, so it also ends when we do.
import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../lazy';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, mkdirPrivate } from '../home';
import { loadSqlite } from '../sqlite';

export interface HeldLock {
  name: string;
  release(): void;
}

/** Every open lock connection until it is released: a caller that drops its HeldLock must not
 * lose the lock to the garbage collector (better-sqlite3 closes a collected connection, and
 * closing lets go of the kernel lock). */
const HELD = new Set<unknown>();

function sqliteLock(file: string): HeldLock | null | 'unavailable' {
  const Database = loadSqlite();
  if (!Database) return 'unavailable';
  const db = new Database(file);
  try {
    fs.chmodSync(file, FILE_MODE);
  } catch {
    /* best effort */
  }
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
    throw e;
  }
  let held = true;
  HELD.add(db);
  return {
    name: file,
    release() {
      if (!held) return;
      held = false;
      HELD.delete(db);
      try {
        db.exec('ROLLBACK');
      } catch {
        /* closing releases it anyway */
      }
      db.close();
    },
  };
}

function flockLock(file: string): Promise<HeldLock | null> {
  // flock(1) would create the file with the umask's mode; create it private first.
  fs.closeSync(fs.openSync(file, 'a', FILE_MODE));
  fs.chmodSync(file, FILE_MODE);
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = childProcess().spawn('flock', ['-n', '-E', '75', file, 'sh', '-c', 'echo held; exec cat >/dev/null'], {
        stdio: ['pipe', 'pipe', 'ignore'],
      });
    } catch (e) {
      reject(e);
      return;
    }
    let done = false;
    child.on('error', (e) => {
      if (!done) {
        done = true;
        reject(e);
      }
    });
    child.on('exit', (code) => {
      if (!done) {
        done = true;
        if (code === 75) resolve(null);
        else reject(new Error(`flock exited ${code}`));
      }
    });
    child.stdout!.once('data', () => {
      if (done) return;
      done = true;
      child.unref();
      (child.stdout as unknown as { unref?: () => void }).unref?.();
      resolve({
        name: file,
        release() {
          child.stdin?.end();
          child.kill();
        },
      });
    });
  });
}

/** Tries once; null when another process holds it. */
export async function tryLock(locksDir: string, name: string): Promise<HeldLock | null> {
  mkdirPrivate(locksDir);
  const file = path.join(locksDir, `${name}.lock`);
  const r = sqliteLock(file);
  if (r !== 'unavailable') return r;
  return flockLock(file);
}

/** Waits up to `timeoutMs` for the lock, polling. null on timeout. */
export async function waitLock(locksDir: string, name: string, timeoutMs: number): Promise<HeldLock | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const l = await tryLock(locksDir, name);
    if (l) return l;
    if (Date.now() >= until) return null;
    await new Promise((r) => setTimeout(r, 25 + Math.random() * 50));
  }
}
