// The defects the one definition (src/core/truth.ts) fixed, each on a small transcript written the
// way its agent writes it, read through show (readSession), stats and derived.* alike.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { all, writeJsonl } from '../cache/helpers';
import { sandbox, type Sandbox } from '../../helpers/env';
import { rawUsage } from '../../helpers/rawusage';
import { capture } from '../../../src/core/floor/capture';
import { updateCache } from '../../../src/core/cache';
import { readSession } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { FloorView } from '../../../src/core/recall/floorview';
import { listable } from '../../../src/extension/labels';

let sb: Sandbox;
const GEM = 'a1b2c3d4-0000-4000-8000-000000000061';

before(async () => {
  sb = sandbox({ name: 'truth' });
  const cc = path.join(sb.home, '.claude', 'projects', '-tmp-p', 'cc-stream.jsonl');
  const base = { sessionId: 'cc-stream', cwd: '/tmp/p', isSidechain: false };
  writeJsonl(cc, [
    { ...base, type: 'user', timestamp: '2026-01-02T10:00:00Z', uuid: 'u1', message: { role: 'user', content: 'stream a reply' } },
    // One reply streamed over two lines: the first line's usage is the usage so far.
    { ...base, type: 'assistant', timestamp: '2026-01-02T10:00:01Z', uuid: 'a1', message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'part one' }], usage: { input_tokens: 10, output_tokens: 8, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 } } },
    { ...base, type: 'assistant', timestamp: '2026-01-02T10:00:02Z', uuid: 'a2', message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'part two' }], usage: { input_tokens: 10, output_tokens: 407, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 } } },
    { ...base, type: 'user', timestamp: '2026-01-02T10:00:03Z', uuid: 'u2', message: { role: 'user', content: '[Request interrupted by user]' } },
  ]);
  const cx = path.join(sb.home, '.codex', 'sessions', '2026', '01', '02', 'rollout-2026-01-02T10-00-00-0000aaaa-0000-7000-8000-000000000171.jsonl');
  const ev = (ts: string, payload: unknown) => ({ timestamp: ts, type: 'event_msg', payload });
  const item = (ts: string, payload: unknown) => ({ timestamp: ts, type: 'response_item', payload });
  writeJsonl(cx, [
    { timestamp: '2026-01-02T10:00:00Z', type: 'session_meta', payload: { id: '0000aaaa-0000-7000-8000-000000000171', cwd: '/tmp/cx', cli_version: '0.171.0' } },
    item('2026-01-02T10:00:00Z', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /tmp/cx\n\nbe brief' }] }),
    item('2026-01-02T10:00:00Z', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/tmp/cx</cwd>\n</environment_context>' }] }),
    item('2026-01-02T10:00:01Z', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list the files' }] }),
    ev('2026-01-02T10:00:01Z', { type: 'user_message', message: 'list the files' }),
    // A reply that is only a tool call, then one with text.
    item('2026-01-02T10:00:02Z', { type: 'function_call', name: 'shell', call_id: 'c1', arguments: '{"command":["ls"]}' }),
    ev('2026-01-02T10:00:02Z', { type: 'token_count', info: { total_token_usage: { input_tokens: 1000, cached_input_tokens: 600, cache_write_input_tokens: 50, output_tokens: 20, total_tokens: 1020 }, last_token_usage: { input_tokens: 1000, cached_input_tokens: 600, cache_write_input_tokens: 50, output_tokens: 20, total_tokens: 1020 } } }),
    item('2026-01-02T10:00:03Z', { type: 'function_call_output', call_id: 'c1', output: 'a.txt' }),
    item('2026-01-02T10:00:04Z', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'one file: a.txt' }] }),
    ev('2026-01-02T10:00:04Z', { type: 'token_count', info: { total_token_usage: { input_tokens: 2100, cached_input_tokens: 1500, cache_write_input_tokens: 50, output_tokens: 30, total_tokens: 2130 }, last_token_usage: { input_tokens: 1100, cached_input_tokens: 900, cache_write_input_tokens: 0, output_tokens: 10, total_tokens: 1110 } } }),
  ]);
  const gem = path.join(sb.home, '.gemini', 'tmp', 'proj', 'chats', `session-2026-01-02T10-00-${GEM.slice(0, 8)}.jsonl`);
  writeJsonl(gem, [
    { sessionId: GEM, projectHash: 'h', startTime: '2026-01-02T10:00:00Z', lastUpdated: '2026-01-02T10:00:05Z', kind: 'main' },
    { id: 'm0', timestamp: '2026-01-02T10:00:00Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI. Today is Friday.\n</session_context>' }] },
    { id: 'm1', timestamp: '2026-01-02T10:00:01Z', type: 'user', content: [{ text: 'rename the function' }] },
    { id: 'm2', timestamp: '2026-01-02T10:00:02Z', type: 'gemini', content: 'renamed', model: 'gemini-3', tokens: { input: 500, output: 20, cached: 200, thoughts: 5, tool: 3 } },
  ]);
  // What --resume writes first: a file with the same sessionId holding only the injected context.
  writeJsonl(path.join(sb.home, '.gemini', 'tmp', 'proj', 'chats', `session-2026-01-02T10-05-${GEM.slice(0, 8)}.jsonl`), [
    { sessionId: GEM, projectHash: 'h', startTime: '2026-01-02T10:05:00Z', lastUpdated: '2026-01-02T10:05:00Z', kind: 'main' },
    { id: 'r0', timestamp: '2026-01-02T10:05:00Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI. Today is Friday.\n</session_context>' }] },
  ]);
  // A session begun with a slash command: titled by the prompt that follows.
  const slash = path.join(sb.home, '.claude', 'projects', '-tmp-p', 'cc-slash.jsonl');
  const sl = { sessionId: 'cc-slash', cwd: '/tmp/p', isSidechain: false };
  writeJsonl(slash, [
    { ...sl, type: 'user', timestamp: '2026-01-04T10:00:00Z', uuid: 's1', message: { role: 'user', content: '<command-name>/mode</command-name>\n<command-message>mode</command-message>\n<command-args>plan</command-args>' } },
    { ...sl, type: 'user', timestamp: '2026-01-04T10:00:01Z', uuid: 's2', message: { role: 'user', content: 'plan the migration of the cache' } },
    { ...sl, type: 'assistant', timestamp: '2026-01-04T10:00:02Z', uuid: 's3', message: { id: 'msg_s', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'Here is a plan.' }] } },
  ]);
  const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  assert.ok(r.applied > 0);
  await updateCache(sb.brain, {});
});
after(() => sb.cleanup());

