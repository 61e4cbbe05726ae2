// Paths built from input — a hook payload's session id, a lake_path in a store's manifest, a tool
// argument — joined to the folder they must stay in. One function does the joining so every caller
// refuses the same things the same way: `..`, an absolute path, a NUL byte, and, when the disk is
// checked, a symlink anywhere below the root. A store or a floor can be written by someone else (a
// machine that syncs into it, a restored backup), and one symlink there would otherwise hand any
// file on this machine to `search`, `show` or an MCP client.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from './errors';
import { OPEN_SAFE, openRegular } from './safeopen';

const UNSAFE = 'unsafe-path';

/** The input would leave its root. `input` and `root` are kept for callers that report it. */
export class UnsafePathError extends BrainError {
  // BrainError's brand test would accept any BrainError; this one also wants its code.
  static override [Symbol.hasInstance](v: unknown): boolean {
    return BrainError[Symbol.hasInstance](v) && (v as BrainError).code === UNSAFE;
  }

  constructor(
    readonly input: string,
    readonly root: string,
    readonly reason: string,
    what: string,
  ) {
    super(UNSAFE, `${what} ${JSON.stringify(input)} ${reason}: refused, it would read or write outside ${root}`, 'it was not followed; remove or fix that entry (a floor path is relative, has no "..", and no part of it is a symlink)');
    this.name = 'UnsafePathError';
  }
}

export interface WithinOptions {
  /** What the input is, for the message: "lake_path", "the session id". */
  what?: string;
  /** Also check the disk: lstat every component below the root and refuse a symlink (never
   * followed). A component that does not exist ends the check: nothing there to follow. */
  disk?: boolean;
  /** With `disk`: the last component, when it exists, must be a regular file (not a folder, FIFO,
   * socket or device, which a reader would block on or misread). */
  file?: boolean;
  /** With `disk`: folders already found to be real folders in this call (many files share them). */
  seen?: Set<string>;
}

const SEPARATORS = process.platform === 'win32' ? /[\\/]/ : /\//;

/** Why `rel` may not be joined to `root` (null: it may), without throwing. */
export function unsafeReason(root: string, rel: string, o: WithinOptions = {}): string | null {
  if (typeof rel !== 'string') return 'is not a string';
  if (rel.length === 0) return 'is empty';
  if (rel.includes('\0')) return 'holds a NUL byte';
  if (path.isAbsolute(rel) || path.posix.isAbsolute(rel) || path.win32.isAbsolute(rel)) return 'is an absolute path';
  const parts = rel.split(SEPARATORS).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) return 'names no file';
  if (parts.includes('..')) return 'has a ".." segment';
  const base = path.resolve(root);
  const full = path.resolve(base, ...parts);
  if (full !== base && !full.startsWith(base.endsWith(path.sep) ? base : base + path.sep)) return 'resolves outside its root';
  if (!o.disk) return null;
  let cur = base;
  for (let i = 0; i < parts.length; i++) {
    cur = path.join(cur, parts[i]);
    const last = i === parts.length - 1;
    if (!last && o.seen?.has(cur)) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw e;
    }
    if (st.isSymbolicLink()) return last ? 'is a symlink' : `passes through a symlink (${parts.slice(0, i + 1).join('/')})`;
    if (!last) {
      if (!st.isDirectory()) return null; // the path names nothing; the caller's open says so
      o.seen?.add(cur);
    } else if (o.file && !st.isFile()) return 'is not a regular file';
  }
  return null;
}

/** `root` joined with `rel`, or an UnsafePathError naming the input and the root. */
export function within(root: string, rel: string, o: WithinOptions = {}): string {
  const why = unsafeReason(root, rel, o);
  if (why) throw new UnsafePathError(String(rel), root, why, o.what ?? 'path');
  return path.join(root, ...rel.split(SEPARATORS).filter((p) => p !== '' && p !== '.'));
}

/** Flags for reading a file whose last component must not be a symlink (a race after `within`'s
 * check is refused by the kernel instead), and whose open must not block if it is a FIFO.
 * openRegular (safeopen.ts) also refuses what is not a regular file. */
export const READ_NOFOLLOW = OPEN_SAFE;

/** Reads a whole file inside `root` (checked on disk, opened without following a symlink). */
export function readInside(root: string, rel: string, o: Omit<WithinOptions, 'disk' | 'file'> = {}): Buffer {
  const fd = openRegular(within(root, rel, { ...o, disk: true, file: true }), o.what);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** One path segment made from input (a session id, a lane) as a file name: `/`, `\`, `%`, NUL,
 * control characters and a leading dot are percent-escaped, so the name never climbs, never hides,
 * and two inputs never share a name. Ordinary ids come out unchanged. */
export function fileSegment(s: string): string {
  let out = s.replace(/[%/\\\u0000-\u001f\u007f]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
  if (out.startsWith('.')) out = '%2E' + out.slice(1);
  return out.length ? out : '%';
}
