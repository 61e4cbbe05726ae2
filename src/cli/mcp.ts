import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from '../core/errors';
import { VERSION } from '../core/store/version';
import { serveStdio } from '../mcp/server';
import { type Verb } from './args';
import { harnessAgents, type AgentHarness } from '../core/agents';
import { SESSION_ENV } from '../core/harness/caller';

const labels = (f: (h: AgentHarness) => boolean) => harnessAgents().filter((a) => f(a.harness)).map((a) => a.label).join(' and ');

export const mcp: Verb = {
  name: 'mcp',
  summary: 'Serve the recall tools (search, read_session, cite, verify_citation, sql) over MCP on stdio.',
  usage: 'mcp [--store PATH]',
  details: `For harnesses: \`brain init\` registers it with ${labels((h) => !!h.planMcp)}. It reads stdin and writes only
MCP messages to stdout (diagnostics go to stderr); it opens no socket and writes no file: search and
read_session read the floor itself (the turn index is not updated), sql reads brain.duckdb as it is
(\`brain rebuild\` or \`brain sql\` brings it up to date); a sql answer holds at most [sql] max_bytes of
config.toml (BRAIN_SQL_MAX_BYTES, default 40000; long values are cut, saying so) and a statement is
stopped after [sql] timeout (BRAIN_SQL_TIMEOUT, default 30 s). The server exits when stdin closes,
interrupting a query still running; a line that is not JSON gets a -32700 parse error.
With --store, search, read_session, cite and verify_citation read the store folder (one folder per
machine) unless a call names another.
The calling session is left out of search: from the call's _meta (${labels((h) => !!h.sessionFromMeta)}), from
${SESSION_ENV.join(', ')}, or from the search's own skip argument.`,
  options: [{ name: 'store', type: 'string', help: 'a store folder holding every machine\'s floor' }],
  async run(args, ctx) {
    if (args.positionals.length) throw new BrainError('usage', `unexpected argument ${JSON.stringify(args.positionals[0])}`, 'brain mcp [--store PATH]');
    const store = args.opts.store as string | undefined;
    // A store named at registration that is not there is a setup error: say so now, not on every call.
    if (store && !fs.statSync(store, { throwIfNoEntry: false })?.isDirectory()) {
      throw new BrainError('usage', `--store ${store} is not a folder`, 'pass the folder that holds one folder per machine (mount the store disk first)');
    }
    await serveStdio(
      {
        env: ctx.env,
        store: store ? path.resolve(store) : undefined,
        version: VERSION,
        log: (line) => ctx.stderr.write(line.endsWith('\n') ? line : `${line}\n`),
      },
      ctx.stdin as NodeJS.ReadStream,
      ctx.stdout as NodeJS.WriteStream,
    );
    // The client has gone and running calls were told to stop. Should one still hold the process
    // (a native call that ignores the interrupt), leave anyway: nobody is left to answer.
    if (ctx.stdin === process.stdin) setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
    return 0;
  },
};
