// Entry of dist/hook.js: `brain hook <agent>` alone. A harness waits for this command at every
// session start, and most of its time beyond Node's own start-up was loading the whole CLI bundle
// (dist/cli.js, ~1 MB) for a verb that needs the floor's meta writer only. bin/brain sends
// `brain hook …` here; `--help` and every other verb still go through dist/cli.js.
import { BrainError, describe } from '../core/errors';
import { parseArgs, processIo as io, write } from './args';
import { hook } from './hook';

(async () => hook.run(parseArgs(process.argv.slice(3), hook.options), io))().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // What main() does with a bad option (hook.run itself never throws).
    write(process.stderr, `brain hook: ${describe(e)}`);
    process.exitCode = e instanceof BrainError && e.code === 'usage' ? 2 : 3;
  },
);
