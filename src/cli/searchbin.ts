// Entry of dist/search.js: `brain search …` alone. An agent searches from its shell often, and
// loading the whole CLI bundle (dist/cli.js, ~1 MB) cost about as much as rg's whole run over a
// 1 GB lake. bin/brain sends `brain search …` here; `--help` and every other verb still go
// through dist/cli.js.
import { processIo as io } from './args';
import { quietOnEpipe } from './pipes';
import { runVerb } from './runverb';
import { search } from './search';

quietOnEpipe();

runVerb('search', search, process.argv.slice(3), io).then((code) => {
  process.exitCode = code;
});