test("Claude Code: a streamed reply's tokens are its last line's, in show as in stats and the raw file", async () => {
  const s = readSession({ session: 'cc-stream' }, sb.env);
  const reply = s.turns.find((t) => t.role === 'assistant')!;
  assert.deepEqual(reply.tokens, { input: 10, output: 407, cache_creation: 100, cache_read: 1000 });
  const st = await statsReport(sb.brain, 'agent', { env: sb.env, agent: 'claude-code' });
  assert.equal(st.total.tokens.output, 407);
  const raw = [...rawUsage(sb.home).values()].find((t) => t.agent === 'claude-code')!;
  assert.equal(raw.output, 407);
});

test('Claude Code: an interrupt notice is no user turn, in show nor in derived.messages', async () => {
  const s = readSession({ session: 'cc-stream' }, sb.env);
  assert.equal(s.session.turns, 2);
  assert.equal(s.turns.find((t) => t.text.startsWith('[Request interrupted'))?.kind, 'notice');
  const rows = await all(sb.brain, `SELECT count(DISTINCT turn_id), count(*) FILTER (WHERE is_meta) FROM derived.messages WHERE session_id = 'cc-stream'`);
  assert.deepEqual(rows[0].map(Number), [2, 1]);
});

test("Codex: cached input apart and cache_write_input_tokens read, alike in show --json, stats and the raw file; injected context is meta; a tool-call-only reply is a turn everywhere", async () => {
  const s = readSession({ session: '0000aaaa-0000-7000-8000-000000000171' }, sb.env);
  const want = { input: 400 + 200, output: 30, cache_creation: 50, cache_read: 1500 };
  assert.deepEqual(s.session.tokens, want);
  const st = await statsReport(sb.brain, 'agent', { env: sb.env, agent: 'codex' });
  assert.deepEqual({ ...st.total.tokens, total: undefined }, { ...want, total: undefined });
  const raw = [...rawUsage(sb.home).values()].find((t) => t.agent === 'codex')!;
  assert.deepEqual([raw.input, raw.output, raw.cacheCreation, raw.cacheRead], [want.input, want.output, want.cache_creation, want.cache_read]);
  // A prompt and two replies (the first only a tool call); the two context messages are instructions.
  assert.equal(s.session.turns, 3);
  assert.equal(s.turns.filter((t) => t.kind === 'instructions' && /AGENTS\.md|environment_context/.test(t.text)).length, 2);
  assert.equal(st.total.turns, 3);
  const rows = await all(sb.brain, `SELECT count(DISTINCT turn_id), count(*) FILTER (WHERE is_meta AND role = 'user') FROM derived.messages WHERE agent = 'codex'`);
  assert.deepEqual(rows[0].map(Number), [3, 2]);
});

