// `brain mcp` driven by the MCP SDK's own client over stdio, against a floor captured from the
// fixtures by `brain record`: the tool list (the core's schemas, unchanged), search with citations
// that verify_citation confirms and sed | sha256sum confirms independently, paging through a long
// session, SQL that refuses writes, errors for bad calls, and the calling session left out.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INPUT_SCHEMAS, TOOL_NAMES, readSession } from '../../src/core/recall';
import { CLI, REPO, type Sandbox } from '../helpers/env';
import { capturedFloor, sedSha, startMcp, type Mcp } from './helpers';

const LONG = 'large-session'; // the Pi fixture: ~1 MB, 500+ turns
const GH = 'fe869ecb-c176-478f-9734-7e4b8ef12cff'; // the Claude Code session that adds a GitHub Action

let sb: Sandbox;
let mcp: Mcp;
before(async () => {
  sb = capturedFloor('mcp');
  mcp = await startMcp(sb.env);
});
after(async () => {
  await mcp?.close();
  sb?.cleanup();
});

test('lists the five tools with the core\'s input schemas, unchanged, all read-only', async () => {
  const { tools } = await mcp.client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['search', 'read_session', 'cite', 'verify_citation', 'sql'],
  );
  assert.deepEqual(
    tools.map((t) => t.name),
    [...TOOL_NAMES],
    'the core\'s names, as they are',
  );
  for (const t of tools) {
    assert.deepEqual(t.inputSchema, JSON.parse(JSON.stringify(INPUT_SCHEMAS[t.name as keyof typeof INPUT_SCHEMAS])), `${t.name}: the declared schema`);
    assert.ok(t.description && t.description.length > 40, `${t.name} has a description`);
    assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is marked read-only`);
    assert.equal(t.annotations?.destructiveHint, false);
    assert.equal(t.annotations?.openWorldHint, false);
  }
  const info = mcp.client.getServerVersion();
  assert.equal(info?.name, 'agent-brain');
  assert.equal(info?.version, JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version, 'the version is package.json\'s');
  assert.match(mcp.client.getInstructions() ?? '', /citation/);
});

test('search finds the right session first, with citations verify_citation and sed | sha256sum both confirm', async () => {
  const r = await mcp.call('search', { term: 'GitHub Action' });
  assert.equal(r.isError, false, r.text);
  assert.ok(r.json.total >= 2, `several sessions mention it: ${r.json.header}`);
  const top = r.json.hits[0];
  // The session where user and assistant talked about it beats those where only tool output did.
  assert.equal(top.session, GH);
  assert.equal(top.tier, 'turns');
  assert.ok(r.json.hits.slice(1).every((h: { tier: string; session: string }) => h.session !== GH));
  assert.ok(top.snippets.length >= 1);
  for (const s of top.snippets) {
    assert.match(s.text.toLowerCase(), /github action/);
    const c = s.citation;
    const file = path.join(sb.brain, c.lake_path);
    // Independently of brain: the shell's sed and sha256sum over the floor file.
    assert.equal(sedSha(file, c.line_from, c.line_to), c.sha256, `sed -n '${c.line_from},${c.line_to}p' ${c.lake_path} | sha256sum`);
    // The cited lines are the ones that say it.
    const lines = fs.readFileSync(file, 'utf8').split('\n').slice(c.line_from - 1, c.line_to).join('\n');
    assert.match(lines.toLowerCase(), /github action/);
    const v = await mcp.call('verify_citation', { citation: c });
    assert.equal(v.isError, false, v.text);
    assert.equal(v.json.ok, true, v.text);
    assert.equal(v.json.sha256, c.sha256);
    // cite makes the same citation from the path and lines alone.
    const again = await mcp.call('cite', { lake_path: c.lake_path, line_from: c.line_from, line_to: c.line_to });
    assert.deepEqual(again.json, c);
  }
  // A citation whose hash does not match is reported, not confirmed.
  const bad = await mcp.call('verify_citation', { citation: { ...top.snippets[0].citation, sha256: '0'.repeat(64) } });
  assert.equal(bad.isError, false);
  assert.equal(bad.json.ok, false);
  assert.match(bad.json.problem, /hash to/);
});

test('a phrase said once is found in its turn, and read_session shows that turn with the same citation', async () => {
  const r = await mcp.call('search', { term: 'does it only run on main' });
  assert.equal(r.json.hits.length, 1);
  const snip = r.json.hits[0].snippets[0];
  assert.equal(r.json.hits[0].session, GH);
  const read = await mcp.call('read_session', { session: GH, turns: String(snip.turn) });
  assert.equal(read.isError, false, read.text);
  assert.equal(read.json.turns.length, 1);
  assert.match(read.json.turns[0].text, /does it only run on main/);
  assert.deepEqual(read.json.turns[0].citation, snip.citation);
  assert.equal(read.json.next, null);
});

test('read_session pages through a long session: every turn once, in order, each page sized for a model', async () => {
  const whole = readSession({ session: LONG }, sb.env, { index: 'off' });
  assert.ok(whole.total > 300, `the fixture is long (${whole.total} turns)`);
  const seen: number[] = [];
  let turns: string | undefined;
  let pages = 0;
  let sampled = 0;
  for (;;) {
    const r = await mcp.call('read_session', turns ? { session: LONG, turns } : { session: LONG });
    assert.equal(r.isError, false, r.text);
    pages++;
    assert.ok(r.text.length <= 40_000 + 2_000, `page ${pages} is ${r.text.length} characters`);
    assert.equal(r.json.total, whole.total);
    assert.equal(r.json.session.session, LONG);
    assert.ok(r.json.turns.length >= 1);
    assert.equal(r.json.range, `${r.json.turns[0].n}..${r.json.turns[r.json.turns.length - 1].n}`);
    for (const t of r.json.turns) {
      seen.push(t.n);
      assert.ok(t.citation?.sha256, `turn ${t.n} has a citation`);
    }
    // One citation per page, re-hashed by the shell.
    const c = r.json.turns[r.json.turns.length - 1].citation;
    assert.equal(sedSha(path.join(sb.brain, c.lake_path), c.line_from, c.line_to), c.sha256);
    sampled++;
    if (!r.json.next) break;
    turns = r.json.next;
    assert.ok(pages < 500, 'paging ends');
  }
  assert.ok(pages > 3, `a long session takes several pages (${pages})`);
  assert.deepEqual(
    seen,
    whole.turns.map((t) => t.n),
    'the pages together are the whole session, in order, nothing twice',
  );
  assert.equal(sampled, pages);
  // A range is honoured exactly, and its continuation stays inside it.
  const mid = await mcp.call('read_session', { session: LONG, turns: '100..104' });
  assert.deepEqual(
    mid.json.turns.map((t: { n: number }) => t.n),
    [100, 101, 102, 103, 104],
  );
  assert.equal(mid.json.next, null);
  const past = await mcp.call('read_session', { session: LONG, turns: `${whole.total + 5}..` });
  assert.equal(past.json.turns.length, 0);
  assert.match(past.json.note, /has \d+ turns/);
});

test('sql answers a SELECT and refuses a write', async () => {
  const r = await mcp.call('sql', { query: 'SELECT agent, count(DISTINCT session_id) AS sessions FROM derived.messages GROUP BY agent ORDER BY agent' });
  assert.equal(r.isError, false, r.text);
  const agents = r.json.rows.map((x: { agent: string }) => x.agent);
  assert.ok(agents.includes('claude-code') && agents.includes('codex') && agents.includes('pi'), JSON.stringify(r.json.rows));
  assert.equal(r.json.cache, path.join(sb.brain, 'brain.duckdb'));
  for (const q of ['DROP TABLE derived.messages', "INSERT INTO floor.cache_meta VALUES ('x', 'y')", "COPY floor.files TO 'x.csv'", "ATTACH 'x.duckdb'", 'SELECT 1; DELETE FROM derived.messages']) {
    const w = await mcp.call('sql', { query: q });
    assert.equal(w.isError, true, `${q} refused`);
    assert.match(w.json.error.code, /^sql-(read-only|one-statement)$/, q);
  }
  const again = await mcp.call('sql', { query: 'SELECT count(*) AS n FROM derived.messages' });
  assert.ok(again.json.rows[0].n > 0, 'the cache is intact');
  const capped = await mcp.call('sql', { query: 'SELECT * FROM derived.messages', limit: 500 });
  assert.ok(capped.text.length <= 42_000, `a wide result is cut to fit (${capped.text.length})`);
  assert.equal(capped.json.truncated, true);
});

test('bad arguments get MCP errors that name the field; a failing call is an error result; the server goes on', async () => {
  const rpc = async (name: string, args: unknown): Promise<string> => {
    try {
      await mcp.client.callTool({ name, arguments: args as Record<string, unknown> });
    } catch (e) {
      assert.equal((e as { code?: number }).code, -32602, `${name} ${JSON.stringify(args)}: ${(e as Error).message}`);
      return (e as Error).message;
    }
    assert.fail(`${name} ${JSON.stringify(args)} was accepted`);
  };
  assert.match(await rpc('search', {}), /term is required/);
  assert.match(await rpc('search', { term: 42 }), /term must be a string/);
  assert.match(await rpc('search', { term: 'x', limit: 0 }), /limit must be at least 1/);
  assert.match(await rpc('search', { term: 'x', colour: 'red' }), /unknown field colour/);
  assert.match(await rpc('read_session', { session: LONG, turns: 'first..last' }), /turns/);
  assert.match(await rpc('cite', { lake_path: 'lake/x', line_from: 'one', line_to: 2 }), /line_from must be an integer/);
  assert.match(await rpc('verify_citation', { citation: { machine: 'testbox' } }), /citation\.lake_path is required/);
  assert.match(await rpc('sql', { query: 'SELECT 1', limit: 10_000 }), /limit must be at most 500/);
  assert.match(await rpc('no_such_tool', {}), /unknown tool "no_such_tool"/);
  assert.match(await rpc('cite', { lake_path: '../../etc/passwd', line_from: 1, line_to: 1 }), /not a path inside a floor/);
  // What the tool itself met is an error result with what to do, not a protocol error.
  const missing = await mcp.call('read_session', { session: 'no-such-session' });
  assert.equal(missing.isError, true);
  assert.equal(missing.json.error.code, 'not-found');
  assert.ok(missing.json.error.hint);
  const gone = await mcp.call('cite', { lake_path: 'lake/cc/none.jsonl', line_from: 1, line_to: 1 });
  assert.equal(gone.isError, true);
  // Still answering.
  const ok = await mcp.call('search', { term: 'does it only run on main' });
  assert.equal(ok.json.hits[0].session, GH);
});

test('a line that is not JSON-RPC, or not JSON at all, does not stop the server', async () => {
  const child = spawn(process.execPath, [CLI, 'mcp'], { env: sb.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const replies = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id?: number; result?: { tools?: unknown[] }; error?: { code: number } });
  const waitFor = async (pred: () => boolean) => {
    for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(pred(), `no answer; stdout so far: ${out}`);
  };
  const send = (s: string) => child.stdin.write(`${s}\n`);
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
  await waitFor(() => replies().some((r) => r.id === 1));
  send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": ');
  send('this is not json');
  send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: 'not an object' } }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'no/such/method', params: {} }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }));
  await waitFor(() => replies().some((r) => r.id === 5));
  const byId = new Map(replies().map((r) => [r.id, r]));
  assert.ok(byId.get(3)?.error, 'arguments that are not an object: an error');
  assert.equal(byId.get(4)?.error?.code, -32601, 'an unknown method: method not found');
  assert.equal(byId.get(5)?.result?.tools?.length, 5, 'and the server still answers');
  assert.equal(child.exitCode, null, 'still running');
  child.stdin.end();
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(code, 0, 'exits 0 when the client closes stdin');
});

test('the calling session is left out: from Claude Code\'s environment, from Codex\'s _meta, or by argument', async () => {
  const all = await mcp.call('search', { term: 'GitHub Action' });
  assert.equal(all.json.skipped, null);
  assert.equal(all.json.hits[0].session, GH);

  // Claude Code starts its MCP servers with CLAUDE_CODE_SESSION_ID (checked with 2.1.197).
  const cc = await startMcp({ ...sb.env, CLAUDE_CODE_SESSION_ID: GH });
  try {
    const r = await cc.call('search', { term: 'GitHub Action' });
    assert.deepEqual(r.json.skipped, { session: GH, source: 'env CLAUDE_CODE_SESSION_ID' });
    assert.ok(r.json.hits.every((h: { session: string }) => h.session !== GH), 'the asking session is not listed');
    assert.equal(r.json.total, all.json.total - 1);
    // An explicit empty skip asks for everything.
    const every = await cc.call('search', { term: 'GitHub Action', skip: '' });
    assert.equal(every.json.skipped, null);
    assert.equal(every.json.hits[0].session, GH);
  } finally {
    await cc.close();
  }

  // Codex sends its thread id with each call (_meta.threadId, checked with 0.171); both copies of
  // that thread in the fixtures carry it as their native id.
  const thread = '019c4b43-1451-7af3-be4c-5576369bf1ba';
  const before = await mcp.call('search', { term: 'greeting function' });
  assert.equal(before.json.total, 2);
  const codex = await mcp.call('search', { term: 'greeting function' }, { threadId: thread, sessionId: thread, 'x-codex-turn-metadata': { session_id: thread } });
  assert.deepEqual(codex.json.skipped, { session: thread, source: '_meta.threadId' });
  assert.equal(codex.json.total, 0);

  // The argument wins over both.
  const arg = await mcp.call('search', { term: 'GitHub Action', skip: GH }, { threadId: thread });
  assert.deepEqual(arg.json.skipped, { session: GH, source: 'argument skip' });
  assert.ok(arg.json.hits.every((h: { session: string }) => h.session !== GH));
});
