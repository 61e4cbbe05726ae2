// Errors that name the thing, say what to do, and keep their cause. The code is stable so the
// status bar, doctor and --json can say the same thing.
// The CLI is more than one bundle (dist/cli.js, dist/cli-mcp.js), each with its own copy of this
// class: `instanceof` goes by a registry-wide brand, not by which copy made the error.
import * as fs from 'node:fs';
import * as path from 'node:path';

const BRAND = Symbol.for('agent-brain.BrainError');

export class BrainError extends Error {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[BRAND] === true;
  }

  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BrainError';
    Object.defineProperty(this, BRAND, { value: true });
  }
}

export function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** A write that failed because the disk (or the user's quota) is full, as the error every front end
 * shows: what happened, that nothing is lost, and what to do. Null for any other error. */
export function diskFull(e: unknown, where: string): BrainError | null {
  const code = errnoCode(e);
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'SQLITE_FULL') return null;
  return new BrainError(
    'disk-full',
    `the disk that holds ${where} is full (${code === 'EDQUOT' ? 'over quota' : 'no space left'}): recording stopped before claiming what it could not write`,
    `free space there (df -h ${where}) and record again: nothing is lost, the agents' own files are untouched, the floor keeps everything it had claimed, and the next pass takes up where this one stopped`,
    { cause: e },
  );
}

const NOT_WRITABLE: Record<string, string> = { EROFS: 'is read-only', EACCES: 'is not writable by this user', EPERM: 'is not writable by this user' };

/** The errno code when `folder` cannot be written (EROFS, EACCES, EPERM), else null. */
function unwritable(folder: string): string | null {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return null;
  } catch (e) {
    const code = errnoCode(e);
    return code && code in NOT_WRITABLE ? code : null;
  }
}

/** A write refused by the filesystem under BRAIN_HOME (a read-only mount, a folder owned by someone
 * else), as every front end shows it: which folder, why, what to do, and that nothing is lost. The
 * libraries that write there (SQLite, DuckDB) word it their own way, so for those the folder itself
 * is asked. Null for any other error. */
export function notWritable(e: unknown, home: string): BrainError | null {
  if (e instanceof BrainError) return null;
  let code = errnoCode(e);
  const at = (e as NodeJS.ErrnoException | undefined)?.path;
  let subject = `BRAIN_HOME ${home}`;
  if (code && code in NOT_WRITABLE) {
    const rel = at ? path.relative(home, at) : '';
    if (!at) {
      if (!unwritable(home)) return null; // an EPERM from something else (a signal, a lock)
    } else if (rel.startsWith('..') || path.isAbsolute(rel)) subject = at;
    // A read-only mount holds the whole floor; a refused permission may be one file's.
    else if (rel && code !== 'EROFS') subject = `${at} (in BRAIN_HOME)`;
  } else {
    const msg = e instanceof Error ? e.message : String(e);
    if (!/read-only|readonly|permission denied|unable to open database|SQLITE_(READONLY|CANTOPEN)/i.test(`${code ?? ''} ${msg}`)) return null;
    code = unwritable(home) ?? undefined;
    if (!code) return null;
  }
  const fix =
    code === 'EROFS'
      ? 'remount it read-write (or set BRAIN_HOME to a writable folder)'
      : `make it yours and writable (ls -ld ${at && subject !== `BRAIN_HOME ${home}` ? at : home}; BRAIN_HOME is mode 700, owned by the user who records)`;
  return new BrainError(
    'not-writable',
    `${subject} ${NOT_WRITABLE[code]} (${code}): nothing can be written there`,
    `${fix}, then run it again: nothing is lost, the agents' own files are untouched and the floor keeps everything it had claimed`,
    { cause: e },
  );
}

/** The error a writing verb would end with, asked before it starts (a long-running one, or one
 * whose steps report failures one by one): BRAIN_HOME, or the folder it would be made in, cannot
 * be written. Null when it can. */
export function homeNotWritable(home: string): BrainError | null {
  let dir = home;
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const code = unwritable(dir);
  if (!code) return null;
  return notWritable(Object.assign(new Error(`${code}: cannot write ${dir}`), { code, path: home }), home);
}

export function describe(e: unknown): string {
  if (e instanceof BrainError) return e.hint ? `${e.message}\n  ${e.hint}` : e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
