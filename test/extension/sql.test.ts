// The editor's brain_sql runs `brain sql` in a child process (worker.ts, sqlViaCli) with the command
// line sqlCommand builds: run here through the real CLI, its answer stays within the editor
// tool's size however big the value, and the configured statement timeout stops it.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlResult } from '../../src/core/cache';
import { LM_SQL_MAX_BYTES, MAX_OUTPUT, sized, sqlCommand } from '../../src/extension/recall';
import { recall } from '../../src/extension/worker/recall';
import { BrainError } from '../../src/core/errors';
import { brain, CLI, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'ext-sql' });
  const r = brain(sb, ['rebuild']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

/** What worker.ts's sqlViaCli does, without the worker thread around it. */
async function viaCli(query: string, limit: number): Promise<SqlResult> {
  const cmd = sqlCommand(query, limit, sb.brain, sb.env);
  const r = spawnSync(process.execPath, [CLI, ...cmd.args], { env: sb.env, encoding: 'utf8', timeout: cmd.killAfterMs, maxBuffer: 256 * 1024 * 1024 });
  if (r.status === 0) return JSON.parse(r.stdout) as SqlResult;
  throw new BrainError('sql', r.stderr.replace(/^brain sql:\s*/, '').split('\n')[0]);
}

const ctx = () => ({ home: sb.brain, env: sb.env, view: undefined as never, sql: viaCli });

test('brain_sql: a 50 MB value comes back cut, and the tool\'s text stays whole JSON under its size', { timeout: 120_000 }, async () => {
  const out = (await recall('sql', { query: "SELECT repeat('x', 52428800) AS v" }, ctx())) as unknown as { rows: { v: string }[]; cut_values: number; max_bytes: number; note: string };
  assert.equal(out.max_bytes, LM_SQL_MAX_BYTES);
  assert.equal(out.cut_values, 1);
  assert.match(out.rows[0].v, /…\[cut \d+\.\d MB\]$/);
  assert.match(out.note, /cut to fit/);
  const text = sized(out);
  assert.ok(text.length <= MAX_OUTPUT, `${text.length} characters`);
  assert.doesNotThrow(() => JSON.parse(text), 'not cut mid-JSON');
});

test('brain_sql: [sql] timeout stops the statement with the timeout error', { timeout: 120_000 }, async () => {
  fs.writeFileSync(path.join(sb.brain, 'config.toml'), '[sql]\ntimeout = "1s"\nmax_bytes = 8192\n');
  try {
    const cmd = sqlCommand('SELECT 1', 5, sb.brain, sb.env);
    assert.deepEqual(cmd.args.slice(0, 9), ['sql', '--json', '--limit', '5', '--max-bytes', '8192', '--timeout', '1000ms', '--']);
    await assert.rejects(recall('sql', { query: 'SELECT sum(i) FROM range(1000000000000) t(i)' }, ctx()), /ran longer than 1 s and was stopped/);
  } finally {
    fs.rmSync(path.join(sb.brain, 'config.toml'));
  }
  // A query that starts like an option is still the query.
  const r = (await recall('sql', { query: '-- a comment\nSELECT 3 AS n' }, ctx())) as { rows: unknown[] };
  assert.deepEqual(r.rows, [{ n: 3 }]);
});
