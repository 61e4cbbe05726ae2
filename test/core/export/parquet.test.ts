// brain export --parquet: two machines' floors synced to one ssh store (a real sshd); from machine
// A, the export holds both machines' derived tables as Hive-partitioned Parquet that DuckDB opens,
// and a second export rewrites only the machine whose floor grew.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { FIXTURES } from '../../helpers/env';
import { BETA_SESSION, PHRASE, twoMachines, type TwoMachines } from '../remote/machines';

let t: TwoMachines;
before(async () => {
  t = await twoMachines('export', { ssh: true });
});
after(() => t.cleanup());

async function query(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return (await (await c.run(sql)).getRows()) as unknown[][];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

test('both machines in Hive-partitioned Parquet that DuckDB reads; a second export rewrites only what grew', async () => {
  const dir = path.join(t.a.dir, 'parquet');
  const r = t.runA(['export', '--parquet', dir, '--json']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const j = JSON.parse(r.stdout);
  assert.deepEqual(j.machines.map((m: { machine: string; state: string }) => `${m.machine}:${m.state}`), ['alpha:written', 'beta:written']);
  assert.ok(fs.existsSync(path.join(dir, 'sessions', 'machine=beta', 'agent=claude-code')), fs.readdirSync(path.join(dir, 'sessions', 'machine=beta')).join());
  const glob = (table: string) => `read_parquet('${dir}/${table}/**/*.parquet', hive_partitioning = true)`;
  const per = new Map((await query(`SELECT machine, count(*) FROM ${glob('sessions')} GROUP BY machine`)).map(([m, n]) => [m, Number(n)]));
  assert.ok(per.get('alpha')! > 1 && per.get('beta') === 1, JSON.stringify([...per]));
  const said = await query(`SELECT DISTINCT machine, agent, session_id FROM ${glob('messages')} WHERE text ILIKE '%${PHRASE}%'`);
  assert.deepEqual(said, [['beta', 'claude-code', BETA_SESSION]]);
  for (const table of ['files', 'usage', 'tool_calls']) {
    const m = (await query(`SELECT DISTINCT machine FROM ${glob(table)} ORDER BY 1`)).map((x) => x[0]);
    assert.deepEqual(m, ['alpha', 'beta'], table);
  }

  const again = JSON.parse(t.runA(['export', '--parquet', dir, '--json']).stdout);
  assert.deepEqual(again.machines.map((m: { machine: string; state: string }) => `${m.machine}:${m.state}`), ['alpha:current', 'beta:current']);

  // Machine B records one more session and syncs: only B's partitions are written again.
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'));
  fs.writeFileSync(path.join(t.b.home, '.claude', 'projects', '-srv-beta-work', 'b37a0000-0000-4000-8000-0000000second.jsonl'), src);
  assert.equal(t.runB(['record']).status, 0);
  assert.equal(t.runB(['sync', '--now']).status, 0);
  const third = JSON.parse(t.runA(['export', '--parquet', dir, '--json']).stdout);
  assert.deepEqual(third.machines.map((m: { machine: string; state: string }) => `${m.machine}:${m.state}`), ['alpha:current', 'beta:written']);
  const n = await query(`SELECT count(*) FROM ${glob('sessions')} WHERE machine = 'beta'`);
  assert.equal(Number(n[0][0]), 2);
  // Nothing of the export's own work folder is read as a table.
  assert.ok(!fs.readdirSync(path.join(dir, 'sessions')).some((f) => f.startsWith('.')), 'no half-written partition left');
});

test('the store out of reach: this machine is exported, and the exit says the others are not', async () => {
  const dir = path.join(t.a.dir, 'parquet-down');
  await t.sshd!.stop();
  try {
    const r = t.runA(['export', '--parquet', dir]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /alpha: \d+ sessions/);
    assert.match(r.stdout, /note: other machines not exported: copying their floors from brainstore:/);
    const m = await query(`SELECT DISTINCT machine FROM read_parquet('${dir}/sessions/**/*.parquet', hive_partitioning = true)`);
    assert.deepEqual(m, [['alpha']]);
  } finally {
    await t.sshd!.start();
  }
});
