import { brainHome } from '../core/home';
import { toolCalls } from '../core/cache/reports';
import { formatTable, terminalWidth } from '../core/cache/format';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { registry } from '../core/agents';

export const calls: Verb = {
  name: 'calls',
  summary: 'Tool-call counts and failures per agent and tool.',
  usage: 'calls [--agent NAME] [--since DATE] [--limit N] [--json]',
  details: `From the DuckDB cache (brought up to the manifest first). A failure is a result the agent marked as
an error, or a command's non-zero exit code, a failed patch or MCP call.
"unanswered" counts calls whose result is not on the floor (interrupted, or still running).
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'agent', type: 'string', help: registry().filterHelp() },
    { name: 'since', type: 'string', help: 'only calls at or after this date/time, or 30m, 12h, 7d, 2w ago' },
    { name: 'limit', type: 'number', help: 'most tools to print (default 50; --json lists all)' },
    { name: 'json', type: 'bool', help: 'machine-readable report' },
  ],
  async run(args, ctx) {
    const r = await toolCalls(brainHome(ctx.env), {
      agent: args.opts.agent as string | undefined,
      since: args.opts.since as string | undefined,
    });
    if (args.opts.json) {
      write(ctx.stdout, JSON.stringify(r));
      return 0;
    }
    const limit = (args.opts.limit as number | undefined) ?? 50;
    const rows = r.rows.slice(0, limit).map((x) => [x.agent, x.tool, x.calls, x.failures, x.unanswered, `${x.failure_pct}%`]);
    rows.push(['total', '', r.total.calls, r.total.failures, r.total.unanswered, r.total.calls ? `${((100 * r.total.failures) / r.total.calls).toFixed(1)}%` : '0%']);
    write(ctx.stdout, formatTable(['agent', 'tool', 'calls', 'failures', 'unanswered', 'failed'], rows, terminalWidth(ctx.stdout), [false, false, true, true, true, true]));
    if (r.rows.length > limit) write(ctx.stdout, `(${r.rows.length - limit} more tools: --limit N or --json)`);
    return 0;
  },
};
