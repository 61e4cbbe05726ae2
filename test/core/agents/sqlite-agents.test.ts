// The agents recorded from SQLite databases, end to end: a real OpenCode database (the fixture, from
// a live run) and a Crush database built with Crush's own first migration (charmbracelet/crush
// internal/db/migrations/20250424200609_initial.sql: sessions, messages) holding messages in its
// parts format, captured by the real capture, then searched, shown, and counted in derived.*.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { runReadOnlySql } from '../../../src/core/cache';
import { cacheStats } from '../../../src/core/cache/reports';
import { FIXTURES, sandbox } from '../../helpers/env';
import { buildCrush } from '../../fixtures/crush/build';

const OC_SESSION = 'ses_dc3cc580effeztp8M3eCaCDS20';

test('OpenCode: its database is recorded as row records, searched, and counted with tokens and tool calls', async () => {
  const sb = sandbox({ name: 'opencode-db' });
  try {
    const dir = path.join(sb.home, '.local', 'share', 'opencode');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'opencode', 'opencode.db'), path.join(dir, 'opencode.db'));
    const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(r.lanes.opencode.new_files, 1, JSON.stringify(r.lanes.opencode));
    const lake = path.join(sb.brain, 'lake', 'opencode', `${OC_SESSION}.rows.jsonl`);
    assert.ok(fs.existsSync(lake));
    const hits = search({ term: 'Goodbye from the stand-in' }, sb.env).hits;
    assert.equal(hits.length, 1);
    assert.equal(hits[0].lane, 'opencode');
    assert.equal(hits[0].session, OC_SESSION);
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'opencode');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.sessions, 1);
    const msgs = await runReadOnlySql(sb.brain, `SELECT role, model, text FROM derived.messages WHERE agent = 'opencode' ORDER BY event_time`, { timeZone: 'UTC' });
    assert.deepEqual(msgs.rows.map((x) => x[0]), ['user', 'assistant', 'assistant', 'user', 'assistant']);
    assert.equal(msgs.rows[4][2], 'Goodbye from the stand-in.');
    const calls = await runReadOnlySql(sb.brain, `SELECT tool_name, arguments FROM derived.tool_calls WHERE agent = 'opencode'`);
    assert.deepEqual(calls.rows, [['bash', '{"command":"ls"}']]);
    const usage = await runReadOnlySql(sb.brain, `SELECT sum(input_tokens), sum(output_tokens) FROM derived.usage_lines WHERE agent = 'opencode'`);
    assert.deepEqual(usage.rows[0].map(Number), [462, 24]);
  } finally {
    sb.cleanup();
  }
});

test('OpenCode: a message deleted from its database is no turn in show, derived.messages or stats, and stays findable', async () => {
  const sb = sandbox({ name: 'opencode-del' });
  try {
    const dir = path.join(sb.home, '.local', 'share', 'opencode');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'opencode.db');
    fs.copyFileSync(path.join(FIXTURES, 'opencode', 'opencode.db'), file);
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    // The last reply goes (OpenCode deletes a message's row when the user reverts it).
    const db = new Database(file);
    db.prepare("DELETE FROM message WHERE id = 'msg_23c341f1d001esv3QDdVACq0hm'").run();
    db.close();
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const shown = readSession({ session: OC_SESSION }, sb.env);
    const turns = shown.turns.filter((t) => t.role === 'user' || t.role === 'assistant').length;
    assert.equal(turns, 4, 'two prompts and two replies are left');
    assert.ok(shown.turns.some((t) => t.role !== 'user' && t.role !== 'assistant' && /Goodbye from the stand-in/.test(t.text)), 'the deleted reply is kept, marked');
    const sql = await runReadOnlySql(sb.brain, `SELECT count(DISTINCT turn_id) FROM derived.messages WHERE agent = 'opencode' AND NOT is_sidechain`);
    assert.equal(Number(sql.rows[0][0]), turns, 'derived.messages');
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    assert.equal(stats.rows.find((x) => x.key === 'opencode')?.turns, turns, 'stats');
    assert.equal(search({ term: 'Goodbye from the stand-in' }, sb.env).hits.length, 1, 'still found');
  } finally {
    sb.cleanup();
  }
});

