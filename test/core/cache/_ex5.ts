import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/b1g/brain.duckdb', { readOnly: false, memoryLimit: '512MB' });
  const ids = (await db.conn.runAndReadAll(`SELECT file_id FROM floor.files ORDER BY file_id LIMIT 100 OFFSET 500`)).getRows().map((r) => `'${r[0]}'`).join(',');
  await db.conn.run("PRAGMA enable_profiling='json'"); await db.conn.run(`PRAGMA profiling_output='/work/tmp-cache/prof.json'`);
  for (const v of (process.argv[2] ?? 'v_messages_all').split(',')) {
    const t = performance.now();
    await db.conn.run(`SELECT count(*) FROM derived.${v} WHERE file_id IN (${ids})`);
    console.log(v, Math.round(performance.now() - t));
  }
  db.close();
  const p = JSON.parse(require('fs').readFileSync('/work/tmp-cache/prof.json', 'utf8'));
  const walk = (n: any, d: number) => { if (n.operator_timing > 0.01 || d < 3 || /SCAN/.test(n.operator_name ?? '')) console.log(' '.repeat(d) + (n.operator_name || n.operator_type), (n.operator_timing ?? 0).toFixed(3), n.operator_cardinality, n.operator_rows_scanned ?? '', (n.extra_info && JSON.stringify(n.extra_info.Filters ?? n.extra_info).slice(0, 120)) || ''); for (const c of n.children ?? []) walk(c, d + 1); };
  walk(p, 0);
})();
