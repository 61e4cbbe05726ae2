// The command that runs this brain, pinned by absolute path for hooks and the timer: they run with
// their own PATH (a timer's is minimal; a hook may run in a sandbox), so `brain` alone may not
// resolve, or resolve to another install. node itself is pinned too (nvm and the like keep it off
// the default PATH).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Env } from '../home';
import { setting } from '../settings';

/** [node, script]: bin/brain of this install when it exists beside dist/, else the running script. */
export function brainCommand(env: Env = process.env, argv1: string | undefined = process.argv[1]): string[] {
  const pinned = setting(env, 'BRAIN_BIN');
  if (pinned) return pinned;
  let script = argv1 ? path.resolve(argv1) : '';
  try {
    script = fs.realpathSync(script);
  } catch {
    /* keep as given */
  }
  // dist/cli.js -> bin/brain: the bin survives rebuilds and is what npm links onto PATH.
  const bin = path.join(path.dirname(script), '..', 'bin', 'brain');
  if (path.basename(script) === 'cli.js' && fs.existsSync(bin)) script = path.resolve(bin);
  return [process.execPath, script];
}
