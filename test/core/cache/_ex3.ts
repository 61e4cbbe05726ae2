import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/v-base.duckdb', { readOnly: true });
  const shape = `'{"type":"VARCHAR","isSidechain":"VARCHAR","message":{"role":"VARCHAR","content":"JSON"}}'`;
  const q: Record<string, string> = {
    inline: `SELECT count(*) FROM (SELECT TRY(from_json(raw_line, ${shape})) j FROM floor.raw_lines WHERE agent='cc') WHERE j IS NOT NULL AND j.type IN ('user','assistant') AND j.message.role IN ('user','assistant') AND NOT coalesce(TRY_CAST(j.isSidechain AS BOOLEAN), false)`,
    unnest: `SELECT count(*) FROM (SELECT unnest([TRY(from_json(raw_line, ${shape}))]) j FROM floor.raw_lines WHERE agent='cc') WHERE j IS NOT NULL AND j.type IN ('user','assistant') AND j.message.role IN ('user','assistant') AND NOT coalesce(TRY_CAST(j.isSidechain AS BOOLEAN), false)`,
  };
  for (const [k, sql] of Object.entries(q)) {
    const t = performance.now(); const c = process.cpuUsage();
    const r = await db.conn.runAndReadAll(sql); const cu = process.cpuUsage(c);
    console.log(k, 'wall', Math.round(performance.now() - t), 'cpu', Math.round((cu.user + cu.system) / 1000), JSON.stringify(r.getRowsJson()[0]));
  }
  db.close();
})();
