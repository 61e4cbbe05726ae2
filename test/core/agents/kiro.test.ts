// Kiro CLI and the Amazon Q CLI: data.sqlite3 built with their DDL (test/fixtures/kiro/build.ts),
// a conversation's whole state one JSON value; read through row records: prompts, replies, tool
// calls with their results (a failed one), project; Amazon Q's folder-keyed row replaced by a new
// conversation (the old one stays in its own session, marked deleted); then the pipeline.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BUILTIN, registry, useRegistry } from '../../../src/core/agents';
import { kiroFiles } from '../../../src/core/agents/kiro/paths';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { sandbox } from '../../helpers/env';
import { delLine, rowRecords, writeLake } from '../../helpers/rowrecords';
import { filesRegistry, stageRows } from '../../helpers/rowagents';
import { checkCitation, said, turnsOf } from '../../helpers/rowchecks';
import { buildAmazonQ, buildKiro, kiroState, writeKiroSessionFiles, KIRO_DIR, KIRO_FILE_CWD, KIRO_FILE_ID, KIRO_ID, Q_DIR, Q_ID } from '../../fixtures/kiro/build';

function tmp(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'kiro-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const dbs = () => kiroFiles.databases!({ HOME: '/h' });

test('Kiro CLI: a conversations_v2 row gives prompts, replies, tool calls with results, model and project', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'data.sqlite3');
    buildKiro(db);
    const files = rowRecords(db, dbs()[0].tables);
    assert.deepEqual([...files.keys()], [`${KIRO_ID}.rows.jsonl`]);
    const r = turnsOf(writeLake(t.dir, `${KIRO_ID}.rows.jsonl`, files.get(`${KIRO_ID}.rows.jsonl`)!), 'kiro');
    assert.deepEqual(said(r.turns), [
      ['user', 'Count the koala tests in this repo'],
      ['assistant', 'I will count them with grep.'],
      ['assistant', 'There are 7 koala tests, all in tests/koala.rs.'],
      ['user', 'Run them'],
      ['assistant', ''],
      ['assistant', 'The koala crate does not compile yet.'],
    ]);
    const [grep] = r.turns[1].tools;
    assert.deepEqual([grep.id, grep.name, JSON.parse(grep.arguments), JSON.parse(grep.output).stdout, grep.is_error], ['tooluse_Ab1', 'execute_bash', { command: 'grep -c koala tests/*.rs' }, 'tests/koala.rs:7', false]);
    assert.deepEqual([r.turns[4].tools[0].output, r.turns[4].tools[0].is_error], ['error: could not compile koala', true]);
    assert.equal(r.turns[1].model, 'claude-sonnet-4');
    assert.equal(r.turns[0].ts, '2025-07-01T10:00:00.000Z');
    assert.equal(r.turns[1].ts, '2025-07-01T10:00:02.500Z');
    assert.equal(r.facts.cwd, KIRO_DIR);
    assert.equal(r.facts.native_session, KIRO_ID);
  } finally {
    t.done();
  }
});

test("Amazon Q CLI: a folder's conversation replaced by a new one stays in its own session, marked deleted", () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'data.sqlite3');
    buildAmazonQ(db);
    const first = rowRecords(db, dbs()[1].tables);
    assert.deepEqual([...first.keys()], [`${Q_ID}.rows.jsonl`]);
    const w = new BetterSqlite3(db);
    const next = '11111111-2222-4333-8444-555555555555';
    w.prepare('INSERT OR REPLACE INTO conversations (key, value) VALUES (?, ?)').run(Q_DIR, JSON.stringify(kiroState(next, Q_DIR)));
    w.close();
    const second = rowRecords(db, dbs()[1].tables);
    assert.deepEqual([...second.keys()], [`${next}.rows.jsonl`]);
    // What a pass appends to the old session's file: a tombstone (the row moved session).
    const old = turnsOf(writeLake(t.dir, `${Q_ID}.rows.jsonl`, [...first.get(`${Q_ID}.rows.jsonl`)!, delLine('conversations', [Q_DIR])]), 'kiro');
    assert.deepEqual(said(old.turns), [
      ['user', 'Where is the numbat config read?'],
      ['assistant', 'In src/numbat/config.rs, at startup.'],
    ]);
    assert.match(old.turns[old.turns.length - 1].text, /deleted from Kiro CLI's database/);
    assert.equal(old.facts.cwd, Q_DIR);
  } finally {
    t.done();
  }
});

