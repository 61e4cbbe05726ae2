// Kiro's agent sessions, end to end, on session files built field for field from public readers of
// Kiro's formats (test/fixtures/SOURCES.md): a .chat conversation (the person's words cut out of
// Kiro's steering rules, the identity prompt as instructions) and a workspace session (replies in
// their prompt log's words); a workspace session rewritten whole recorded as a second generation,
// its turns counted once (index, show, derived.*, brain stats); and where Kiro keeps them.
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

const BASE = path.join(FIXTURES, 'kiro_ide', 'kiro.kiroagent');
const CHAT_REL = '5e0f3c9a1b2d4e6f8a7b9c0d1e2f3a4b/9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d.chat';
const WS = 'L2hvbWUvYW5hL2NvZGUvc2hvcA';
const SID = '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7';
const SESSION_REL = `workspace-sessions/${WS}/${SID}.json`;
const EARLIER = path.join(FIXTURES, 'kiro_ide', 'earlier', `${SID}.json`);

const parse = (rel: string, file = path.join(BASE, rel)) => {
  const r = readTurns(file, 'kiro_ide', rel, { full: true, tail: true });
  assert.ok(r, rel);
  return r;
};

test('.chat: the person\'s words out of the steering rules; identity as instructions; model', () => {
  const r = parse(CHAT_REL);
  assert.deepEqual(
    r.turns.map((t) => [t.role, t.kind, t.role === 'system' ? '' : t.text]),
    [
      ['system', 'instructions', ''],
      ['assistant', 'reply', 'I will follow these instructions.'],
      ['user', 'prompt', 'Add a price filter to the product list.'],
      ['assistant', 'reply', "I'll add a min/max price filter to ProductList and wire it to the query."],
      ['tool', 'output', 'Updated src/ProductList.tsx'],
      ['assistant', 'reply', 'The filter is in place; the list now takes ?min= and ?max=.'],
    ],
  );
  assert.equal(r.turns[1].model, 'claude-sonnet-4');
  assert.equal(r.facts.native_session, 'c0ffee00-1234-4abc-9def-0123456789ab');
  assert.equal(r.facts.started, new Date(1763600000000).toISOString());
});

test('workspace session: "On it." replies in their prompt log\'s words; the folder from the path', () => {
  const r = parse(SESSION_REL);
  assert.deepEqual(r.turns.map((t) => [t.role, t.text]), [
    ['user', 'Write tests for the price filter.'],
    ['assistant', 'Added test/ProductList.test.tsx with cases for min, max and both.'],
    ['user', 'Also cover a max below the min.'],
    ['assistant', 'Added a case: a max below the min shows no products.'],
  ]);
  assert.equal(r.facts.cwd, '/home/ana/code/shop');
  assert.equal(r.facts.title_hint, 'Price filter tests');
});

let sb: Sandbox;
let kiroDir: string;

before(async () => {
  sb = sandbox({ name: 'kiro-ide' });
  sb.env.BRAIN_REWRITE_QUIET_SECONDS = '0';
  kiroDir = path.join(sb.home, '.config', 'Kiro', 'User', 'globalStorage', 'kiro.kiroagent');
  fs.cpSync(BASE, kiroDir, { recursive: true });
  // The workspace session as it was before Kiro rewrote it, then as it is.
  fs.copyFileSync(EARLIER, path.join(kiroDir, SESSION_REL));
  await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  fs.copyFileSync(path.join(BASE, SESSION_REL), path.join(kiroDir, SESSION_REL));
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

test('recorded byte for byte, the rewrite as a generation, sessions.json left alone; counted once', async () => {
  const lake = path.join(sb.brain, 'lake', 'kiro_ide');
  assert.ok(fs.readFileSync(path.join(lake, CHAT_REL)).equals(fs.readFileSync(path.join(BASE, CHAT_REL))));
  assert.ok(fs.readFileSync(path.join(lake, SESSION_REL)).equals(fs.readFileSync(EARLIER)));
  assert.ok(fs.readFileSync(path.join(lake, SESSION_REL.replace(/\.json$/, '.g2.json'))).equals(fs.readFileSync(path.join(BASE, SESSION_REL))));
  assert.ok(!fs.existsSync(path.join(lake, 'workspace-sessions', WS, 'sessions.json')));
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const [ws] = o.index.findSessions(SID);
    assert.equal(ws.turns, 4);
    assert.equal(ws.project, '/home/ana/code/shop');
    const [chat] = o.index.findSessions('9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d');
    assert.equal(chat.turns, 4);
    assert.equal(chat.title, 'Add a price filter to the product list.');
  } finally {
    o.index.close();
  }
  assert.equal(readSession({ session: SID }, sb.env).turns.length, 4);
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1000, timeZone: 'UTC' })).rows;
  const rows = await q(`SELECT session_id, role, text FROM derived.messages WHERE agent = 'kiro-ide' ORDER BY session_id, line_no, msg_id`);
  const byRole = (sid: string, role: string) => rows.filter((r) => r[0] === sid && r[1] === role).length;
  assert.deepEqual([byRole(SID, 'user'), byRole(SID, 'assistant')], [2, 2]);
  assert.deepEqual([byRole('9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d', 'user'), byRole('9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d', 'assistant')], [1, 3]);
  assert.ok(rows.some((r) => r[2] === 'Add a price filter to the product list.'), JSON.stringify(rows.filter((r) => r[1] === 'user')));
  const st = await statsReport(sb.brain, 'agent', { env: sb.env });
  const r = st.rows.find((x) => x.key === 'kiro-ide');
  assert.ok(r);
  assert.equal(r.turns, 8);
  assert.equal(r.sessions, 2);
  const hit = search({ term: 'max below the min', agent: 'kiro_ide' }, sb.env).hits.find((h) => h.session === SID);
  assert.ok(hit);
  assert.ok(verify({ citation: hit.snippets[0].citation }, sb.env).ok);
});

test("paths: Kiro's user folder on Linux, macOS and Windows", () => {
  const a = agentByLane('kiro_ide');
  assert.ok(a);
  assert.equal(a.roots({ HOME: '/home/ana' })[0].dir, '/home/ana/.config/Kiro/User/globalStorage/kiro.kiroagent');
  assert.equal(a.roots({ HOME: '/home/ana', XDG_CONFIG_HOME: '/cfg' })[0].dir, '/cfg/Kiro/User/globalStorage/kiro.kiroagent');
  assert.equal(a.roots({ HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' })[0].dir, '/Users/ana/Library/Application Support/Kiro/User/globalStorage/kiro.kiroagent');
  assert.equal(
    a.roots({ HOME: 'C:\\Users\\Ana', BRAIN_PLATFORM: 'win32', APPDATA: 'C:\\Users\\Ana\\AppData\\Roaming' })[0].dir,
    'C:\\Users\\Ana\\AppData\\Roaming\\Kiro\\User\\globalStorage\\kiro.kiroagent',
  );
  const [root] = a.roots({ HOME: '/h' });
  assert.ok(root.include(CHAT_REL) && root.include(SESSION_REL));
  assert.ok(!root.include(`workspace-sessions/${WS}/sessions.json`) && !root.include('dev_data/devdata.sqlite') && !root.include('profile.json'));
  assert.equal(a.projectFromPath?.(SESSION_REL), '/home/ana/code/shop');
  // Both files are written again whole: a generation per quiet version.
  assert.ok(a.rewritesWhole?.(CHAT_REL) && a.rewritesWhole?.(SESSION_REL));
});
