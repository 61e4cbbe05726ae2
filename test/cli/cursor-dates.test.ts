// Cursor's sessions are dated by Cursor's own clock, never by when brain recorded them: a
// cursor-agent transcript (no time on any line) by its chat's store.db `meta` row (hex-encoded
// JSON, createdAt in ms), recorded beside it; a Cursor IDE chat whose bubbles carry no createdAt
// (inline ones never do) by its composer's createdAt and lastUpdatedAt. A chat whose transcript is
// shorter than its meta record keeps its turns (and the date it was recorded). Through `brain
// record`, then show, search (what the Sessions view lists) and stats (the DuckDB cache).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { FIXTURES, brain, sandbox, type Sandbox } from '../helpers/env';
import { buildCursorIde, COMPOSER, composerData } from '../fixtures/cursor_ide/build';
import { FloorView } from '../../src/core/recall/floorview';

const CHAT = 'git-ai-cursor-session-simple';
const CHAT_CREATED = Date.UTC(2025, 10, 3, 9, 30, 0);
const SHORT = 'agent-sessions-subagent-session';
const SHORT_CREATED = Date.UTC(2025, 9, 20, 14, 0, 0);

const json = (r: { status: number | null; stdout: string; stderr: string }) => {
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

/** cursor-agent's own database of a chat, as its readers list it: meta (key '0' -> hex of the
 * chat's JSON) and blobs (the conversation, content-addressed; never read by brain). */
function chatStore(sb: Sandbox, id: string, created: number): string {
  const file = path.join(sb.home, '.cursor', 'chats', 'e4e90b7bcae743c9a1a1a045a49e1b1d', id, 'store.db');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);');
  const meta = { agentId: id, latestRootBlobId: 'ab'.repeat(32), name: 'New Agent', mode: 'default', createdAt: created, lastUsedModel: 'gpt-5' };
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('0', Buffer.from(JSON.stringify(meta)).toString('hex'));
  db.prepare('INSERT INTO blobs VALUES (?, ?)').run('cd'.repeat(32), Buffer.from('{"role":"user","content":"a blob brain never reads"}'));
  db.close();
  return file;
}

/** Cursor's editor database with the fixture composer, its bubbles stripped of their createdAt. */
function editorChatWithoutBubbleTimes(sb: Sandbox): void {
  const file = path.join(sb.env.XDG_CONFIG_HOME!, 'Cursor', 'User', 'globalStorage', 'state.vscdb');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  buildCursorIde(file);
  const db = new BetterSqlite3(file);
  db.prepare("UPDATE cursorDiskKV SET value = json_remove(value, '$.createdAt') WHERE key >= 'bubbleId:' AND key < 'bubbleId;'").run();
  db.close();
}

const iso = (ms: number) => new Date(ms).toISOString();

