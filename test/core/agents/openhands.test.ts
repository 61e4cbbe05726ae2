// OpenHands conversations, end to end, on a conversation folder built field for field from the
// OpenHands agent SDK's models (test/fixtures/SOURCES.md): an event a file, the state beside them.
// The files are parts of one session everywhere: the index counts and titles one session, show
// reads its events in order, search cites the event's own file, and derived.* and brain stats
// count one session with the state's tokens.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../../helpers/env';
import { openhands as rawOpenhands } from '../../helpers/rawusage';
import { readTurns } from '../../../src/core/index/read';
import { capture } from '../../../src/core/floor/capture';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { search, readSession, verify } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { agentByLane } from '../../../src/core/agents';

const ID = '8c1f4d2ea7b94e0f9d3c6b5a4e2f1d0c';
const DIR = path.join(FIXTURES, 'openhands', 'conversations', ID);
const events = fs.readdirSync(path.join(DIR, 'events')).sort();

test('an event a file: each read on its own, numbered from its event number', () => {
  const got = events.map((e) => {
    const r = readTurns(path.join(DIR, 'events', e), 'openhands', `${ID}/events/${e}`, { full: true, tail: true });
    assert.ok(r, e);
    assert.equal(r.counts.bad, 0);
    return r.turns.map((t) => [Number(e.slice(6, 11)), t.n, t.role, t.kind, t.text, t.tools.map((u) => [u.name, u.is_error])]);
  });
  assert.deepEqual(got.flat(), [
    [0, 1, 'system', 'instructions', 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.', []],
    [1, 5, 'user', 'prompt', 'How many lines does README.md have?', []],
    [2, 9, 'assistant', 'reply', "I'll count them with wc.", [['terminal', false]]],
    [3, 13, 'tool', 'output', '42 README.md', [['terminal', false]]],
    [4, 17, 'assistant', 'reply', '', [['file_editor', false]]],
    [5, 21, 'tool', 'output', 'ERROR: The path /workspace/project/NOTES.md does not exist.', [['file_editor', true]]],
    [6, 25, 'assistant', 'reply', 'README.md has 42 lines. There is no NOTES.md.', []],
  ]);
  // The state holds no turns; its accumulated counts are the session's tokens (input without what
  // was read from the cache).
  const state = readTurns(path.join(DIR, 'base_state.json'), 'openhands', `${ID}/base_state.json`, { full: true, tail: true });
  assert.ok(state);
  assert.deepEqual(state.turns, []);
  const raw = rawOpenhands(path.join(DIR, 'base_state.json'));
  assert.deepEqual(state.facts.unclaimed_tokens, { input: raw.input, output: raw.output, cache_creation: raw.cacheCreation, cache_read: raw.cacheRead });
});

let sb: Sandbox;

before(async () => {
  sb = sandbox({ name: 'openhands' });
  const home = path.join(sb.home, '.openhands', 'conversations', ID);
  fs.mkdirSync(path.join(home, 'events'), { recursive: true });
  fs.copyFileSync(path.join(DIR, 'base_state.json'), path.join(home, 'base_state.json'));
  // The events come one pass at a time, as a conversation goes on.
  for (const e of events) {
    fs.copyFileSync(path.join(DIR, 'events', e), path.join(home, 'events', e));
    if (e.startsWith('event-00003') || e === events[events.length - 1]) await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  }
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    o.index.update();
  } finally {
    o.index.close();
  }
  await rebuildCache(sb.brain);
});
after(() => sb.cleanup());

test('one session everywhere: index, show, search, derived.*, brain stats', async () => {
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const rows = o.index.findSessions(ID);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].turns, 4, 'a prompt and three replies');
    assert.equal(rows[0].title, 'How many lines does README.md have?');
    assert.equal(o.index.db.prepare(`SELECT count(*) FROM sessions WHERE lane = 'openhands'`).pluck().get(), 1);
  } finally {
    o.index.close();
  }
  const shown = readSession({ session: ID }, sb.env);
  assert.deepEqual(shown.turns.map((t) => t.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  assert.ok(shown.turns.every((t, i) => t.citation.lake_path.endsWith(`/${events[i]}`)), 'each cites its own file');
  assert.equal(shown.session.turns, 4);
  const hit = search({ term: 'There is no NOTES.md', agent: 'openhands' }, sb.env).hits.find((h) => h.session === ID);
  assert.ok(hit);
  assert.ok(hit.snippets[0].citation.lake_path.endsWith(events[6]));
  assert.ok(verify({ citation: hit.snippets[0].citation }, sb.env).ok);
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1000, timeZone: 'UTC' })).rows;
  const [[users, replies]] = await q(`SELECT count(*) FILTER (WHERE role = 'user'), count(*) FILTER (WHERE role = 'assistant') FROM derived.messages WHERE agent = 'openhands'`);
  assert.deepEqual([Number(users), Number(replies)], [1, 3]);
  const calls = await q(`SELECT tool_name, is_error, arguments FROM derived.calls WHERE agent = 'openhands' ORDER BY tool_name`);
  assert.deepEqual(calls.map((c) => [c[0], c[1]]), [['file_editor', true], ['terminal', false]]);
  assert.equal(JSON.parse(String(calls[1][2])).command, 'wc -l README.md');
  const projects = await q(`SELECT DISTINCT project FROM derived.sessions WHERE agent = 'openhands'`);
  assert.deepEqual(projects, [['/workspace/project']]);
  const raw = rawOpenhands(path.join(DIR, 'base_state.json'));
  const st = await statsReport(sb.brain, 'agent', { env: sb.env });
  const r = st.rows.find((x) => x.key === 'openhands');
  assert.ok(r);
  assert.equal(r.sessions, 1);
  assert.equal(r.turns, 4);
  assert.deepEqual([r.tokens.input, r.tokens.output, r.tokens.cache_creation, r.tokens.cache_read], [raw.input, raw.output, raw.cacheCreation, raw.cacheRead]);
  // show: the state's accumulated counts are the session's tokens (no event carries any).
  assert.ok(raw.input > 0 && raw.cacheRead > 0);
  assert.deepEqual(shown.session.tokens, { input: raw.input, output: raw.output, cache_creation: raw.cacheCreation, cache_read: raw.cacheRead });
  assert.equal(r.tool_calls, 2);
  assert.equal(r.tool_failures, 1);
});

test('paths: ~/.openhands/conversations, its parts, Windows', () => {
  const a = agentByLane('openhands');
  assert.ok(a);
  const [root] = a.roots({ HOME: '/home/ana' });
  assert.equal(root.dir, '/home/ana/.openhands/conversations');
  assert.ok(root.include(`${ID}/base_state.json`) && root.include(`${ID}/events/${events[0]}`));
  assert.ok(!root.include(`${ID}/events/notes.txt`) && !root.include(`${ID}/other.json`));
  assert.equal(a.roots({ HOME: 'C:\\Users\\Ana', BRAIN_PLATFORM: 'win32' })[0].dir, 'C:\\Users\\Ana\\.openhands\\conversations');
  assert.equal(a.sessionOf(`${ID}/events/${events[2]}`), ID);
  assert.equal(a.partOf?.(`${ID}/events/${events[2]}`), ID);
  assert.ok(a.rewritesWhole?.(`${ID}/base_state.json`) && !a.rewritesWhole?.(`${ID}/events/${events[2]}`));
});
