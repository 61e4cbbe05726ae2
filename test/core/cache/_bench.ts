import * as fs from 'node:fs';
import { openDb } from '../../../src/core/cache/db';
import { loadSchema } from '../../../src/core/cache/sqlfiles';
import { ingest } from '../../../src/core/cache/ingest';
(async () => {
  const variant = process.argv[2] ?? 'base';
  const home = process.argv[3] ?? '/work/tmp-cache/b200';
  const file = `/work/tmp-cache/v-${variant}.duckdb`;
  fs.rmSync(file, { force: true }); fs.rmSync(file + '.wal', { force: true });
  let schema = loadSchema().text;
  if (variant.includes('noidx')) schema = schema.replace(/CREATE INDEX[^;]+;/g, '');
  if (variant.includes('nopk')) schema = schema.replace(/,\s*-- NEVER null \(the 89\/89 lesson\)\s*PRIMARY KEY \(file_id, witness_gen, byte_offset\)/, ' -- x');
  if (variant.includes('noderived')) schema = schema;
  const db = await openDb(file, { readOnly: false, memoryLimit: process.env.MEM ?? '512MB' });
  await db.conn.run(`SET temp_directory = '${file}.tmp'`);
  await db.conn.run('SET preserve_insertion_order = false');
  await db.conn.run(schema);
  const t0 = performance.now();
  let t = t0;
  let cpu = process.cpuUsage();
  if (process.env.PROFILE) { await db.conn.run("PRAGMA enable_profiling='json'"); await db.conn.run(`PRAGMA profiling_output='/work/tmp-cache/prof-${variant}.json'`); }
  const s = await ingest(db.conn, home, { offset: 0 }, { fromScratch: true, trace: (m) => { const n = performance.now(); const c = process.cpuUsage(cpu); console.log(variant, m, 'wall', Math.round(n - t), 'cpu', Math.round((c.user + c.system) / 1000)); t = n; cpu = process.cpuUsage(); } });
  await db.conn.run('CHECKPOINT');
  console.log(variant, 'total', Math.round(performance.now() - t0), 'rss', Math.round(process.memoryUsage().rss / 1e6), 'size MB', Math.round(fs.statSync(file).size / 1e6));
  db.close();
})().catch((e) => { console.error(process.argv[2], 'ERR', e.message.split('\n')[0]); process.exit(1); });
