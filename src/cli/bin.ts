// Entry of dist/cli.js (the `brain` bin).
import { describe } from '../core/errors';
import { main } from './main';

main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`brain: ${describe(e)}\n`);
    process.exitCode = 3;
  },
);