test("Cursor sessions are dated by Cursor's own times, not by when they were recorded", () => {
  const sb = sandbox({ name: 'cursor-dates', fixtures: true });
  try {
    chatStore(sb, CHAT, CHAT_CREATED);
    // A chat whose transcript is smaller than its meta record: the record, which holds no turns,
    // dates the session and is never the form it is shown from.
    chatStore(sb, SHORT, SHORT_CREATED);
    editorChatWithoutBubbleTimes(sb);
    const composer = composerData() as { createdAt: number; lastUpdatedAt: number };
    assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);

    // show: the session's start.
    const agent = json(brain(sb, ['show', CHAT, '--json'])).session;
    assert.equal(agent.started, iso(CHAT_CREATED), 'the cursor-agent chat starts when its store.db says');
    assert.equal(agent.turns, 2, 'the meta row adds no turn');
    const shortShow = json(brain(sb, ['show', SHORT, '--json']));
    assert.equal(shortShow.session.turns, 2, 'a short chat keeps its turns');
    assert.equal(shortShow.session.started, iso(SHORT_CREATED), 'a short chat starts when its store.db says');
    assert.deepEqual(shortShow.turns.map((t: { role: string }) => t.role), ['user', 'assistant'], 'shown from its transcript');
    const shortMeta = path.join(sb.brain, 'lake', 'cursor', 'fixtures', 'chats', SHORT, `${SHORT}.rows.jsonl`);
    assert.ok(fs.statSync(shortMeta).size > fs.statSync(path.join(FIXTURES, 'cursor', 'projects', 'fixtures', 'agent-transcripts', `${SHORT}.jsonl`)).size, 'its meta record is the larger form');
    const ide = json(brain(sb, ['show', COMPOSER, '--json'])).session;
    assert.equal(ide.started, iso(composer.createdAt));
    assert.equal(ide.ended, iso(composer.lastUpdatedAt));

    // search: what the Sessions view and the search box date a hit by.
    const hits = json(brain(sb, ['search', 'HBO shows', '--json'])).hits as { session: string; started: string }[];
    assert.equal(hits.find((h) => h.session === CHAT)?.started, iso(CHAT_CREATED), JSON.stringify(hits));
    const ideHits = json(brain(sb, ['search', 'bilby cache', '--json'])).hits as { session: string; started: string }[];
    assert.equal(ideHits.find((h) => h.session === COMPOSER)?.started, iso(composer.createdAt), JSON.stringify(ideHits));
    const shortHits = json(brain(sb, ['search', 'workspace directory', '--json'])).hits as { session: string; started: string }[];
    assert.equal(shortHits.find((h) => h.session === SHORT)?.started, iso(SHORT_CREATED), JSON.stringify(shortHits));

    // The Sessions tree, from the turn index and from the floor's files alike.
    for (const index of ['live', 'off'] as const) {
      const view = new FloorView(sb.brain, sb.env, { index });
      try {
        view.refresh();
        const listed = view.sessions().find((x) => x.session === SHORT);
        assert.equal(listed?.started, iso(SHORT_CREATED), `tree (index ${index})`);
        assert.equal(listed?.turns, 2, `tree (index ${index})`);
        assert.match(listed?.lakePath ?? '', /agent-transcripts/, `tree (index ${index}): the shown form`);
      } finally {
        view.close();
      }
    }

    // stats --by day: each on its own day (turns from the turn index, tokens and tool calls from the
    // DuckDB cache), not on the day it was recorded, where the fixtures' chats without a store.db are.
    const days = (agentName: string) => {
      const rows = json(brain(sb, ['stats', '--by', 'day', '--agent', agentName, '--json'])).rows as { key: string; sessions: number; turns: number; tool_calls: number }[];
      return Object.fromEntries(rows.map((r) => [r.key, [r.sessions, r.turns, r.tool_calls]]));
    };
    const today = iso(Date.now()).slice(0, 10);
    const agentDays = days('cursor-agent');
    const calls = fs.readFileSync(path.join(FIXTURES, 'cursor', 'projects', 'fixtures', 'agent-transcripts', `${CHAT}.jsonl`), 'utf8').split('"type":"tool_use"').length - 1;
    assert.deepEqual(agentDays['2025-11-03'], [1, 2, calls], JSON.stringify(agentDays));
    assert.deepEqual(agentDays['2025-10-20'], [1, 2, 1], JSON.stringify(agentDays));
    assert.deepEqual(agentDays[today].slice(0, 2), [2, 10], JSON.stringify(agentDays));
    assert.deepEqual(days('cursor-ide'), { [iso(composer.createdAt).slice(0, 10)]: [1, 4, 2] });

    // A second pass appends nothing (the meta row is unchanged).
    const manifest = path.join(sb.brain, 'manifest', 'manifest.jsonl');
    const before = fs.readFileSync(manifest, 'utf8');
    assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
    assert.equal(fs.readFileSync(manifest, 'utf8'), before);
    // The chat's database is recorded beside its transcript's project, its blobs never.
    const lake = path.join(sb.brain, 'lake', 'cursor', 'fixtures', 'chats', CHAT, `${CHAT}.rows.jsonl`);
    const rows = fs.readFileSync(lake, 'utf8');
    assert.match(rows, /"table":"meta"/);
    assert.doesNotMatch(rows, /blobs|a blob brain never reads/);
  } finally {
    sb.cleanup();
  }
});
