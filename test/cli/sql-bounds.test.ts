// `brain sql` holds its timeout and byte cap for any statement, however big the one value it builds:
// DuckDB's memory is capped for a query, a long list or text is read only as far as the answer can
// carry, and a scalar function that neither stops when interrupted nor counts against DuckDB's
// limit is ended with its process. Peak memory is measured with /usr/bin/time around the command
// (a generous bound: the point is that it is bounded, not how fast).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, sandbox, type Sandbox } from '../helpers/env';

const TIME = '/usr/bin/time';
let sb: Sandbox;
before(() => {
  assert.ok(fs.existsSync(TIME), `${TIME} is missing: sudo apt-get install -y time`);
  sb = sandbox({ name: 'cli-sql-bounds' });
});
after(() => sb?.cleanup());

/** brain sql under /usr/bin/time: exit status, output, peak RSS (MB) of the largest process and
 * the wall time (s). */
function measured(args: string[]) {
  const out = path.join(sb.dir, 'time.txt');
  const r = spawnSync(TIME, ['-o', out, '-f', '%M %e', process.execPath, CLI, 'sql', ...args], { env: sb.env, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
  const [kb, secs] = fs.readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, mb: kb / 1024, secs };
}

const GB = 1024;

test('list(range) over 60 million rows: ends with a clear error, within bounded memory and time', { timeout: 320_000 }, () => {
  const r = measured(['SELECT list(range) FROM range(60000000)', '--timeout', '5s', '--max-bytes', '100k']);
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /^brain sql: the statement (needed more memory|made this process hold|ran longer)/);
  assert.equal(r.stdout, '');
  assert.ok(r.mb < 2.5 * GB, `peak ${Math.round(r.mb)} MB`);
  assert.ok(r.secs < 60, `${r.secs} s`);
  // Nor is the timeout what bounds it: given time, the list is built and refused for its memory.
  const roomy = measured(['SELECT list(range) FROM range(60000000)', '--timeout', '300s', '--max-bytes', '100k']);
  assert.equal(roomy.status, 3, roomy.stderr);
  assert.match(roomy.stderr, /^brain sql: the statement (needed more memory|made this process hold)/);
  assert.ok(roomy.mb < 2.5 * GB, `peak ${Math.round(roomy.mb)} MB`);
});

test('a scalar function building one huge value (deaf to interrupts) is ended with its process', { timeout: 320_000 }, () => {
  const r = measured(['SELECT range(60000000) AS r', '--timeout', '5s', '--max-bytes', '100k']);
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /^brain sql: the statement (made this process hold|ran longer|needed more memory)/);
  assert.ok(r.mb < 3 * GB, `peak ${Math.round(r.mb)} MB`);
  assert.ok(r.secs < 60, `${r.secs} s`);
});

test('a long list, struct, text or blob comes back as its head with a marker, read no further', { timeout: 320_000 }, () => {
  const q = "SELECT list(range) AS l, {'a': range(2000000), 'b': 1} AS s, repeat('é', 80000000) AS t, repeat('ab', 40000000)::BLOB AS b FROM range(2000000)";
  const r = measured(['--json', q, '--timeout', '60s', '--max-bytes', '8k']);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Buffer.byteLength(r.stdout) <= 8192 + 1, `${Buffer.byteLength(r.stdout)} bytes`);
  const [l, s, t, b] = JSON.parse(r.stdout).rows[0] as string[];
  assert.match(l, /^\["0","1","2",.*…\[cut \d+\.\d MB\]$/);
  assert.match(s, /^\{"a":\["0","1",.*…\[cut /);
  assert.match(t, /^é+…\[cut 152\.\d MB\]$/);
  assert.match(b, /^(ab)+a?…\[cut 76\.\d MB\]$/);
  assert.ok(r.mb < 2 * GB, `peak ${Math.round(r.mb)} MB`);
});