test('a session begun with a slash command is titled by the prompt that follows, in the index and the scan', () => {
  for (const index of ['live', 'off'] as const) assert.equal(readSession({ session: 'cc-slash' }, sb.env, { index }).session.title, 'plan the migration of the cache', index);
  const v = new FloorView(sb.brain, sb.env, { index: 'live' });
  try {
    v.refresh();
    assert.equal(v.sessions().find((x) => x.session === 'cc-slash')?.title, 'plan the migration of the cache');
  } finally {
    v.close();
  }
});

test('Gemini CLI --resume: a file holding only the injected context is no session of its own', async () => {
  const st = await statsReport(sb.brain, 'agent', { env: sb.env, agent: 'gemini-cli' });
  assert.equal(st.total.sessions, 1);
  const v = new FloorView(sb.brain, sb.env, { index: 'live' });
  try {
    v.refresh();
    const gem = v.sessions().filter((x) => x.lane === 'gemini');
    assert.equal(gem.length, 2, 'both files are on the floor');
    assert.deepEqual(listable(gem).map((x) => x.turns), [2], 'the Sessions view lists the conversation only');
  } finally {
    v.close();
  }
});

test('Gemini CLI 0.61: an injected <session_context> is no title and no turn', async () => {
  // The conversation's file (the --resume file holds the same sessionId).
  const s = readSession({ session: `session-2026-01-02T10-00-${GEM.slice(0, 8)}` }, sb.env);
  assert.equal(s.session.title, 'rename the function');
  assert.equal(s.session.turns, 2);
  assert.equal(s.turns[0].kind, 'instructions');
  const rows = await all(sb.brain, `SELECT count(DISTINCT turn_id), count(*) FILTER (WHERE is_meta) FROM derived.messages WHERE agent = 'gemini-cli'`);
  assert.deepEqual(rows[0].map(Number), [2, 2]);
  assert.deepEqual(s.session.tokens, { input: 303, output: 25, cache_creation: 0, cache_read: 200 });
});

