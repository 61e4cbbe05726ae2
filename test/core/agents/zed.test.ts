// Zed: a threads.db built with Zed's own DDL and save_thread's statement (test/fixtures/zed/build.ts),
// each thread one zstd-compressed JSON document; read through its row records: prompts, replies
// with thinking and tool calls, per-prompt usage, title, project; a thread saved again (a new
// version: the turns are the newest's, what only an older one said a notice); the first agent's
// JSON threads; then the whole pipeline, with the tokens Zed summed read back out of its blobs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import { BUILTIN, registry, useRegistry } from '../../../src/core/agents';
import { zedFiles } from '../../../src/core/agents/zed/paths';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { sandbox } from '../../helpers/env';
import { rowRecords, writeLake } from '../../helpers/rowrecords';
import { filesRegistry, stageRows } from '../../helpers/rowagents';
import { checkCitation, said, turnsOf } from '../../helpers/rowchecks';
import { buildZed, saveThread, zedThread, ZED_LEGACY_ID, ZED_MESSAGES, ZED_THREAD_ID } from '../../fixtures/zed/build';

function tmp(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'zed-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const tables = () => zedFiles.databases!({ HOME: '/h' })[0].tables;

test('Zed: a thread row (zstd JSON) gives its prompts, replies, thinking, tool calls, per-prompt tokens, title and project', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'threads.db');
    buildZed(db);
    const files = rowRecords(db, tables());
    const name = `${ZED_THREAD_ID}.rows.jsonl`;
    assert.deepEqual([...files.keys()].sort(), [`${ZED_LEGACY_ID}.rows.jsonl`, name].sort());
    const line = JSON.parse(files.get(name)![0]) as { cols: [string, string, unknown][] };
    assert.deepEqual(line.cols.map((c) => [c[0], c[1]]), [['id', 'text'], ['summary', 'text'], ['updated_at', 'text'], ['data_type', 'text'], ['data', 'blob']]);
    const r = turnsOf(writeLake(t.dir, name, files.get(name)!), 'zed');
    assert.deepEqual(said(r.turns), [
      ['user', 'Why does the platypus parser reject nested brackets?'],
      ['assistant', 'Let me search for the depth counter.'],
      ['assistant', 'The depth counter is a u8 reset on every token; nested brackets overflow the platypus state.'],
      ['user', 'Fix it please'],
      ['assistant', 'Changed depth to usize and kept it across tokens.'],
    ]);
    assert.equal(r.turns[1].thinking, 'Check the bracket depth counter.');
    assert.deepEqual(r.turns[1].tools.map((u) => [u.id, u.name, u.arguments, u.output, u.is_error]), [['toolu_01', 'grep', '{"regex":"depth"}', 'src/parse.rs:12: let depth = 0u8;', false]]);
    // Usage is per prompt: on the prompt's last reply.
    assert.equal(r.turns[1].tokens, null);
    assert.deepEqual(r.turns[2].tokens, { input: 3000, output: 400, cache_creation: 2048, cache_read: 4096 });
    assert.deepEqual(r.turns[4].tokens, { input: 2120, output: 240, cache_creation: 0, cache_read: 4096 });
    assert.equal(r.turns[2].model, 'claude-sonnet-4');
    assert.equal(r.facts.title_hint, 'Platypus parser bug');
    assert.equal(r.facts.cwd, '/home/ana/src/platypus');
    // Every turn cites the one line holding the thread, told apart by number.
    assert.ok(r.turns.every((x) => x.span.line_from === 1 && x.span.line_to === 1));
    const legacy = turnsOf(writeLake(t.dir, 'legacy.rows.jsonl', files.get(`${ZED_LEGACY_ID}.rows.jsonl`)!), 'zed');
    assert.deepEqual(said(legacy.turns), [
      ['user', 'What does the echidna flag do?'],
      ['assistant', 'It enables the echidna spike mode.'],
    ]);
    assert.equal(legacy.facts.title_hint, 'Old echidna question');
  } finally {
    t.done();
  }
});

test('Zed: a thread saved again is read from its newest version; a message the user edited away stays as a notice', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'threads.db');
    buildZed(db);
    const v1 = rowRecords(db, tables()).get(`${ZED_THREAD_ID}.rows.jsonl`)!;
    // The user edits the second prompt: Zed truncates the thread there and saves it again.
    const w = new BetterSqlite3(db);
    const edited = [...ZED_MESSAGES.slice(0, 3), { User: { id: 'user-msg-3', content: [{ Text: 'Fix it with a usize counter' }] } }];
    saveThread(w, ZED_THREAD_ID, { ...zedThread(edited), updated_at: '2025-06-02T09:20:00+00:00' });
    w.close();
    const v2 = rowRecords(db, tables()).get(`${ZED_THREAD_ID}.rows.jsonl`)!;
    const r = turnsOf(writeLake(t.dir, 'x.rows.jsonl', [...v1, ...v2]), 'zed');
    assert.deepEqual(said(r.turns).map((x) => x[1]).slice(3), ['Fix it with a usize counter']);
    assert.ok(r.turns.slice(0, 4).every((x) => x.span.line_from === 2));
    const notices = r.turns.filter((x) => x.kind === 'notice').map((x) => [x.text, x.span.line_from]);
    assert.deepEqual(notices, [
      ["[earlier version, since changed in Zed's database] Fix it please", 1],
      ["[earlier version, since changed in Zed's database] Changed depth to usize and kept it across tokens.", 1],
    ]);
    // A zstd frame that is not one: the row is still read (title), no turns, nothing thrown.
    const bad = JSON.parse(v1[0]) as { cols: [string, string, unknown][] };
    bad.cols = bad.cols.map((c) => (c[0] === 'data' ? [c[0], c[1], Buffer.from('not zstd').toString('base64')] : c));
    const rb = turnsOf(writeLake(t.dir, 'bad.rows.jsonl', [JSON.stringify(bad)]), 'zed');
    assert.equal(rb.turns.length, 0);
    assert.equal(rb.facts.title_hint, 'Platypus parser bug');
  } finally {
    t.done();
  }
});

