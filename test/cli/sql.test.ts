// brain sql through the built CLI: table output that fits the terminal, --json, --limit, a write
// refused with exit 3 and a message that says so, the cache built on first use.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-sql' });
  const r = brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

test('brain sql builds the cache on first use and prints a table', () => {
  assert.equal(fs.existsSync(path.join(sb.brain, 'brain.duckdb')), false);
  const r = brain(sb, ['sql', 'SELECT agent, count(*) AS n FROM derived.messages GROUP BY agent ORDER BY agent']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^agent\s+n$/);
  assert.match(lines[1], /^─+\s+─+$/);
  assert.deepEqual(lines.slice(2, 8).map((l) => l.split(/\s+/)[0]), ['claude-code', 'codex', 'copilot-chat', 'cursor-agent', 'gemini-cli', 'pi']);
  assert.match(lines[lines.length - 1], /\(6 rows\)/);
  assert.ok(fs.existsSync(path.join(sb.brain, 'brain.duckdb')));
});

test('brain sql --json gives columns, rows and truncated', () => {
  const r = brain(sb, ['sql', '--json', '--limit', '3', 'SELECT line_no, raw_line FROM floor.raw_lines ORDER BY file_id, line_no']);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.deepEqual(j.columns, [{ name: 'line_no', type: 'INTEGER' }, { name: 'raw_line', type: 'VARCHAR' }]);
  assert.equal(j.rows.length, 3);
  assert.equal(j.truncated, true);
});

test('long cells are cut to the terminal width', () => {
  const r = brain(sb, ['sql', 'SELECT raw_line FROM floor.raw_lines WHERE length(raw_line) > 500 LIMIT 3'], { env: { COLUMNS: '60' } });
  assert.equal(r.status, 0, r.stderr);
  for (const l of r.stdout.trimEnd().split('\n')) assert.ok(l.length <= 120, `${l.length}: ${l.slice(0, 40)}`);
  assert.match(r.stdout, /…/);
});

test('brain sql refuses writes: exit 3, a clear message, nothing written', () => {
  for (const q of ['INSERT INTO floor.cache_meta VALUES (1, 2)', 'CREATE TABLE x (a INT)', "COPY floor.files TO 'out.csv'", "ATTACH 'x.duckdb'", 'INSTALL httpfs']) {
    const r = brain(sb, ['sql', q]);
    assert.equal(r.status, 3, q);
    assert.match(r.stderr, /brain sql: brain sql is read-only: \w+ statements are refused\./, q);
    assert.equal(r.stdout, '');
  }
  assert.equal(fs.existsSync('out.csv'), false);
  const r = brain(sb, ['sql']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no query given/);
});
