// Entry of dist/cli.js (the `brain` bin).
import { describe } from '../core/errors';
import { processIo as io } from './args';
import { main } from './main';
import { quietOnEpipe } from './pipes';

quietOnEpipe();

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`brain: ${describe(e)}\n`);
    process.exitCode = 3;
  },
);
