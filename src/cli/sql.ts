import { brainHome } from '../core/home';
import { runReadOnlySql } from '../core/cache';
import { formatTable, terminalWidth } from '../core/cache/format';
import { BrainError } from '../core/errors';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { registry } from '../core/agents';

export const sql: Verb = {
  name: 'sql',
  summary: 'Run one read-only SQL query over the DuckDB cache of the floor.',
  usage: 'sql "SELECT …" [--json] [--limit N]',
  details: `Tables: floor.raw_lines (every floor line, byte-exact citation columns), floor.files, floor.chunks
(the manifest), derived.messages, derived.sessions, derived.tool_calls, derived.calls, derived.usage;
views: ${registry().dialectViews()}, v_live. The cache (BRAIN_HOME/brain.duckdb) is brought up
to the manifest first, or built if missing. The connection is read-only: INSERT, CREATE, COPY, ATTACH,
INSTALL, SET and every other statement that writes is refused, and SQL cannot read or write files.
Example: brain sql "SELECT agent, count(DISTINCT turn_id) AS turns FROM derived.messages GROUP BY agent"
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'json', type: 'bool', help: 'print {columns, rows, truncated} as JSON' },
    { name: 'limit', type: 'number', help: 'most rows to print (default 1000)' },
  ],
  async run(args, ctx) {
    const query = args.positionals.join(' ');
    if (!query.trim()) throw new BrainError('usage', 'no query given', 'brain sql "SELECT …"');
    const r = await runReadOnlySql(brainHome(ctx.env), query, { limit: (args.opts.limit as number | undefined) ?? 1000 });
    if (args.opts.json) {
      write(ctx.stdout, JSON.stringify(r));
      return 0;
    }
    write(ctx.stdout, formatTable(r.columns.map((c) => c.name), r.rows, terminalWidth(ctx.stdout)));
    write(ctx.stdout, r.truncated ? `(first ${r.limit} rows; more exist: --limit N, or add LIMIT/aggregate)` : `(${r.rows.length} row${r.rows.length === 1 ? '' : 's'})`);
    return 0;
  },
};
