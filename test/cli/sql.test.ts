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
  // One row per agent the fixtures hold messages of, in order.
  const names = lines.slice(2, -1).map((l) => l.split(/\s+/)[0]);
  assert.deepEqual(names, [...names].sort());
  for (const a of ['claude-code', 'codex', 'copilot-chat', 'cursor-agent', 'gemini-cli', 'pi', 'cline', 'continue-dev']) assert.ok(names.includes(a), `${a} in ${names.join(', ')}`);
  assert.match(lines[lines.length - 1], new RegExp(`\\(${names.length} rows\\)`));
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

test('long cells are cut to the width COLUMNS asks for', () => {
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

const FOREVER = 'SELECT sum(i) AS s FROM range(1000000000000) t(i)';

test('a statement past its time is stopped: --timeout, BRAIN_SQL_TIMEOUT, [sql] timeout; exit 3 with what to do', () => {
  const r = brain(sb, ['sql', '--timeout', '1', FOREVER], { timeout: 60_000 });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /^brain sql: the statement ran longer than 1 s and was stopped\n  .*--timeout/);
  assert.equal(r.stdout, '');
  const env = brain(sb, ['sql', FOREVER], { env: { BRAIN_SQL_TIMEOUT: '500ms' }, timeout: 60_000 });
  assert.equal(env.status, 3, env.stderr);
  assert.match(env.stderr, /longer than 0\.5 s/);
  const cfg = path.join(sb.brain, 'config.toml');
  fs.writeFileSync(cfg, '[sql]\ntimeout = 1\n');
  try {
    const c = brain(sb, ['sql', FOREVER], { timeout: 60_000 });
    assert.equal(c.status, 3, c.stderr);
    assert.match(c.stderr, /longer than 1 s/);
    // The flag wins over the file.
    const f = brain(sb, ['sql', '--timeout', '30', 'SELECT 1 AS one']);
    assert.equal(f.status, 0, f.stderr);
  } finally {
    fs.rmSync(cfg);
  }
  const bad = brain(sb, ['sql', '--timeout', 'soon', 'SELECT 1']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--timeout soon is not a duration/);
});

test('the answer is bounded in bytes: a 50 MB value is cut with a marker, by default and with --max-bytes', () => {
  const big = "SELECT 'k' AS k, repeat('x', 52428800) AS v";
  const d = brain(sb, ['sql', '--json', big]);
  assert.equal(d.status, 0, d.stderr);
  assert.ok(Buffer.byteLength(d.stdout) <= 8 * 1024 * 1024 + 1, `${Buffer.byteLength(d.stdout)} bytes`);
  const j = JSON.parse(d.stdout);
  assert.equal(j.rows[0][0], 'k');
  assert.match(j.rows[0][1], /^x+…\[cut \d+\.\d MB\]$/);
  assert.equal(j.cut_values, 1);
  const s = brain(sb, ['sql', '--json', '--max-bytes', '8k', big]);
  assert.equal(s.status, 0, s.stderr);
  assert.ok(Buffer.byteLength(s.stdout) <= 8192 + 1, `${Buffer.byteLength(s.stdout)} bytes`);
  assert.equal(JSON.parse(s.stdout).max_bytes, 8192);
  // Many long rows: reading stops at the cap, and the table says how to see more.
  const rows = brain(sb, ['sql', '--max-bytes', '16k', "SELECT i, repeat('y', 100000) AS v FROM range(1000) t(i)"]);
  assert.equal(rows.status, 0, rows.stderr);
  assert.match(rows.stdout, /rows stop at \d+, where the answer reached its 16\.0 KB cap/);
  assert.match(rows.stdout, /\(first \d+ rows; more exist: --max-bytes N/);
  const bad = brain(sb, ['sql', '--max-bytes', '100', 'SELECT 1']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--max-bytes 100 is not a size between 4 KiB and 1 GiB/);
});

test('brain sql --json says an error as JSON on stdout, with its code, message and hint', () => {
  const r = brain(sb, ['sql', '--json', 'SELECT nope FROM nowhere']);
  assert.equal(r.status, 3, r.stderr);
  const j = JSON.parse(r.stdout.trim());
  assert.equal(typeof j.error, 'string');
  assert.match(j.message, /nowhere/);
  assert.match(j.hint ?? '', /derived\.messages/);
  // A usage error too, with exit 2.
  const u = brain(sb, ['sql', '--json', '   ']);
  assert.equal(u.status, 2);
  assert.deepEqual(Object.keys(JSON.parse(u.stdout.trim())).sort(), ['error', 'hint', 'message']);
  assert.equal(JSON.parse(u.stdout.trim()).error, 'usage');
});
