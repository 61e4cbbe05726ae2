// The second baseline of the cache section (bench/cache.mjs runs it as its own process, under
// GNU time for CPU and peak RSS): what DuckDB itself takes to hold every line of the lake, with
// nothing of this program in the way. One statement reads every lake file with DuckDB's own
// reader, cuts it at newlines and stores each line with its file and number, in the compression
// DuckDB picks; then a checkpoint writes it out. No hash, no manifest, no clock, no derived table:
// a cache that keeps the floor document's raw_lines cannot cost less than this.
//   node bench/duckload.mjs LAKE_DIR OUT.duckdb  → prints {"ms":…,"bytes":…,"lines":…}
import * as fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [lake, out] = process.argv.slice(2);
if (!lake || !out) {
  console.error('usage: node bench/duckload.mjs LAKE_DIR OUT.duckdb');
  process.exit(2);
}
for (const f of [out, `${out}.wal`]) fs.rmSync(f, { force: true });
const t0 = performance.now();
const db = await DuckDBInstance.create(out);
const conn = await db.connect();
// A quote in the folder's name would end the SQL string: doubled, as SQL spells it.
const glob = `${lake.replace(/'/g, "''")}/**`;
await conn.run('CREATE TABLE lines (filename TEXT, line_no INTEGER, raw_line TEXT)');
await conn.run(
  `INSERT INTO lines
   SELECT filename, generate_subscripts(parts, 1), unnest(parts)
   FROM (SELECT filename, string_split(content, chr(10)) AS parts FROM read_text('${glob}'))`,
);
await conn.run('CHECKPOINT');
const n = Number((await conn.runAndReadAll('SELECT count(*) FROM lines')).getRows()[0][0]);
conn.closeSync();
db.closeSync();
const ms = performance.now() - t0;
const bytes = fs.statSync(out).size;
for (const f of [out, `${out}.wal`]) fs.rmSync(f, { force: true });
console.log(JSON.stringify({ ms, bytes, lines: n }));