test('Zed through the pipeline: recorded, searched, shown, tokens counted out of the zstd blobs, cited', async () => {
  const sb = sandbox({ name: 'zed-rows' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'threads.db');
  buildZed(db);
  stageRows(BUILTIN.byLane('zed')!, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('zed', stage));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.zed?.files, 2, JSON.stringify(rec.lanes));
    const r = search({ term: 'platypus state', agent: 'zed' }, sb.env);
    assert.equal(r.hits.length, 1);
    const h = r.hits[0];
    assert.equal(h.session, ZED_THREAD_ID);
    assert.equal(h.project, '/home/ana/src/platypus');
    assert.equal(h.tier, 'turns');
    for (const s of h.snippets) {
      assert.match(s.text, /platypus state/);
      checkCitation(sb.brain, s.citation);
    }
    const shown = readSession({ session: ZED_THREAD_ID }, sb.env);
    assert.equal(shown.turns.length, 5);
    assert.equal(shown.turns[1].tools[0].name, 'grep');

    // An independent sum: every thread's cumulative_token_usage, decompressed here (in these
    // threads it is at least their prompts' usage added up).
    const raw = new BetterSqlite3(db, { readonly: true });
    const want = { input: 0, output: 0, cw: 0, cr: 0 };
    let own: Record<string, number> = {};
    for (const row of raw.prepare('SELECT id, data_type, data FROM threads').all() as { id: string; data_type: string; data: Buffer }[]) {
      const j = JSON.parse((row.data_type === 'zstd' ? zlib.zstdDecompressSync(row.data) : row.data).toString('utf8'));
      const u = j.cumulative_token_usage;
      if (row.id === ZED_THREAD_ID) own = u;
      want.input += u.input_tokens;
      want.output += u.output_tokens;
      want.cw += u.cache_creation_input_tokens;
      want.cr += u.cache_read_input_tokens;
    }
    raw.close();
    // show: the thread's tokens.
    assert.deepEqual(shown.session.tokens, { input: own.input_tokens, output: own.output_tokens, cache_creation: own.cache_creation_input_tokens, cache_read: own.cache_read_input_tokens });
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'zed');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.sessions, 2);
    const tk = row.tokens;
    assert.deepEqual([tk.input, tk.output, tk.cache_creation, tk.cache_read], [want.input, want.output, want.cw, want.cr]);
    assert.deepEqual(row.models.sort(), ['claude-sonnet-4', 'gpt-4o']);
    assert.equal((await toolCalls(sb.brain, { agent: 'zed' })).total.calls, 1);
    const projects = await cacheStats(sb.brain, 'project', { agent: 'zed', timeZone: 'UTC' });
    assert.ok(projects.rows.some((x) => x.key === '/home/ana/src/platypus'), JSON.stringify(projects.rows));
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});

test("Zed: a thread's tokens are, count by count, the larger of its cumulative usage and its prompts' usage added up, in show and stats", async () => {
  const sb = sandbox({ name: 'zed-usage' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'threads.db');
  buildZed(db);
  const usage = (i: number, o: number, cw: number, cr: number) => ({ input_tokens: i, output_tokens: o, cache_creation_input_tokens: cw, cache_read_input_tokens: cr });
  const per = { 'user-msg-1': usage(3000, 400, 2048, 4096), 'user-msg-2': usage(2120, 240, 0, 4096) };
  // A build that kept no cumulative usage (zero): the prompts' usage is the thread's.
  const kept = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
  // A prompt whose tool loop made earlier requests: the cumulative usage holds them too.
  const loop = '8d2e3f4a-5b6c-4d7e-9f0a-1b2c3d4e5f60';
  const w = new BetterSqlite3(db);
  saveThread(w, kept, { ...zedThread(), cumulative_token_usage: usage(0, 0, 0, 0), request_token_usage: per });
  saveThread(w, loop, { ...zedThread(), cumulative_token_usage: usage(9000, 700, 2048, 8192), request_token_usage: per });
  w.close();
  stageRows(BUILTIN.byLane('zed')!, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('zed', stage));
  try {
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const a = readSession({ session: kept }, sb.env);
    assert.deepEqual(a.session.tokens, { input: 5120, output: 640, cache_creation: 2048, cache_read: 8192 });
    const b = readSession({ session: loop }, sb.env);
    assert.deepEqual(b.session.tokens, { input: 9000, output: 700, cache_creation: 2048, cache_read: 8192 });
    // The replies keep their prompts' usage; the rest is the thread's.
    assert.deepEqual(b.turns[4].tokens, { input: 2120, output: 240, cache_creation: 0, cache_read: 4096 });
    const row = (await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' })).rows.find((x) => x.key === 'zed');
    assert.ok(row);
    // The fixture's two threads (5120/640/2048/8192 and the first agent's 300/20) and these two.
    const t = row.tokens;
    assert.deepEqual([t.input, t.output, t.cache_creation, t.cache_read], [5120 + 300 + 5120 + 9000, 640 + 20 + 640 + 700, 2048 * 3, 8192 * 3]);
  } finally {
    restore();
    sb.cleanup();
  }
});