test('Kiro CLI through the pipeline: both databases recorded, searched, shown, tool calls counted, cited', async () => {
  const sb = sandbox({ name: 'kiro-rows' });
  const stage = path.join(sb.dir, 'rows');
  const kdb = path.join(sb.dir, 'kiro.sqlite3');
  const qdb = path.join(sb.dir, 'q.sqlite3');
  buildKiro(kdb);
  buildAmazonQ(qdb);
  const kiro = BUILTIN.byLane('kiro')!;
  assert.deepEqual([...stageRows(kiro, sb.env, kdb, stage, 0), ...stageRows(kiro, sb.env, qdb, stage, 1)], [`kiro-cli/${KIRO_ID}.rows.jsonl`, `amazon-q/${Q_ID}.rows.jsonl`]);
  const restore = useRegistry(filesRegistry('kiro', stage));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.kiro?.files, 2, JSON.stringify(rec.lanes));
    for (const [term, session, project] of [
      ['koala tests', KIRO_ID, KIRO_DIR],
      ['numbat config', Q_ID, Q_DIR],
    ]) {
      const r = search({ term, agent: 'amazon-q' }, sb.env);
      assert.equal(r.hits.length, 1, term);
      assert.equal(r.hits[0].session, session);
      assert.equal(r.hits[0].project, project);
      for (const s of r.hits[0].snippets) {
        assert.match(s.text, new RegExp(term));
        checkCitation(sb.brain, s.citation);
      }
    }
    assert.equal(readSession({ session: KIRO_ID }, sb.env).turns.filter((x) => x.role === 'assistant').length, 4);
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'kiro-cli');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.sessions, 2);
    assert.equal(row.turns, 8);
    const calls = await toolCalls(sb.brain, { agent: 'kiro' });
    assert.equal(calls.total.calls, 2);
    assert.equal(calls.total.failures, 1);
    const projects = await cacheStats(sb.brain, 'project', { agent: 'kiro', timeZone: 'UTC' });
    assert.deepEqual(projects.rows.map((x) => x.key).sort(), [KIRO_DIR, Q_DIR].sort());
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});

test("Kiro CLI's session files (newer builds): prompts, one reply per response with its tool results, /clear, project from the metadata file", async () => {
  const sb = sandbox({ name: 'kiro-files' });
  try {
    const dir = path.join(sb.home, '.kiro', 'sessions', 'cli');
    const { jsonl } = writeKiroSessionFiles(dir);
    const r = turnsOf(jsonl, 'kiro');
    assert.equal(r.counts.bad, 0);
    assert.deepEqual(
      r.turns.map((t) => [t.role, t.kind, t.text]),
      [
        ['user', 'prompt', 'How many wallaby fixtures are there?'],
        ['assistant', 'reply', ''],
        ['assistant', 'reply', 'There are 12 wallaby fixtures.'],
        ['system', 'notice', '[clear]'],
        ['user', 'prompt', 'Start over'],
      ],
    );
    const [sh] = r.turns[1].tools;
    assert.deepEqual([sh.id, sh.name, JSON.parse(sh.arguments).command, JSON.parse(sh.output).stdout, sh.is_error], ['tooluse_W1', 'shell', 'ls fixtures | wc -l', '12\n', false]);
    assert.equal(r.turns[1].span.line_to, 3, 'the reply spans its tool results');
    assert.equal(r.turns[2].thinking, 'The count is 12.');
    assert.equal(r.turns[4].ts, new Date((1784869360 + 90.5) * 1000).toISOString());

    // Recorded from ~/.kiro/sessions/cli by the real capture ($KIRO_HOME moves it).
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.kiro?.files, 2, JSON.stringify(rec.lanes));
    const s = search({ term: 'wallaby fixtures', agent: 'kiro' }, sb.env);
    assert.equal(s.hits.length, 1);
    assert.equal(s.hits[0].session, KIRO_FILE_ID);
    for (const sn of s.hits[0].snippets) checkCitation(sb.brain, sn.citation);
    const shown = readSession({ session: KIRO_FILE_ID }, sb.env);
    assert.equal(shown.turns.filter((t) => t.role === 'user' || t.role === 'assistant').length, 4);
    const calls = await toolCalls(sb.brain, { agent: 'kiro' });
    assert.equal(calls.total.calls, 1);
    const projects = await cacheStats(sb.brain, 'project', { agent: 'kiro', timeZone: 'UTC' });
    assert.deepEqual(projects.rows.map((x) => x.key), [KIRO_FILE_CWD]);
    assert.equal(kiroFiles.roots({ HOME: '/h', KIRO_HOME: '/k' })[0].dir, '/k/sessions/cli');
    // The metadata file is written again whole: a generation per quiet version; the log is appended.
    assert.ok(kiroFiles.rewritesWhole?.('sessions/x.json') && !kiroFiles.rewritesWhole?.('sessions/x.jsonl'));
  } finally {
    sb.cleanup();
  }
});
