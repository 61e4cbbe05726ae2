import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/b1g/brain.duckdb', { readOnly: false, memoryLimit: '512MB' });
  const ids = (await db.conn.runAndReadAll(`SELECT file_id FROM floor.files ORDER BY file_id LIMIT 100 OFFSET 500`)).getRows().map((r) => `'${r[0]}'`).join(',');
  await db.conn.run(`SET VARIABLE brain_files = [${ids}]`);
  const q: Record<string, string> = {
    list_contains: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE getvariable('brain_files') IS NULL OR list_contains(getvariable('brain_files'), r.file_id)`,
    list_contains2: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE list_contains(getvariable('brain_files'), r.file_id)`,
    in_literal: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE r.file_id IN (${ids})`,
    in_unnest: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE r.file_id IN (SELECT unnest(getvariable('brain_files')))`,
    coalesce_set: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE r.file_id IN (SELECT unnest(coalesce(getvariable('brain_files'), (SELECT list(file_id) FROM floor.files))))`,
    coalesce_unset: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r WHERE r.file_id IN (SELECT unnest(coalesce(getvariable('nope'), (SELECT list(file_id) FROM floor.files))))`,
    all: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines r`,
  };
  await db.conn.run("PRAGMA enable_profiling='json'");
  for (const [k, sql] of Object.entries(q)) {
    await db.conn.run(`PRAGMA profiling_output='/work/tmp-cache/prof-${k}.json'`);
    const t = performance.now();
    const r = await db.conn.runAndReadAll(sql);
    const p = JSON.parse(require('fs').readFileSync(`/work/tmp-cache/prof-${k}.json`, 'utf8'));
    let scanned = 0; const walk = (n: any) => { if (/SCAN/.test(n.operator_name ?? '')) scanned += n.operator_rows_scanned ?? 0; (n.children ?? []).forEach(walk); }; walk(p);
    console.log(k.padEnd(16), Math.round(performance.now() - t), 'ms', JSON.stringify(r.getRowsJson()[0]), 'scanned', scanned);
  }
  db.close();
})();
