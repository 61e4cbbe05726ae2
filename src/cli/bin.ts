// Entry of dist/cli.js (the `brain` bin).
import { describe } from '../core/errors';
import { processIo as io } from './args';
import { main } from './main';

// `brain sql … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`brain: ${describe(e)}\n`);
    process.exitCode = 3;
  },
);
