// Long output to a terminal goes through a pager, as git does: $PAGER (default `less -FRX`, which
// prints a text that fits the screen as it is and keeps it on the screen after quitting). Output
// to a pipe or a file, PAGER set to '' or 'cat', or a pager that cannot start, is written as is.
import { spawnSync } from 'node:child_process';
import { write } from './args';
import { setting } from '../core/settings';

/** Writes `text` to `out`, through the pager when `out` is a terminal and the text is taller than it. */
export function paged(out: NodeJS.WritableStream, text: string, env: NodeJS.ProcessEnv): void {
  const tty = out as NodeJS.WriteStream;
  const rows = typeof tty.rows === 'number' && tty.rows > 0 ? tty.rows : 24;
  const pager = setting(env, 'BRAIN_PAGER') ?? env.PAGER ?? 'less';
  if (!tty.isTTY || pager.trim() === '' || pager.trim() === 'cat' || text.split('\n').length <= rows) {
    write(out, text);
    return;
  }
  // less: quit when the text fits (-F), keep colours (-R), leave the text on screen (-X).
  const lessEnv = env.LESS === undefined ? { LESS: 'FRX' } : {};
  const r = spawnSync('/bin/sh', ['-c', pager], { input: text, stdio: ['pipe', 'inherit', 'inherit'], env: { ...env, ...lessEnv } });
  // The pager could not start (127: not found): the text is written as is.
  if (r.error || r.status === 127) write(out, text);
}
