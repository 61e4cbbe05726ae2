// Opening an origin (an agent's file) to read it: a regular file only, never through a symbolic
// link, and never with an open that can wait. A FIFO named like a session blocks a plain open(2)
// until some writer opens it, which may be never: the pass would hang holding the floor lock, and
// a synchronous open cannot be interrupted, not even by Ctrl-C.
import * as fs from 'node:fs';

export type OpenedOrigin =
  | { fd: number; st: fs.Stats }
  /** Gone between listing and opening (vanished() takes care of it), or a symbolic link. */
  | { skip: 'gone' | 'symlink' }
  /** Not a regular file: `kind` says what it is ("a FIFO"). */
  | { skip: 'special'; kind: string }
  | { error: Error };

/** What a file that is not a regular one is, for messages. */
export function fileKind(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a folder';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

// O_NONBLOCK makes open(2) of a FIFO return at once; on a regular file it changes nothing.
const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** lstat, then a non-blocking open, then fstat: the type is checked before opening and again on what
 * was opened (the name may have been replaced by a FIFO in between). The caller closes `fd`. */
export function openOrigin(p: Buffer | string): OpenedOrigin {
  let lst: fs.Stats;
  try {
    lst = fs.lstatSync(p);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { skip: 'gone' } : { error: e as Error };
  }
  if (lst.isSymbolicLink()) return { skip: 'symlink' };
  if (!lst.isFile()) return { skip: 'special', kind: fileKind(lst) };
  let fd: number;
  try {
    fd = fs.openSync(p, FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { skip: 'gone' };
    if (code === 'ELOOP') return { skip: 'symlink' };
    return { error: e as Error };
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.isFile()) return { fd, st };
    fs.closeSync(fd);
    return { skip: 'special', kind: fileKind(st) };
  } catch (e) {
    fs.closeSync(fd);
    return { error: e as Error };
  }
}
