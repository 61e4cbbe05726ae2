// runReadOnlySql: one statement that reads; everything that writes (to the cache, to files, to
// settings, to extensions) is refused with code 'sql-read-only' and leaves the cache unchanged.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { BrainError } from '../../../src/core/errors';
import { capturedSandbox, digest } from './helpers';
import type { Sandbox } from '../../helpers/env';

let sb: Sandbox;
let baseline: Record<string, string>;
before(async () => {
  sb = await capturedSandbox('cache-ro');
  await rebuildCache(sb.brain);
  baseline = await digest(sb.brain);
});
after(() => sb.cleanup());

async function refused(query: string, code = 'sql-read-only'): Promise<BrainError> {
  try {
    await runReadOnlySql(sb.brain, query);
  } catch (e) {
    assert.ok(e instanceof BrainError, `${query}: ${String(e)}`);
    assert.equal(e.code, code, `${query}: ${e.message}`);
    return e;
  }
  assert.fail(`not refused: ${query}`);
}

const WRITES = [
  `INSERT INTO floor.cache_meta VALUES ('x', 'y')`,
  `UPDATE floor.raw_lines SET raw_line = ''`,
  `DELETE FROM derived.messages`,
  `CREATE TABLE t AS SELECT 1`,
  `CREATE TEMP TABLE t AS SELECT 1`,
  `CREATE VIEW v AS SELECT 1`,
  `CREATE MACRO m(x) AS x`,
  `DROP TABLE derived.messages`,
  `ALTER TABLE floor.files ADD COLUMN x INT`,
  `TRUNCATE derived.messages`,
  `COPY floor.files TO '${'/tmp/brain-copy-test.csv'}'`,
  `COPY (SELECT 1) TO 'x.parquet'`,
  `EXPORT DATABASE 'exp'`,
  `ATTACH ':memory:' AS m`,
  `ATTACH 'other.duckdb' AS o`,
  `DETACH m`,
  `INSTALL httpfs`,
  `LOAD httpfs`,
  `FORCE INSTALL httpfs`,
  `SET threads = 1`,
  `RESET threads`,
  `PRAGMA enable_profiling`,
  `CHECKPOINT`,
  `VACUUM`,
  `CALL force_checkpoint()`,
  `BEGIN TRANSACTION`,
  `USE memory`,
  `  -- a comment first\n  INSERT INTO floor.cache_meta VALUES ('x', 'y')`,
  `/* block */ (INSERT INTO floor.cache_meta VALUES ('x', 'y'))`,
  `EXPLAIN ANALYZE INSERT INTO floor.cache_meta VALUES ('x', 'y')`,
  `WITH x AS (SELECT 1) INSERT INTO floor.cache_meta SELECT 'a', 'b' FROM x`,
  `SELECT * FROM read_text('/etc/hostname')`,
  `SELECT * FROM read_csv('${path.join('/etc', 'passwd')}')`,
];

test('write statements are refused with a clear error', async () => {
  for (const q of WRITES) {
    const e = await refused(q);
    assert.match(e.message, /read-only/, q);
  }
  assert.equal(fs.existsSync('/tmp/brain-copy-test.csv'), false);
  assert.deepEqual(await digest(sb.brain), baseline, 'the cache is unchanged');
});

test('the refusal names the statement kind', async () => {
  assert.match((await refused(`insert into floor.files values (1)`)).message, /INSERT statements are refused/);
  assert.match((await refused(`COPY floor.files TO 'x.csv'`)).message, /COPY/);
  assert.match((await refused(`ATTACH 'x.duckdb'`)).message, /ATTACH/);
  assert.match((await refused(`WITH x AS (SELECT 1) INSERT INTO floor.cache_meta SELECT 'a', 'b' FROM x`)).message, /INSERT/);
});

test('one statement at a time; empty text and SQL errors are named', async () => {
  await refused('SELECT 1; SELECT 2', 'sql-one-statement');
  await refused('SELECT 1; INSERT INTO floor.files VALUES (1)', 'sql-one-statement');
  await refused('   ', 'sql-empty');
  const e = await refused('SELECT * FROM no_such_table', 'sql-error');
  assert.match(e.message, /no_such_table/);
});

test('reads work: SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA table_info', async () => {
  for (const q of [
    'SELECT count(*) FROM floor.raw_lines',
    'WITH x AS (SELECT agent FROM derived.messages) SELECT count(*) FROM x',
    'DESCRIBE derived.messages',
    'SHOW ALL TABLES',
    'SUMMARIZE SELECT line_no FROM floor.raw_lines',
    'EXPLAIN SELECT 1',
    "PRAGMA table_info('derived.messages')",
    'SELECT * FROM dialects.v_cc LIMIT 3',
  ]) {
    const r = await runReadOnlySql(sb.brain, q);
    assert.ok(r.rows.length > 0, q);
  }
});

test('rows are capped at the limit and JSON-friendly', async () => {
  const r = await runReadOnlySql(sb.brain, 'SELECT line_no, byte_offset, raw_line FROM floor.raw_lines ORDER BY file_id, byte_offset', { limit: 7 });
  assert.equal(r.rows.length, 7);
  assert.equal(r.truncated, true);
  assert.deepEqual(r.columns.map((c) => c.name), ['line_no', 'byte_offset', 'raw_line']);
  assert.equal(typeof r.rows[0][1], 'number', 'BIGINT as a number');
  const big = await runReadOnlySql(sb.brain, `SELECT 9007199254740993::BIGINT AS b, 1.5::DECIMAL(4,2) AS d, [1,2] AS l, {'a': 1} AS s, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS t`, { timeZone: 'UTC' });
  assert.deepEqual(big.rows[0], ['9007199254740993', 1.5, [1, 2], { a: 1 }, '2026-01-01 00:00:00+00']);
  const all = await runReadOnlySql(sb.brain, 'SELECT 1 UNION ALL SELECT 2', { limit: 2 });
  assert.equal(all.truncated, false);
});
