import { brainHome } from '../core/home';
import { STATS_BY, type StatsBy, type StatsRow } from '../core/cache/reports';
import { statsReport } from '../core/recall/stats';
import { compactNumber, formatTable, terminalWidth } from '../core/cache/format';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { registry } from '../core/agents';

function line(r: StatsRow): unknown[] {
  return [
    r.key,
    r.sessions,
    r.turns,
    compactNumber(r.tokens.input),
    compactNumber(r.tokens.output),
    compactNumber(r.tokens.cache_creation),
    compactNumber(r.tokens.cache_read),
    r.tool_calls,
    r.tool_failures,
    r.models.join(', '),
  ];
}

export const stats: Verb = {
  name: 'stats',
  summary: 'Sessions, turns, tokens, models and tool calls per agent, day or project.',
  usage: 'stats [--by agent|day|project|machine] [--agent NAME] [--since DATE] [--json]',
  details: `From the DuckDB cache (brought up to the manifest first). Tokens are counted once per reply: input
(not from cache), output, cache creation (cc:write) and cache read, as \`ccusage daily\` counts them.
A session counts in each group where it has messages; days are in the local time zone (TZ); a line
without its own clock counts on the day it was captured, or on its session's start when no line of
the session has a clock and the agent dates the session elsewhere (a database beside the
transcript). --since also takes 30m, 12h, 7d, 2w.
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'by', type: 'string', help: `group by ${STATS_BY.join('|')} (default agent)` },
    { name: 'agent', type: 'string', help: registry().filterHelp() },
    { name: 'since', type: 'string', help: 'only activity at or after this date/time, or 30m, 12h, 7d, 2w ago' },
    { name: 'json', type: 'bool', help: 'machine-readable report' },
  ],
  async run(args, ctx) {
    const by = ((args.opts.by as string | undefined) ?? 'agent') as StatsBy;
    const r = await statsReport(brainHome(ctx.env), by, {
      agent: args.opts.agent as string | undefined,
      since: args.opts.since as string | undefined,
      env: ctx.env,
    });
    if (args.opts.json) {
      write(ctx.stdout, JSON.stringify(r));
      return 0;
    }
    const headers = [by, 'sessions', 'turns', 'in', 'out', 'cc:write', 'cc:read', 'tools', 'failed', 'models'];
    const right = headers.map((_, i) => i > 0 && i < 9);
    write(ctx.stdout, formatTable(headers, [...r.rows.map(line), line(r.total)], terminalWidth(ctx.stdout), right));
    if (by === 'day') write(ctx.stdout, `(days in ${r.time_zone})`);
    return 0;
  },
};
