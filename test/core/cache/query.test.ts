// readOnlyQuery on a real DuckDB connection: values cut to fit the byte cap keep valid text (no
// half of a surrogate pair, no broken escape), lists and structs are cut as JSON text, the limit
// and the cap both say more rows exist, and an aborted signal interrupts a running statement.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readOnlyQuery } from '../../../src/core/cache';
import { BrainError } from '../../../src/core/errors';

let instance: DuckDBInstance;
let conn: DuckDBConnection;
before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
after(() => {
  conn.closeSync();
  instance.closeSync();
});

const q = (sql: string, maxBytes = 8192, limit = 100) => readOnlyQuery(conn, sql, { limit, maxBytes, timeoutMs: 30_000 });
const objectBytes = (r: Awaited<ReturnType<typeof q>>) =>
  Buffer.byteLength(JSON.stringify({ columns: r.columns, rows: r.rows.map((row) => Object.fromEntries(r.columns.map((c, k) => [c.name, row[k]]))) }));

test('small answers come back whole, with nothing cut and no note', async () => {
  const r = await q("SELECT i, 'v' || i AS s, NULL AS n, [i::INTEGER, i::INTEGER + 1] AS l FROM range(3) t(i) ORDER BY i");
  assert.deepEqual(r.rows, [
    [0, 'v0', null, [0, 1]],
    [1, 'v1', null, [1, 2]],
    [2, 'v2', null, [2, 3]],
  ]);
  assert.equal(r.truncated, false);
  assert.equal(r.cut_values, 0);
  assert.equal(r.note, undefined);
});

test('multi-byte text, emoji and characters JSON escapes are cut on a whole character, under the cap', async () => {
  for (const unit of ['é', '😀', '\\u0001', 'a"b\\\\']) {
    const expr = unit === '\\u0001' ? 'chr(1)' : `'${unit}'`;
    const r = await q(`SELECT repeat(${expr}, 200000) AS v`, 4096);
    const v = r.rows[0][0] as string;
    assert.match(v, /…\[cut \d+\.\d KB\]$/, unit);
    assert.doesNotMatch(v, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, `${unit}: no lone high surrogate`);
    assert.ok(Buffer.from(v, 'utf8').toString('utf8') === v, `${unit}: valid UTF-16`);
    assert.ok(objectBytes(r) <= 4096, `${unit}: ${objectBytes(r)} bytes`);
    assert.ok(v.length > 50, `${unit}: something is kept (${v.length})`);
  }
});

test('a long list or struct is cut as JSON text', async () => {
  const r = await q('SELECT list(i::INTEGER) AS l, {a: repeat(\'s\', 100000)} AS st FROM range(100000) t(i)', 8192);
  const [l, st] = r.rows[0] as string[];
  assert.match(l, /^\[0,1,2,.*…\[cut \d+\.\d KB\]$/);
  assert.match(st, /^\{"a":"sss.*…\[cut \d+\.\d KB\]$/);
  assert.equal(r.cut_values, 2);
  assert.ok(objectBytes(r) <= 8192);
});

test('the limit and the cap both mark the answer truncated; only the cap adds a note', async () => {
  const byLimit = await q('SELECT i FROM range(10) t(i)', 8192, 3);
  assert.equal(byLimit.rows.length, 3);
  assert.equal(byLimit.truncated, true);
  assert.equal(byLimit.note, undefined);
  // Exactly the limit, across a chunk boundary (DuckDB's vectors hold 2048 rows): not truncated.
  const exact = await q('SELECT i FROM range(2048) t(i)', 1 << 20, 2048);
  assert.equal(exact.rows.length, 2048);
  assert.equal(exact.truncated, false);
  const byCap = await q("SELECT i, repeat('x', 500) AS v FROM range(1000) t(i)", 8192, 1000);
  assert.equal(byCap.truncated, true);
  assert.ok(byCap.rows.length > 1 && byCap.rows.length < 1000);
  assert.equal(byCap.cut_values, 0, 'rows stop before any value needs cutting');
  assert.match(byCap.note ?? '', /^rows stop at \d+, where the answer reached its 8\.0 KB cap/);
  assert.ok(objectBytes(byCap) <= 8192);
});

test('an aborted signal interrupts the running statement; the connection serves on', async () => {
  const ac = new AbortController();
  const running = readOnlyQuery(conn, 'SELECT sum(i) FROM range(1000000000000) t(i)', { limit: 1, maxBytes: 8192, timeoutMs: 0, signal: ac.signal });
  setTimeout(() => ac.abort(), 300);
  await assert.rejects(running, (e: unknown) => e instanceof BrainError && e.code === 'sql-cancelled');
  const after = await q('SELECT 7 AS x');
  assert.deepEqual(after.rows, [[7]]);
  // Aborted before it starts: nothing runs.
  await assert.rejects(readOnlyQuery(conn, 'SELECT 1', { limit: 1, maxBytes: 8192, timeoutMs: 0, signal: AbortSignal.abort() }), /cancelled/);
});
