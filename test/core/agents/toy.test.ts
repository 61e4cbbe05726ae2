// Adding an agent is one folder plus one registry line: a toy agent that lives only in
// test/core/agents/toy/ (paths, dialect, views.sql) is registered with BUILTIN.with(toy), and then
// the real capture records its transcript from a temp HOME, search finds it through its dialect,
// and stats and derived.messages count it through its views.sql. Nothing in src names it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILTIN, defineAgent, registry, useRegistry } from '../../../src/core/agents';
import { capture } from '../../../src/core/floor/capture';
import { search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { runReadOnlySql } from '../../../src/core/cache';
import { sandbox } from '../../helpers/env';
import { manifestLines } from '../cache/helpers';
import { toy } from './toy';

const SESSION = '0f0e0d0c-0b0a-4909-8807-060504030201';

function toyTranscript(home: string): string {
  const file = path.join(home, '.toy', 'sessions', 'w-toyland', `${SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [
    { timestamp: '2026-05-01T10:00:00Z', who: 'me', say: 'where did we put the quixotic-zebra-lantern?', cwd: '/w/toyland' },
    { timestamp: '2026-05-01T10:00:05Z', who: 'bot', say: 'The quixotic-zebra-lantern is in the attic.', cwd: '/w/toyland' },
    { timestamp: '2026-05-01T10:01:00Z', who: 'me', say: 'thanks', cwd: '/w/toyland' },
  ];
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return file;
}

test('a toy agent from one test folder is recorded, searched, counted in stats and derived.messages', async () => {
  const sb = sandbox({ name: 'toy-agent' });
  const origin = toyTranscript(sb.home);
  const restore = useRegistry(BUILTIN.with(toy));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.toy?.files, 1, JSON.stringify(rec.lanes));
    const m = manifestLines(sb.brain).filter((l) => l.lane === 'toy');
    assert.equal(m.length, 1);
    assert.equal(m[0].agent, 'toy-agent');
    assert.equal(m[0].session, SESSION);
    assert.equal(m[0].origin_path, origin);
    assert.deepEqual(fs.readFileSync(path.join(sb.brain, String(m[0].lake_path))), fs.readFileSync(origin));

    // Search reads it through the toy dialect (the turn index and the agent filter by any name).
    const env = { ...sb.env };
    for (const agent of [undefined, 'toy', 'toybox', 'Toy Agent']) {
      const r = search({ term: 'quixotic-zebra-lantern', agent }, env);
      assert.equal(r.hits.length, 1, `agent ${agent}`);
      const h = r.hits[0];
      assert.equal(h.lane, 'toy');
      assert.equal(h.agent, 'toy-agent');
      assert.equal(h.session, SESSION);
      assert.equal(h.project, '/w/toyland');
      assert.equal(h.tier, 'turns');
      assert.equal(h.matching_turns, 2);
    }
    assert.equal(search({ term: 'quixotic-zebra-lantern', agent: 'cc' }, env).hits.length, 0);

    // The cache: its views.sql feeds derived.messages and derived.sessions, so stats counts it.
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((r) => r.key === 'toy-agent');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.sessions, 1);
    assert.equal(row.turns, 3);
    assert.equal((await cacheStats(sb.brain, 'project', { agent: 'toybox', timeZone: 'UTC' })).rows[0].key, '/w/toyland');
    assert.equal((await toolCalls(sb.brain, { agent: 'toy' })).total.calls, 0);
    const msgs = await runReadOnlySql(sb.brain, `SELECT role, text, project, event_time FROM derived.messages WHERE agent = 'toy-agent' ORDER BY line_no`, { timeZone: 'UTC' });
    assert.deepEqual(
      msgs.rows.map((r) => r.slice(0, 3)),
      [
        ['user', 'where did we put the quixotic-zebra-lantern?', '/w/toyland'],
        ['assistant', 'The quixotic-zebra-lantern is in the attic.', '/w/toyland'],
        ['user', 'thanks', '/w/toyland'],
      ],
    );
    const agentsView = await runReadOnlySql(sb.brain, `SELECT agent, label FROM dialects.agents WHERE lane = 'toy'`);
    assert.deepEqual(agentsView.rows, [['toy-agent', 'Toy Agent']]);
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});

test('the registry refuses two agents that answer to one name, and a lane that cannot name a view', () => {
  assert.throws(() => BUILTIN.with(defineAgent({ ...toy, lane: 'toy2', agent: 'toy2', label: 'Toy 2', aliases: ['claude'] })), /both answer to "claude"/);
  assert.throws(() => BUILTIN.with(defineAgent({ ...toy, lane: 'Toy-Agent' })), /lowercase letters/);
  const r = BUILTIN.with(toy);
  assert.deepEqual(r.parse('toybox, cc ,claude-code').map((a) => a.lane), ['toy', 'cc']);
  assert.throws(() => r.parse('emacs'), /unknown agent "emacs"/);
});
