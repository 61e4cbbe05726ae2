// Opening and reading files that someone else may have made: another machine's folder in a store
// (any machine that syncs there can put anything in it), a restored backup. Such a folder must not
// be able to stop a read for everyone: a FIFO where the manifest should be blocks open() until a
// writer comes, a device never ends, a symlink leads anywhere. So every such read opens through
// openRegular (never blocks, never follows, a regular file or a refusal), and the work of one
// request runs under a deadline that its read loops check (checkDeadline), which is also where the
// store host notices that the machine that asked has gone away (onPulse).
import * as fs from 'node:fs';
import { BrainError, errnoCode } from './errors';

/** O_RDONLY | O_NOFOLLOW | O_NONBLOCK (each 0 where the platform has none). O_NONBLOCK makes the
 * open of a FIFO return at once; on a regular file it changes nothing. */
export const OPEN_SAFE = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

export const NOT_REGULAR = 'not-regular-file';

/** What a non-regular file is, for the message. */
export function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symlink';
  return 'not a regular file';
}

/** The file is a folder, FIFO, socket, device or symlink: refused, not read. */
export class NotRegularError extends BrainError {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return BrainError[Symbol.hasInstance](v) && (v as BrainError).code === NOT_REGULAR;
  }

  constructor(
    readonly file: string,
    readonly kind: string,
    what: string,
  ) {
    super(NOT_REGULAR, `${what} ${file} is ${kind}, not a regular file: refused, not read`, 'a floor holds regular files only; whoever wrote that folder put something else there (remove it, or ask its machine to sync again)');
    this.name = 'NotRegularError';
  }
}

/** Opens `file` for reading, or throws: NotRegularError for a folder, FIFO, socket or device, the
 * open's own error otherwise (ENOENT, and ELOOP for a symlink as the last component, pass through
 * unchanged). Never blocks on a FIFO. The caller closes the fd. */
export function openRegular(file: string, what = 'the file'): number {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_SAFE);
  } catch (e) {
    // ELOOP (the last component is a symlink, O_NOFOLLOW) stays as it is: callers already treat
    // it as "not followed". ENXIO: a socket.
    if (errnoCode(e) === 'ENXIO') throw new NotRegularError(file, 'a socket', what);
    throw e;
  }
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new NotRegularError(file, kindOf(st), what);
  }
  return fd;
}

/** Whether `file` is a regular file that openRegular would open (false for anything refused or
 * missing), without blocking. */
export function isRegular(file: string): boolean {
  try {
    return fs.lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/** A whole regular file, at most `maxBytes` of it (more: a BrainError naming the file). */
export function readRegular(file: string, o: { what?: string; maxBytes?: number } = {}): Buffer {
  const fd = openRegular(file, o.what);
  try {
    const size = fs.fstatSync(fd).size;
    if (o.maxBytes !== undefined && size > o.maxBytes) {
      throw new BrainError('file-too-large', `${o.what ?? 'the file'} ${file} is ${size} bytes, more than the ${o.maxBytes} read at most: not read`, 'it is not what brain writes there; remove it or ask its machine to sync again');
    }
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(Math.min(Math.max(size, 1), 1 << 20));
    let pos = 0;
    for (;;) {
      checkDeadline();
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
      pos += n;
      if (o.maxBytes !== undefined && pos > o.maxBytes) {
        throw new BrainError('file-too-large', `${o.what ?? 'the file'} ${file} grew past the ${o.maxBytes} bytes read at most: not read`, 'it is not what brain writes there');
      }
    }
    return Buffer.concat(chunks);
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------- deadline

export const DEADLINE = 'deadline';

/** The work ran past its deadline: it stopped, and says what it was doing. */
export class DeadlineError extends BrainError {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return BrainError[Symbol.hasInstance](v) && (v as BrainError).code === DEADLINE;
  }

  constructor(
    readonly what: string,
    readonly seconds: number,
  ) {
    super(DEADLINE, `${what} took longer than ${seconds} s and was stopped`, 'a store folder that costs this much is not what brain writes; see which machine folder is that large (or raise BRAIN_STORE_TIMEOUT)');
    this.name = 'DeadlineError';
  }
}

interface Running {
  at: number;
  what: string;
  seconds: number;
}

// Synchronous work alone checks it, so one value per thread is enough: nothing else runs between
// a withDeadline's start and end.
let current: Running | null = null;
let pulse: (() => void) | null = null;
let lastPulse = 0;
const PULSE_MS = 500;

/** Runs `fn` with a deadline `seconds` from now (0: none) that checkDeadline enforces; an outer
 * deadline that comes sooner stays in force. */
export function withDeadline<T>(seconds: number, what: string, fn: () => T): T {
  const prev = current;
  const at = seconds > 0 ? Date.now() + seconds * 1000 : Infinity;
  if (!prev || at < prev.at) current = { at, what, seconds };
  try {
    return fn();
  } finally {
    current = prev;
  }
}

/** Called by read loops between chunks and files: throws DeadlineError once the deadline of the
 * work in progress has passed, and gives the pulse (below) its turn. Cheap when nothing is set. */
export function checkDeadline(): void {
  if (pulse) {
    const now = Date.now();
    if (now - lastPulse >= PULSE_MS) {
      lastPulse = now;
      pulse();
    }
  }
  if (current && Date.now() > current.at) throw new DeadlineError(current.what, current.seconds);
}

/** Sets what checkDeadline also runs, at most twice a second (the store host: "is the client still
 * there?"). Null removes it. */
export function onPulse(fn: (() => void) | null): void {
  pulse = fn;
  lastPulse = 0;
}

/** For the store host run over ssh: one space on stdout (the answer is JSON, which allows leading
 * whitespace). When the asking machine has gone away, sshd has closed that pipe and the write
 * fails with EPIPE: the process ends there, instead of working on for nobody. A full pipe (EAGAIN)
 * means the client is there but slow. */
export function stdoutPulse(exit: (code: number) => never = process.exit): () => void {
  return () => {
    try {
      fs.writeSync(1, ' ');
    } catch (e) {
      const c = errnoCode(e);
      if (c === 'EAGAIN' || c === 'EWOULDBLOCK') return;
      exit(141);
    }
  };
}
