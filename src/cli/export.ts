import { BrainError } from '../core/errors';
import { EXPORT_TABLES, exportParquet } from '../core/export/parquet';
import { COMMON_EXIT_CODES, write, type Verb } from './args';

export const exportVerb: Verb = {
  name: 'export',
  summary: "Write every reachable machine's derived tables as Hive-partitioned Parquet.",
  usage: 'export --parquet DIR [--json]',
  details: `Writes ${Object.keys(EXPORT_TABLES).join(', ')} as DIR/<table>/machine=<m>/agent=<a>/*.parquet, for
DuckDB, Spark, Trino or a warehouse (read them with hive partitioning: machine and agent come from
the folder names). This machine's rows come from its cache; with a store configured, every other
machine's floor is copied from the store into DIR/.brain-export/ (rsync, reading only) and a cache is
built there from it. Run it again to bring the export up to date: a machine whose floor has not
grown keeps its files, one that grew has its folders replaced whole.
${COMMON_EXIT_CODES} Exit 1: the other machines could not be exported (this one was; the note says why).`,
  options: [
    { name: 'parquet', type: 'string', help: 'the folder to write (made when missing)' },
    { name: 'json', type: 'bool', help: 'machine-readable result' },
  ],
  async run(args, ctx) {
    const dir = args.opts.parquet as string | undefined;
    if (!dir || args.positionals.length) throw new BrainError('usage', 'export needs --parquet DIR', 'brain export --parquet ~/brain-parquet');
    const r = await exportParquet(dir, ctx.env);
    if (args.opts.json) write(ctx.stdout, JSON.stringify(r));
    else {
      const lines = [`${r.dir}: ${r.machines.length} machine${r.machines.length === 1 ? '' : 's'}`];
      for (const m of r.machines) lines.push(`  ${m.machine}: ${m.state === 'current' ? 'unchanged since the last export' : Object.entries(m.rows).map(([t, n]) => `${n} ${t}`).join(', ')}`);
      for (const n of r.notes) lines.push(`note: ${n}`);
      lines.push(`query: duckdb -c "SELECT machine, agent, count(*) FROM read_parquet('${r.dir}/sessions/**/*.parquet', hive_partitioning = true) GROUP BY ALL"`);
      write(ctx.stdout, lines.join('\n'));
    }
    return r.notes.length && r.notes.some((n) => n.startsWith('other machines not exported')) ? 1 : 0;
  },
};
