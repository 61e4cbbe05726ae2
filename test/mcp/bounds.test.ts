// `brain mcp` under hostile input, spawned over stdio with a real DuckDB cache: an answer never
// grows past its byte cap however big the values are (cut with a marker that says so), a statement
// that runs for ever is interrupted by its timeout and the server serves on, closing stdin in the
// middle of a query ends the process, and a line that is not JSON gets a -32700 answer.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, CLI, sandbox, type Sandbox } from '../helpers/env';
import { startMcp, type Mcp } from './helpers';

const CAP = 40_000; // DEFAULT_TOOL_MAX_BYTES
const FOREVER = 'SELECT sum(i) AS s FROM range(1000000000000) t(i)';

let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'mcp-bounds' });
  const r = brain(sb, ['rebuild']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb?.cleanup());

/** Each test has its own server, so one that dies of an unbounded answer takes no other with it. */
async function withMcp<T>(env: NodeJS.ProcessEnv, fn: (m: Mcp) => Promise<T>): Promise<T> {
  const m = await startMcp(env);
  try {
    return await fn(m);
  } finally {
    await m.close();
  }
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
// The tests of the byte cap are not about the time limit: on a loaded machine the first query
// (which builds the cache) can pass 30 s, so they allow more.
const roomy = () => ({ ...sb.env, BRAIN_SQL_TIMEOUT: '300' });

test('one 50 MB value comes back cut, under the cap, with a marker and a note', { timeout: 360_000 }, async () => {
  const r = await withMcp(roomy(), (mcp) => mcp.call('sql', { query: "SELECT 'head' AS k, repeat('x', 52428800) AS v" }));
  assert.equal(r.isError, false, r.text.slice(0, 500));
  assert.ok(bytes(r.text) <= CAP, `answer is ${bytes(r.text)} bytes`);
  const row = r.json.rows[0];
  assert.equal(row.k, 'head', 'short values stay whole');
  assert.match(row.v, /^x+…\[cut \d+\.\d MB\]$/);
  assert.ok(row.v.length > 1000, 'the kept part is still useful');
  assert.equal(r.json.cut_values, 1);
  assert.equal(r.json.max_bytes, CAP);
  assert.match(r.json.note, /1 value was cut.*substr/);
});

test('500 rows of 1 MB: the answer stops at the cap and says how to ask for less', { timeout: 360_000 }, async () => {
  const r = await withMcp(roomy(), (mcp) => mcp.call('sql', { query: "SELECT i, repeat('y', 1048576) AS v FROM range(500) t(i)", limit: 500 }));
  assert.equal(r.isError, false, r.text.slice(0, 500));
  assert.ok(bytes(r.text) <= CAP, `answer is ${bytes(r.text)} bytes`);
  assert.equal(r.json.truncated, true);
  assert.ok(r.json.rows.length >= 1 && r.json.rows.length < 500);
  assert.deepEqual(
    r.json.rows.map((x: { i: number }) => x.i),
    r.json.rows.map((_: unknown, k: number) => k),
    'the first rows, in order',
  );
  for (const x of r.json.rows) assert.match(x.v, /…\[cut \d+\.\d KB\]$/);
  assert.match(r.json.note, /rows stop at \d+, where the answer reached its 39\.1 KB cap/);
});

test('the cap follows BRAIN_SQL_MAX_BYTES and [sql] max_bytes in config.toml', { timeout: 120_000 }, async () => {
  const q = { query: "SELECT repeat('z', 1000000) AS v" };
  await withMcp({ ...sb.env, BRAIN_SQL_MAX_BYTES: '8k' }, async (mcp) => {
    const r = await mcp.call('sql', q);
    assert.equal(r.isError, false, r.text.slice(0, 500));
    assert.ok(bytes(r.text) <= 8192, `answer is ${bytes(r.text)} bytes`);
    assert.equal(r.json.max_bytes, 8192);
  });
  fs.writeFileSync(path.join(sb.brain, 'config.toml'), '[sql]\nmax_bytes = 6000\n');
  try {
    await withMcp(sb.env, async (mcp) => {
      const r = await mcp.call('sql', q);
      assert.ok(bytes(r.text) <= 6000, `answer is ${bytes(r.text)} bytes`);
      assert.equal(r.json.max_bytes, 6000);
      // A bad value is named, with what to write (the file is read at each call).
      fs.writeFileSync(path.join(sb.brain, 'config.toml'), '[sql]\nmax_bytes = "lots"\n');
      const bad = await mcp.call('sql', q);
      assert.equal(bad.isError, true);
      assert.equal(bad.json.error.code, 'config-invalid');
      assert.match(bad.json.error.message, /\[sql\] max_bytes = "lots"/);
    });
  } finally {
    fs.rmSync(path.join(sb.brain, 'config.toml'), { force: true });
  }
});

test('a statement that runs for ever is interrupted at the configured timeout; the server serves on', { timeout: 120_000 }, async () => {
  fs.writeFileSync(path.join(sb.brain, 'config.toml'), '[sql]\ntimeout = "1s"\n');
  try {
    await withMcp(sb.env, async (mcp) => {
      const r = await mcp.call('sql', { query: FOREVER });
      assert.equal(r.isError, true, r.text);
      assert.equal(r.json.error.code, 'sql-timeout');
      assert.match(r.json.error.message, /ran longer than 1 s and was stopped/);
      assert.match(r.json.error.hint, /\[sql\] timeout/);
      const next = await mcp.call('sql', { query: 'SELECT 42 AS x' });
      assert.equal(next.isError, false, next.text);
      assert.deepEqual(next.json.rows, [{ x: 42 }]);
    });
  } finally {
    fs.rmSync(path.join(sb.brain, 'config.toml'), { force: true });
  }
  // The environment sets it too.
  await withMcp({ ...sb.env, BRAIN_SQL_TIMEOUT: '500ms' }, async (mcp) => {
    const r = await mcp.call('sql', { query: FOREVER });
    assert.equal(r.json.error?.code, 'sql-timeout', r.text);
    assert.match(r.json.error.message, /longer than 0\.5 s/);
  });
});

/** `brain mcp` on raw pipes, initialized. */
async function rawServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcessWithoutNullStreams; replies: () => Array<{ id?: unknown; result?: { tools?: unknown[] }; error?: { code: number; message: string } }>; waitFor: (pred: () => boolean, what: string) => Promise<void>; send: (s: string) => void }> {
  const child = spawn(process.execPath, [CLI, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const replies = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const waitFor = async (pred: () => boolean, what: string) => {
    for (let i = 0; i < 400 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(pred(), `${what}; stdout so far: ${out.slice(0, 2000)}`);
  };
  const send = (s: string) => child.stdin.write(`${s}\n`);
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
  await waitFor(() => replies().some((r) => r.id === 1), 'initialize answered');
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { child, replies, waitFor, send };
}

/** User + system CPU time of a process, in clock ticks. */
function ownTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** Direct children of `pid` (the server runs each SQL statement in a `brain sql` child). */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU ticks of the server and its children. */
function cpuTicks(pid: number): number {
  return ownTicks(pid) + childrenOf(pid).reduce((a, c) => a + ownTicks(c), 0);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test('closing stdin in the middle of a query ends the server', { timeout: 60_000 }, async () => {
  // A statement limit far beyond the test: only the client going away can end it.
  const s = await rawServer({ ...sb.env, BRAIN_SQL_TIMEOUT: '1h' });
  const exited = new Promise<number | null>((r) => s.child.once('exit', r));
  const idle = cpuTicks(s.child.pid!);
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sql', arguments: { query: FOREVER } } }));
  // The query is running once the server burns CPU (half a second of it).
  for (let i = 0; i < 200 && cpuTicks(s.child.pid!) - idle < 50; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(cpuTicks(s.child.pid!) - idle >= 50, 'the query started');
  assert.equal(s.child.exitCode, null);
  const kids = childrenOf(s.child.pid!);
  s.child.stdin.end();
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  for (let i = 0; i < 200 && code === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  if (code === undefined) s.child.kill('SIGKILL');
  assert.notEqual(code, undefined, 'the server exited within 10 s of stdin closing');
  assert.equal(code, 0);
  // The statement's process went with it.
  for (let i = 0; i < 40 && kids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(kids.filter(alive), [], 'no query process left running');
});

test('a line that is not JSON gets a -32700 parse error with id null, and the server serves on', { timeout: 60_000 }, async () => {
  const s = await rawServer(sb.env);
  try {
    s.send('this is not json');
    s.send('{"jsonrpc": "2.0", "id": 7, "method": "tools/list"');
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }));
    await s.waitFor(() => s.replies().some((r) => r.id === 8), 'tools/list answered');
    const errors = s.replies().filter((r) => r.id === null);
    assert.equal(errors.length, 2, JSON.stringify(s.replies().map((r) => r.error ?? r.id)));
    for (const e of errors) {
      assert.equal(e.error?.code, -32700);
      assert.match(e.error?.message ?? '', /^Parse error/);
    }
    // JSON that is not a JSON-RPC message is an invalid request, answered with its id.
    s.send(JSON.stringify({ id: 9, hello: 'world' }));
    await s.waitFor(() => s.replies().some((r) => r.id === 9), 'the invalid request answered');
    assert.equal(s.replies().find((r) => r.id === 9)?.error?.code, -32600);
    assert.equal(s.replies().find((r) => r.id === 8)?.result?.tools?.length, 5);
  } finally {
    s.child.stdin.end();
    await new Promise((r) => s.child.once('exit', r));
  }
});
