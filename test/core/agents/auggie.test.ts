// Auggie sessions, end to end, on a session document built field for field from the public
// readers of Auggie's format (test/fixtures/SOURCES.md): the dialect's turns, title and folder; a
// session rewritten whole recorded as a second generation, whose turns count once across the two
// (index, show, derived.*, brain stats), searched and cited; and where the sessions are.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../../helpers/env';
import { readTurns } from '../../../src/core/index/read';
import { capture } from '../../../src/core/floor/capture';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { search, readSession, verify } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { agentByLane } from '../../../src/core/agents';

const ID = '5f0c2b7e-3d41-4a8e-9b6c-1e2f3a4b5c6d';
const NOW = path.join(FIXTURES, 'auggie', 'sessions', `${ID}.json`);
const EARLIER = path.join(FIXTURES, 'auggie', 'earlier', `${ID}.json`);

function parse(file: string, full: boolean) {
  const r = readTurns(file, 'auggie', `${ID}.json`, { full, tail: true });
  assert.ok(r);
  return r;
}

test('a session: an exchange is a prompt and a reply at its finishing time; an empty one is none', () => {
  const doc = JSON.parse(fs.readFileSync(NOW, 'utf8'));
  const r = parse(NOW, true);
  const said = doc.chatHistory.flatMap((h: any) => [
    ...(h.exchange.request_message.trim() ? [['user', h.exchange.request_message, h.finishedAt]] : []),
    ...(h.exchange.response_text.trim() ? [['assistant', h.exchange.response_text, h.finishedAt]] : []),
  ]);
  assert.deepEqual(r.turns.map((t) => [t.role, t.text, t.ts]), said);
  assert.equal(said.length, 4);
  const lines = fs.readFileSync(NOW, 'utf8').split('\n').length - 1;
  for (const t of r.turns) assert.deepEqual([t.span.line_from, t.span.line_to], [1, lines]);
  assert.equal(r.facts.title_hint, doc.title);
  assert.equal(r.facts.native_session, ID);
  assert.equal(r.facts.cwd, '/home/ana/code/ledger');
  assert.equal(r.counts.bad, 0);
});

let sb: Sandbox;

before(async () => {
  sb = sandbox({ name: 'auggie' });
  sb.env.BRAIN_REWRITE_QUIET_SECONDS = '0';
  const origin = path.join(sb.home, '.augment', 'sessions', `${ID}.json`);
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.copyFileSync(EARLIER, origin);
  await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  fs.copyFileSync(NOW, origin);
  await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
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

test('each version is a generation; a turn both hold counts once everywhere', async () => {
  const lake = path.join(sb.brain, 'lake', 'auggie');
  assert.ok(fs.readFileSync(path.join(lake, `${ID}.json`)).equals(fs.readFileSync(EARLIER)));
  assert.ok(fs.readFileSync(path.join(lake, `${ID}.g2.json`)).equals(fs.readFileSync(NOW)));
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const [row] = o.index.findSessions(ID);
    assert.equal(row.turns, 4);
    assert.equal(row.project, '/home/ana/code/ledger');
  } finally {
    o.index.close();
  }
  assert.equal(readSession({ session: ID }, sb.env).turns.filter((t) => t.role === 'user' || t.role === 'assistant').length, 4);
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1000, timeZone: 'UTC' })).rows;
  const [[users, replies]] = await q(`SELECT count(*) FILTER (WHERE role = 'user'), count(*) FILTER (WHERE role = 'assistant') FROM derived.messages WHERE agent = 'auggie'`);
  assert.deepEqual([Number(users), Number(replies)], [2, 2]);
  const [[project]] = await q(`SELECT project FROM derived.sessions WHERE agent = 'auggie'`);
  assert.equal(project, '/home/ana/code/ledger');
  const st = await statsReport(sb.brain, 'agent', { env: sb.env });
  const r = st.rows.find((x) => x.key === 'auggie');
  assert.ok(r);
  assert.equal(r.turns, 4);
  assert.equal(r.sessions, 1);
  const hit = search({ term: 'negative zero', agent: 'auggie' }, sb.env).hits.find((x) => x.session === ID);
  assert.ok(hit);
  assert.equal(hit.matching_turns, 1, 'the prompt both versions hold, once');
  assert.ok(verify({ citation: hit.snippets[0].citation }, sb.env).ok);
});

test('paths: ~/.augment/sessions on every platform', () => {
  const a = agentByLane('auggie');
  assert.ok(a);
  assert.equal(a.roots({ HOME: '/home/ana' })[0].dir, '/home/ana/.augment/sessions');
  assert.equal(a.roots({ HOME: 'C:\\Users\\Ana', BRAIN_PLATFORM: 'win32' })[0].dir, 'C:\\Users\\Ana\\.augment\\sessions');
  assert.equal(a.sessionOf(`${ID}.json`), ID);
  assert.ok(a.rewritesWhole?.(`${ID}.json`));
  assert.equal(agentByLane('auggie'), a);
});
