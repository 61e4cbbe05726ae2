// What a process that died left behind: files and folders named with its pid.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Whether a process with this pid exists (one of another user's counts: it cannot be signalled). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the entries of `dir` named with the pid of a process that is gone: `pattern` is a
 * RegExp whose first group is the pid, or a name's prefix the pid follows. A live process's entries
 * stay, and this process's own unless `own` (a file it is about to make afresh). What cannot be
 * removed (another user's) is left. */
export function removeLeftovers(dir: string, pattern: RegExp | string, opts: { own?: boolean } = {}): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const pid = pidIn(n, pattern);
    if (pid === null || (pid === process.pid ? !opts.own : pidAlive(pid))) continue;
    try {
      fs.rmSync(path.join(dir, n), { recursive: true, force: true });
    } catch {
      /* not ours to remove */
    }
  }
}

function pidIn(name: string, pattern: RegExp | string): number | null {
  const digits = typeof pattern === 'string' ? (name.startsWith(pattern) ? /^\d+/.exec(name.slice(pattern.length))?.[0] : undefined) : pattern.exec(name)?.[1];
  return digits ? Number(digits) : null;
}
