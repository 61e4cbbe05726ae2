// Warp: a warp.sqlite shaped as public readers of Warp's database create it (test/fixtures/warp/
// build.ts), each agent task a protobuf message; read through row records: prompts, replies (one
// per request) with reasoning and a shell tool call and its result, project, title; then the
// pipeline, with Warp's per-model token totals.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BUILTIN, registry, useRegistry } from '../../../src/core/agents';
import { warpFiles } from '../../../src/core/agents/warp/paths';
import { fields, toJsonLists } from '../../../src/core/agents/kit/protobuf';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { runReadOnlySql } from '../../../src/core/cache';
import { sandbox } from '../../helpers/env';
import { rowRecords, writeLake } from '../../helpers/rowrecords';
import { filesRegistry, stageRows } from '../../helpers/rowagents';
import { checkCitation, said, turnsOf } from '../../helpers/rowchecks';
import { buildWarp, warpTask, WARP_CONVERSATION, WARP_CWD, WARP_USAGE } from '../../fixtures/warp/build';

function tmp(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'warp-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const tables = () => warpFiles.databases!({ HOME: '/h' })[0].tables;

test('the protobuf reader reads a task by field number and refuses bytes that are not a message', () => {
  const f = fields(warpTask());
  assert.ok(f);
  const j = toJsonLists(f) as Record<string, any[]>;
  assert.equal(j['2'][0], 'Find the emu config loader');
  assert.equal(j['5'].length, 8);
  assert.equal(j['5'][0]['2'][0]['1'][0], 'Where does the emu config get loaded?');
  assert.equal(fields(Buffer.from([0x0a, 0x05, 0x61])), null);
  assert.equal(fields(Buffer.from([0x07])), null);
});

test('Warp: a conversation gives prompts, one reply per request with reasoning and tool calls, title and project', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'warp.sqlite');
    buildWarp(db);
    const files = rowRecords(db, tables());
    assert.deepEqual([...files.keys()], [`${WARP_CONVERSATION}.rows.jsonl`]);
    const lines = files.get(`${WARP_CONVERSATION}.rows.jsonl`)!;
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { table: string }).table), ['agent_conversations', 'agent_tasks', 'ai_queries', 'ai_queries']);
    const r = turnsOf(writeLake(t.dir, 'w.rows.jsonl', lines), 'warp');
    assert.deepEqual(said(r.turns), [
      ['user', 'Where does the emu config get loaded?'],
      ['assistant', 'Searching the source for the loader.'],
      ['assistant', 'The emu config is loaded by load_config in src/emu/config.rs.'],
      ['user', 'Thanks'],
      ['assistant', 'You are welcome.'],
    ]);
    assert.equal(r.turns[1].thinking, 'Search for config loading first.');
    const [grep] = r.turns[1].tools;
    assert.equal(grep.id, 'toolu_emu_1');
    assert.equal(grep.name, 'run_shell_command');
    assert.deepEqual(JSON.parse(grep.arguments), { 1: 'grep -rn load_config src' });
    assert.match(grep.output, /src\/emu\/config.rs:14: pub fn load_config\(\)/);
    assert.equal(r.turns[0].ts, '2025-09-01T10:00:00.000Z');
    assert.equal(r.turns[1].model, 'claude-4-sonnet');
    assert.equal(r.facts.title_hint, 'Find the emu config loader');
    assert.equal(r.facts.cwd, WARP_CWD);
    // Without its task rows (an older Warp), the prompts still come from ai_queries.
    const r2 = turnsOf(writeLake(t.dir, 'q.rows.jsonl', lines.filter((l) => !l.includes('"agent_tasks"'))), 'warp');
    assert.deepEqual(said(r2.turns), [['user', 'Where does the emu config get loaded?']]);
  } finally {
    t.done();
  }
});

test('Warp through the pipeline: recorded, searched, shown, its token totals counted, cited', async () => {
  const sb = sandbox({ name: 'warp-rows' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'warp.sqlite');
  buildWarp(db);
  stageRows(BUILTIN.byLane('warp')!, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('warp', stage));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.warp?.files, 1, JSON.stringify(rec.lanes));
    const r = search({ term: 'load_config in src', agent: 'warp' }, sb.env);
    assert.equal(r.hits.length, 1);
    assert.equal(r.hits[0].session, WARP_CONVERSATION);
    assert.equal(r.hits[0].project, WARP_CWD);
    for (const s of r.hits[0].snippets) checkCitation(sb.brain, s.citation);
    const shown = readSession({ session: WARP_CONVERSATION }, sb.env);
    assert.equal(shown.turns.filter((x) => x.role === 'assistant').length, 3);
    const raw = new BetterSqlite3(db, { readonly: true });
    const data = JSON.parse((raw.prepare('SELECT conversation_data FROM agent_conversations').get() as { conversation_data: string }).conversation_data);
    raw.close();
    const want = (data.conversation_usage_metadata.token_usage as typeof WARP_USAGE).reduce((a, u) => a + u.warp_tokens + u.byok_tokens, 0);
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'warp');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.tokens.input, want);
    // show: the conversation's per-model totals are the session's tokens (no message carries any).
    assert.ok(want > 0);
    assert.deepEqual(shown.session.tokens, { input: want, output: 0, cache_creation: 0, cache_read: 0 });
    assert.equal(row.turns, 5);
    assert.deepEqual(row.models.sort(), [...WARP_USAGE.map((u) => u.model_id), 'claude-4-sonnet'].sort());
    const calls = await toolCalls(sb.brain, { agent: 'warp' });
    assert.equal(calls.total.calls, 1);
    assert.equal(calls.rows[0].tool, 'run_shell_command');
    const msgs = await runReadOnlySql(sb.brain, `SELECT role, text FROM derived.messages WHERE agent = 'warp' ORDER BY event_time, line_no`, { timeZone: 'UTC' });
    assert.deepEqual(msgs.rows[0], ['user', 'Where does the emu config get loaded?']);
    assert.equal(msgs.rows.filter((x) => x[0] === 'assistant').length, 3);
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});
