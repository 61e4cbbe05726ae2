// Entry of dist/cli-mcp.js: the mcp verb, which dist/cli.js loads for `brain mcp --help` (see
// verbs.ts), and `brain mcp` alone: bin/brain calls runAlone(), so an agent's MCP server starts
// without loading the rest of the CLI (dist/cli.js, ~1 MB, compiled on every start since `brain mcp`
// keeps no compile cache).
import { processIo as io } from './args';
import { mcp } from './mcp';
import { quietOnEpipe } from './pipes';
import { runVerb } from './runverb';

export { mcp };

export function runAlone(): void {
  quietOnEpipe();
  runVerb('mcp', mcp, process.argv.slice(3), io).then((code) => {
    process.exitCode = code;
  });
}
