// The SQL limits: how durations and sizes are written, [sql] in config.toml (checked with the rest of
// the file, read alone by sqlLimits so a broken [store] does not stop a query), and the
// environment over the file over the defaults.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { DEFAULT_SQL_TIMEOUT_MS, DEFAULT_TOOL_MAX_BYTES, parseMaxBytes, parseTimeout, sqlLimits } from '../../../src/core/sqllimits';
import { renderConfig, validateConfig } from '../../../src/core/config';
import { BrainError } from '../../../src/core/errors';
import { sandbox, type Sandbox } from '../../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'sql-limits' });
  fs.mkdirSync(sb.brain, { recursive: true });
});
after(() => sb.cleanup());

test('durations and sizes', () => {
  assert.equal(parseTimeout(30), 30_000);
  assert.equal(parseTimeout('1.5s'), 1500);
  assert.equal(parseTimeout('500ms'), 500);
  assert.equal(parseTimeout('2m'), 120_000);
  assert.equal(parseTimeout('1h'), 3_600_000);
  assert.equal(parseTimeout(0), 0);
  for (const bad of ['soon', '-1', '2d', '', true]) assert.equal(parseTimeout(bad), null, String(bad));
  assert.equal(parseTimeout(86_401), null, 'over a day');
  assert.equal(parseMaxBytes(40_000), 40_000);
  assert.equal(parseMaxBytes('256k'), 262_144);
  assert.equal(parseMaxBytes('256KiB'), 262_144);
  assert.equal(parseMaxBytes('1m'), 1_048_576);
  for (const bad of [4095, '1g', 'lots', 1.5, -5]) assert.equal(parseMaxBytes(bad), null, String(bad));
});

test('config.toml: [sql] is a known table, and a bad key or value in it is named', () => {
  const c = validateConfig(parse('[sql]\ntimeout = "10s"\nmax_bytes = 65536\n') as Record<string, unknown>, 'x.toml', {});
  assert.equal(c.machine.length > 0, true);
  const bad = (text: string, re: RegExp) =>
    assert.throws(
      () => validateConfig(parse(text) as Record<string, unknown>, 'x.toml', {}),
      (e: unknown) => e instanceof BrainError && e.code === 'config-invalid' && re.test(e.message) && !!e.hint,
    );
  bad('[sql]\ntimeuot = 3\n', /unknown key "timeuot" in \[sql\]/);
  bad('[sql]\ntimeout = "forever"\n', /\[sql\] timeout = "forever" is not a duration/);
  bad('[sql]\nmax_bytes = 10\n', /\[sql\] max_bytes = 10 is not a size/);
  bad('sql = 3\n', /sql = 3 is not a \[sql\] table/);
  // The template's commented [sql], uncommented, is valid.
  const t = renderConfig({}).replace('# [sql]', '[sql]').replace('# timeout =', 'timeout =').replace('# max_bytes =', 'max_bytes =');
  assert.match(t, /^\[sql\]\ntimeout = "30s"\nmax_bytes = 40000$/m);
  validateConfig(parse(t) as Record<string, unknown>, 'x.toml', {});
});

test('sqlLimits: environment over config.toml over the defaults; only [sql] is read', () => {
  const file = path.join(sb.brain, 'config.toml');
  assert.deepEqual(sqlLimits(sb.brain, {}), { timeoutMs: DEFAULT_SQL_TIMEOUT_MS, maxBytes: DEFAULT_TOOL_MAX_BYTES });
  // A store disk that is not mounted makes the config invalid for sync, not for SQL.
  fs.writeFileSync(file, '[sql]\ntimeout = 5\nmax_bytes = "64k"\n[store]\npath = "/no/such/disk"\n');
  assert.deepEqual(sqlLimits(sb.brain, {}), { timeoutMs: 5000, maxBytes: 65_536 });
  assert.deepEqual(sqlLimits(sb.brain, { BRAIN_SQL_TIMEOUT: '250ms', BRAIN_SQL_MAX_BYTES: '8192' }), { timeoutMs: 250, maxBytes: 8192 });
  assert.throws(() => sqlLimits(sb.brain, { BRAIN_SQL_TIMEOUT: 'later' }), /BRAIN_SQL_TIMEOUT=later is not valid/);
  fs.writeFileSync(file, '[sql\n');
  assert.throws(() => sqlLimits(sb.brain, {}), (e: unknown) => e instanceof BrainError && e.code === 'config-unparsable');
  fs.rmSync(file);
});
