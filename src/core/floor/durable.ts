// Durable file writes: temp -> fsync -> rename -> fsync the directory. The floor's write order is
// its durability model, so every claim (manifest line) follows the bytes it claims.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, mkdirPrivate } from '../home';

let tmpCounter = 0;
export function tmpName(dest: string): string {
  return path.join(path.dirname(dest), `.tmp-${process.pid}-${Date.now()}-${tmpCounter++}-${path.basename(dest).slice(0, 60)}`);
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Atomically replaces `dest` with `data` (0600). `sync` = false skips fsync for derived state. */
export function writeFileAtomic(dest: string, data: string | Buffer, opts: { sync?: boolean } = {}): void {
  mkdirPrivate(path.dirname(dest));
  const tmp = tmpName(dest);
  const fd = fs.openSync(tmp, 'w', FILE_MODE);
  try {
    fs.fchmodSync(fd, FILE_MODE);
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (opts.sync !== false) fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, dest);
  if (opts.sync !== false) fsyncDir(path.dirname(dest));
}

/** Opens a file for appending, creating it 0600. */
export function openAppend(file: string): number {
  mkdirPrivate(path.dirname(file));
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, FILE_MODE);
  return fd;
}

/** Writes a whole buffer at the current append position (loops over short writes). */
export function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}

/** Flushes a batch of written files to disk. Many files: one syncfs(2) of the filesystem (coreutils
 * `sync -f`), far cheaper than one fdatasync each; few files: fdatasync each. */
export function flushFiles(files: string[], fsRoot: string): void {
  if (files.length === 0) return;
  if (files.length > 16 && syncfs(fsRoot)) return;
  const dirs = new Set<string>();
  for (const f of files) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(f, 'r');
      fs.fdatasyncSync(fd);
    } catch {
      // a file that vanished cannot be flushed; verify reports what is missing
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    dirs.add(path.dirname(f));
  }
  for (const d of dirs) fsyncDir(d);
}

let syncfsWorks: boolean | undefined;
function syncfs(dir: string): boolean {
  if (syncfsWorks === false) return false;
  const r = spawnSync('sync', ['-f', dir], { stdio: 'ignore' });
  syncfsWorks = r.status === 0;
  return syncfsWorks;
}

/** Rewrites a user's own settings file: through a symlink (a dotfiles repo often links them) rather
 * than over it, keeping the file's mode; a new file is private. */
export function writeUserFile(file: string, content: string): void {
  let target = file;
  let mode = 0o600;
  try {
    target = fs.realpathSync(file);
    mode = fs.statSync(target).mode & 0o777;
  } catch {
    /* a new file: private */
  }
  writeFileAtomic(target, content);
  fs.chmodSync(target, mode);
}