test("a rewrite that cut the file's first line and a reply in half: one project, the oldest generation's start and id, the reply counted once", async () => {
  const rb = sandbox({ name: 'truth-rewrite' });
  try {
    const id = '0000bbbb-0000-7000-8000-000000000002';
    const file = path.join(rb.home, '.codex', 'sessions', '2026', '01', '03', `rollout-2026-01-03T09-00-00-${id}.jsonl`);
    const meta = { timestamp: '2026-01-03T09:00:00Z', type: 'session_meta', payload: { id, cwd: '/tmp/kept-project', cli_version: '0.171.0' } };
    const prompt = [
      { timestamp: '2026-01-03T09:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'explain the cache' }] } },
      { timestamp: '2026-01-03T09:00:01Z', type: 'event_msg', payload: { type: 'user_message', message: 'explain the cache' } },
    ];
    const half = { timestamp: '2026-01-03T09:00:02Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The cache holds' }] } };
    const rest = { timestamp: '2026-01-03T09:00:03Z', type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: 'more' }] } };
    writeJsonl(file, [meta, ...prompt, half]);
    const cap = () => capture({ home: rb.brain, env: rb.env, quietMs: 0, lockWaitMs: 10_000 });
    await cap();
    // The agent rewrites the file: without its first line, the reply now whole.
    writeJsonl(file, [...prompt, { ...half, payload: { ...half.payload, content: [{ type: 'output_text', text: 'The cache holds every derived table.' }] } }, rest]);
    await cap();
    const s = readSession({ session: id }, rb.env);
    assert.deepEqual(s.generations, [1, 2], 'the rewrite opened a second generation');
    assert.equal(s.session.turns, 2, 'a prompt and one reply');
    assert.equal(s.session.project, '/tmp/kept-project');
    assert.equal(s.session.started, '2026-01-03T09:00:00Z');
    const scan = readSession({ session: id }, rb.env, { index: 'off' });
    assert.equal(scan.session.turns, 2);
    assert.equal(scan.session.project, '/tmp/kept-project');
    assert.equal(scan.session.started, '2026-01-03T09:00:00Z');
    await updateCache(rb.brain, {});
    const st = await statsReport(rb.brain, 'project', { env: rb.env });
    assert.deepEqual(
      st.rows.map((r) => [r.key, r.sessions, r.turns]),
      [['/tmp/kept-project', 1, 2]],
    );
    const first = await all(rb.brain, `SELECT project, first_event FROM derived.sessions`);
    assert.deepEqual(first.map((r) => [r[0], new Date(String(r[1])).toISOString()]), [['/tmp/kept-project', '2026-01-03T09:00:00.000Z']]);
  } finally {
    rb.cleanup();
  }
});

test('show --gen 1 is titled by generation 1\'s own prompt', async () => {
  const rb = sandbox({ name: 'truth-gen-title' });
  try {
    const file = path.join(rb.home, '.claude', 'projects', '-tmp-g', 'cc-gens.jsonl');
    const b = { sessionId: 'cc-gens', cwd: '/tmp/g', isSidechain: false };
    const line = (uuid: string, ts: string, text: string) => ({ ...b, type: 'user', timestamp: ts, uuid, message: { role: 'user', content: text } });
    writeJsonl(file, [line('g1', '2026-01-05T10:00:00Z', 'how do I rotate the keys')]);
    const cap = () => capture({ home: rb.brain, env: rb.env, quietMs: 0, lockWaitMs: 10_000 });
    await cap();
    // The prompt edited in place: the file rewritten.
    writeJsonl(file, [line('g1', '2026-01-05T10:00:00Z', 'how do I rotate the signing keys safely'), line('g2', '2026-01-05T10:01:00Z', 'and the old ones?')]);
    await cap();
    const newest = readSession({ session: 'cc-gens' }, rb.env);
    assert.deepEqual(newest.generations, [1, 2]);
    assert.equal(newest.session.title, 'how do I rotate the signing keys safely');
    for (const index of ['live', 'off'] as const) {
      const g1 = readSession({ session: 'cc-gens', gen: 1 }, rb.env, { index });
      assert.equal(g1.session.title, 'how do I rotate the keys', index);
      assert.equal(g1.session.turns, 1, index);
    }
  } finally {
    rb.cleanup();
  }
});