test('Crush: a project database listed in projects.json is recorded per session, and a deleted message stays findable, marked', async () => {
  const sb = sandbox({ name: 'crush-db' });
  try {
    const project = path.join(sb.home, 'work', 'garden');
    const data = path.join(project, '.crush');
    fs.mkdirSync(data, { recursive: true });
    const global = path.join(sb.home, '.local', 'share', 'crush');
    fs.mkdirSync(global, { recursive: true });
    fs.writeFileSync(path.join(global, 'projects.json'), JSON.stringify({ projects: [{ path: project, data_dir: data, last_accessed: '2026-01-01T00:00:00Z' }] }));
    const db = new Database(path.join(data, 'crush.db'));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
               prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
               updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
             CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts BLOB NOT NULL default '[]',
               model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER);
             CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages BEGIN UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;`);
    const t = 1767225600;
    db.prepare('INSERT INTO sessions (id, title, updated_at, created_at) VALUES (?, ?, ?, ?)').run('s-1', 'Garden talk', t, t);
    const msg = db.prepare('INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    msg.run('m1', 's-1', 'user', JSON.stringify([{ type: 'text', data: { text: 'water the marigold-sundial please' } }]), null, t, t);
    msg.run('m2', 's-1', 'assistant', JSON.stringify([{ type: 'text', data: { text: 'Checking.' } }, { type: 'tool_call', data: { id: 'c1', name: 'bash', input: '{"command":"ls"}' } }]), 'standin-chat-1', t + 1, t + 1);
    msg.run('m3', 's-1', 'tool', JSON.stringify([{ type: 'tool_result', data: { tool_call_id: 'c1', content: 'bed.txt', is_error: false } }]), null, t + 2, t + 2);
    msg.run('m4', 's-1', 'assistant', JSON.stringify([{ type: 'text', data: { text: 'The zinnia-lighthouse is watered.' } }]), 'standin-chat-1', t + 3, t + 3);
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const lakeDir = path.join(sb.brain, 'lake', 'crush');
    const [folder] = fs.readdirSync(lakeDir);
    assert.match(folder, /^garden-[0-9a-f]{8}$/);
    assert.deepEqual(fs.readdirSync(path.join(lakeDir, folder)), ['s-1.rows.jsonl']);
    assert.equal(search({ term: 'zinnia-lighthouse' }, sb.env).hits.length, 1);
    db.prepare("DELETE FROM messages WHERE id = 'm4'").run();
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    db.close();
    const text = fs.readFileSync(path.join(lakeDir, folder, 's-1.rows.jsonl'), 'utf8');
    assert.match(text, /\{"op":"del","table":"messages","key":\["m4"\]\}\n$/);
    const hits = search({ term: 'zinnia-lighthouse' }, sb.env).hits;
    assert.equal(hits.length, 1, 'the deleted reply is still found');
    const msgs = await runReadOnlySql(sb.brain, `SELECT role, text, is_meta FROM derived.messages WHERE agent = 'crush' ORDER BY line_no`, { timeZone: 'UTC' });
    assert.ok(msgs.rows.some((x) => x[0] === 'system' && String(x[1]).includes('zinnia-lighthouse') && x[2] === true), JSON.stringify(msgs.rows));
    assert.ok(msgs.rows.some((x) => x[0] === 'user' && x[1] === 'water the marigold-sundial please'));
  } finally {
    sb.cleanup();
  }
});

test('Crush: a tool message is no turn (its results join the calls they answer), in show and derived.* alike', async () => {
  const sb = sandbox({ name: 'crush-turns' });
  try {
    const file = buildCrush(path.join(sb.home, 'work', 'garden'), path.join(sb.home, '.local', 'share', 'crush'));
    const db = new Database(file);
    const t = 1767225600 + 10;
    const msg = db.prepare('INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const parts = (...p: [string, Record<string, unknown>][]) => JSON.stringify(p.map(([type, data]) => ({ type, data })));
    msg.run('m5', 's-1', 'user', parts(['text', { text: 'now prune the roses' }]), null, t, t);
    // A reply of two calls, answered by one tool message (one result an error).
    msg.run('m6', 's-1', 'assistant', parts(['tool_call', { id: 'c2', name: 'bash', input: '{}' }], ['tool_call', { id: 'c3', name: 'view', input: '{}' }]), 'standin-chat-1', t + 1, t + 1);
    msg.run('m7', 's-1', 'tool', parts(['tool_result', { tool_call_id: 'c2', content: 'ok' }], ['tool_result', { tool_call_id: 'c3', content: 'no such file', is_error: true }]), null, t + 2, t + 2);
    // A tool message with no reply before it: output nobody claimed, no turn.
    msg.run('m8', 's-1', 'user', parts(['text', { text: 'and the tulips?' }]), null, t + 3, t + 3);
    msg.run('m9', 's-1', 'tool', parts(['tool_result', { tool_call_id: 'c9', content: 'stray output' }]), null, t + 4, t + 4);
    msg.run('m10', 's-1', 'assistant', parts(['text', { text: 'Pruned.' }]), 'standin-chat-1', t + 5, t + 5);
    db.close();
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const shown = readSession({ session: 's-1', agent: 'crush' }, sb.env);
    assert.deepEqual(
      shown.turns.map((x) => [x.role, x.tools.length]),
      [['user', 0], ['assistant', 1], ['assistant', 0], ['user', 0], ['assistant', 2], ['user', 0], ['tool', 0], ['assistant', 0]],
    );
    assert.deepEqual(shown.turns[4].tools.map((c) => c.is_error), [false, true]);
    const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { timeZone: 'UTC' })).rows;
    const [[turns]] = await q(`SELECT count(DISTINCT turn_id) FROM derived.messages WHERE agent = 'crush' AND NOT is_sidechain`);
    assert.equal(Number(turns), shown.turns.filter((x) => x.role === 'user' || x.role === 'assistant').length);
    const calls = await q(`SELECT tool_name, is_error, result_line_no IS NOT NULL FROM derived.calls WHERE agent = 'crush' ORDER BY call_id`);
    assert.deepEqual(calls, [['bash', false, true], ['bash', false, true], ['view', true, true]]);
  } finally {
    sb.cleanup();
  }
});
