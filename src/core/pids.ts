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

/** Removes the entries of `dir` whose name `pattern` matches with a pid (its first group) of a
 * process that is gone; this process's own and a live one's stay. What cannot be removed (another
 * user's) is left. */
export function removeLeftovers(dir: string, pattern: RegExp): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = pattern.exec(n);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    try {
      fs.rmSync(path.join(dir, n), { recursive: true, force: true });
    } catch {
      /* not ours to remove */
    }
  }
}
