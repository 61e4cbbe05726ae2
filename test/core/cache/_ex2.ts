import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/v-base.duckdb', { readOnly: false });
  await db.conn.run("PRAGMA enable_profiling='json'"); await db.conn.run(`PRAGMA profiling_output='/work/tmp-cache/prof.json'`);
  await db.conn.run(`SELECT count(*), sum(length(text)) FROM derived.v_${process.argv[2] ?? 'messages_all'}`);
  db.close();
  const p = JSON.parse(require('fs').readFileSync('/work/tmp-cache/prof.json', 'utf8'));
  const walk = (n: any, d: number) => { if (n.operator_timing > 0.02 || d < 2) console.log(' '.repeat(d) + (n.operator_name || n.operator_type), (n.operator_timing ?? 0).toFixed(3), n.operator_cardinality, (n.extra_info && JSON.stringify(n.extra_info).slice(0, 160)) || ''); for (const c of n.children ?? []) walk(c, d + 1); };
  walk(p, 0);
})();
