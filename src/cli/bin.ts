// Entry of dist/cli.js (the `brain` bin).
import { describe } from '../core/errors';
import { processIo as io, write, type VerbContext } from './args';
import { main } from './main';
import { quietOnEpipe } from './pipes';

quietOnEpipe();

// process.stdin is made only when a verb reads it: the context inherits processIo's getter.
const ctx: VerbContext = Object.assign(Object.create(io) as VerbContext, { self: [process.execPath, process.argv[1]] });

main(process.argv.slice(2), ctx).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    write(process.stderr, `brain: ${describe(e)}`);
    process.exitCode = 3;
  },
);
