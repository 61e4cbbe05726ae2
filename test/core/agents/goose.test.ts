// Goose: a sessions.db built with Goose's own DDL (test/fixtures/goose/build.ts) read through its
// row records: turns with tool calls and results, title, project, model; a row edited in place and
// a row deleted; then the whole pipeline (capture, search, show, stats with the tokens Goose
// recorded, citations checked with sed and sha256sum).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BUILTIN, registry, useRegistry } from '../../../src/core/agents';
import { gooseFiles } from '../../../src/core/agents/goose/paths';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { runReadOnlySql } from '../../../src/core/cache';
import { sandbox } from '../../helpers/env';
import { rowRecords, writeLake, delLine } from '../../helpers/rowrecords';
import { filesRegistry, stageRows } from '../../helpers/rowagents';
import { checkCitation, said, turnsOf } from '../../helpers/rowchecks';
import { buildGoose, GOOSE_SESSIONS } from '../../fixtures/goose/build';

function tmp(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'goose-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const tables = () => gooseFiles.databases!({ HOME: '/h' })[0].tables;

test('Goose: each session is a row-record file whose turns, tools, title, project and model come from its rows', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'sessions.db');
    buildGoose(db);
    const files = rowRecords(db, tables());
    assert.deepEqual([...files.keys()].sort(), ['20250314_1.rows.jsonl', '20250314_2.rows.jsonl']);
    const s1 = GOOSE_SESSIONS[0];
    const file = writeLake(t.dir, '20250314_1.rows.jsonl', files.get('20250314_1.rows.jsonl')!);
    const r = turnsOf(file, 'goose');
    assert.equal(r.counts.bad, 0);
    assert.deepEqual(said(r.turns), [
      ['user', 'Which files are in the shop project? Mention the quokka manifest.'],
      ['assistant', 'I will list them.'],
      ['assistant', 'There are three entries: Cargo.toml, quokka.toml (the quokka manifest) and src.'],
      ['user', 'Thanks, now read quokka.toml'],
      ['assistant', ''],
      ['assistant', 'The file could not be read: No such file.'],
    ]);
    const ls = r.turns[1].tools[0];
    assert.deepEqual([ls.id, ls.name, JSON.parse(ls.arguments), ls.output, ls.is_error], ['call_ls_1', 'developer__shell', { command: 'ls' }, 'Cargo.toml\nquokka.toml\nsrc', false]);
    const cat = r.turns[4].tools[0];
    assert.deepEqual([cat.name, cat.output, cat.is_error], ['developer__text_editor', 'No such file', true]);
    // The reply's span covers the row of its tool result too.
    assert.ok(r.turns[1].span.line_to > r.turns[1].span.line_from);
    assert.equal(r.facts.title_hint, s1.name);
    assert.equal(r.facts.cwd, s1.dir);
    assert.equal(r.turns[1].model, s1.model);
    assert.equal(r.turns[0].ts, new Date(s1.messages[0].at * 1000).toISOString());
    assert.equal(r.turns[0].cwd, s1.dir);
    // Thinking is read in full, left out for the index.
    const f2 = writeLake(t.dir, '20250314_2.rows.jsonl', files.get('20250314_2.rows.jsonl')!);
    assert.equal(turnsOf(f2, 'goose').turns[1].thinking, 'Look at build.rs first.');
    assert.equal(turnsOf(f2, 'goose', false).turns[1].thinking, '');
  } finally {
    t.done();
  }
});

test('Goose: a message edited in place keeps its old text as a notice; a deleted one stays, with a notice; a replaced conversation is not shown twice', () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'sessions.db');
    buildGoose(db);
    const before = rowRecords(db, tables()).get('20250314_2.rows.jsonl')!;
    const w = new BetterSqlite3(db);
    w.prepare(`UPDATE messages SET content_json = ? WHERE session_id = '20250314_2' AND role = 'user'`).run(JSON.stringify([{ type: 'text', text: 'How is the wombat crate built and tested?' }]));
    w.close();
    const after = rowRecords(db, tables()).get('20250314_2.rows.jsonl')!;
    const changed = after.filter((l) => !before.includes(l));
    assert.equal(changed.length, 1);
    const file = writeLake(t.dir, '20250314_2.rows.jsonl', [...before, ...changed]);
    const r = turnsOf(file, 'goose');
    assert.deepEqual(said(r.turns)[0], ['user', 'How is the wombat crate built and tested?']);
    const old = r.turns.find((x) => x.kind === 'notice');
    assert.ok(old && old.text.includes('How is the wombat crate built?') && old.role === 'system', JSON.stringify(r.turns));
    assert.equal(old.span.line_from, before.findIndex((l) => l.includes('How is the wombat crate built?')) + 1);

    // The assistant message deleted: still shown, and a notice at the tombstone says so.
    const msgKey = (JSON.parse(before.find((l) => l.includes('"assistant"'))!) as { key: number[] }).key;
    const file2 = writeLake(t.dir, 'del.rows.jsonl', [...before, delLine('messages', msgKey)]);
    const r2 = turnsOf(file2, 'goose');
    assert.deepEqual(said(r2.turns).map((x) => x[0]), ['user', 'assistant']);
    const gone = r2.turns[r2.turns.length - 1];
    assert.equal(gone.kind, 'notice');
    assert.match(gone.text, /1 row\(s\) of this session deleted from Goose's database/);
    assert.equal(gone.span.line_from, before.length + 1);

    // Goose replaces a conversation by deleting its rows and inserting them again: shown once.
    const again = before.filter((l) => l.includes('"table":"messages"')).map((l) => {
      const j = JSON.parse(l) as { key: number[]; cols: [string, string, unknown][] };
      const k = j.key[0] + 100;
      return JSON.stringify({ op: 'row', table: 'messages', key: [k], cols: j.cols.map((c) => (c[0] === 'id' ? [c[0], c[1], k] : c)) });
    });
    const dels = before.filter((l) => l.includes('"table":"messages"')).map((l) => delLine('messages', (JSON.parse(l) as { key: number[] }).key));
    const file3 = writeLake(t.dir, 'replaced.rows.jsonl', [...before, ...again, ...dels]);
    const r3 = turnsOf(file3, 'goose');
    assert.equal(said(r3.turns).length, 2, JSON.stringify(said(r3.turns)));
  } finally {
    t.done();
  }
});

test('Goose through the pipeline: recorded, searched, shown, counted (tokens as Goose summed them), cited', async () => {
  const sb = sandbox({ name: 'goose-rows' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'sessions.db');
  buildGoose(db);
  const goose = BUILTIN.byLane('goose')!;
  stageRows(goose, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('goose', stage));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.goose?.files, 2, JSON.stringify(rec.lanes));
    const r = search({ term: 'quokka manifest', agent: 'goose' }, sb.env);
    assert.equal(r.hits.length, 1);
    const h = r.hits[0];
    assert.equal(h.session, '20250314_1');
    assert.equal(h.project, '/home/ana/src/shop');
    assert.equal(h.tier, 'turns');
    assert.equal(h.matching_turns, 2);
    for (const s of h.snippets) {
      assert.match(s.text, /quokka manifest/);
      checkCitation(sb.brain, s.citation);
    }
    const shown = readSession({ session: '20250314_1' }, sb.env);
    assert.equal(shown.turns.filter((x) => x.role === 'user' || x.role === 'assistant').length, 6);
    assert.equal(shown.turns[1].tools[0].output, 'Cargo.toml\nquokka.toml\nsrc');

    // Tokens: what Goose summed per session, read from its database with plain SQL here.
    const raw = new BetterSqlite3(db, { readonly: true });
    const sum = raw.prepare('SELECT sum(accumulated_input_tokens) AS i, sum(accumulated_output_tokens) AS o FROM sessions').get() as { i: number; o: number };
    const own = raw.prepare("SELECT accumulated_input_tokens AS i, accumulated_output_tokens AS o FROM sessions WHERE id = '20250314_1'").get() as { i: number; o: number };
    raw.close();
    // show: the session's totals are its tokens (no message carries any).
    assert.ok(own.i > 0);
    assert.deepEqual(shown.session.tokens, { input: own.i, output: own.o, cache_creation: 0, cache_read: 0 });
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'goose');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.sessions, 2);
    assert.equal(row.tokens.input, sum.i);
    assert.equal(row.tokens.output, sum.o);
    assert.deepEqual(row.models.sort(), ['claude-sonnet-4-20250514', 'gpt-4o']);
    const calls = await toolCalls(sb.brain, { agent: 'goose' });
    assert.equal(calls.total.calls, 2);
    assert.equal(calls.total.failures, 1);
    const msgs = await runReadOnlySql(sb.brain, `SELECT role, text, project FROM derived.messages WHERE agent = 'goose' AND turn_id IS NOT NULL ORDER BY session_id, event_time, line_no`, { timeZone: 'UTC' });
    assert.equal(msgs.rows.length, 8);
    assert.deepEqual(msgs.rows[0], ['user', 'Which files are in the shop project? Mention the quokka manifest.', '/home/ana/src/shop']);
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});

test("Goose's usage_ledger (newer builds): a session with ledger rows is counted per request, the others from their totals", async () => {
  const sb = sandbox({ name: 'goose-ledger' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'sessions.db');
  buildGoose(db, { ledger: true });
  stageRows(BUILTIN.byLane('goose')!, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('goose', stage));
  try {
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const raw = new BetterSqlite3(db, { readonly: true });
    const ledger = raw.prepare('SELECT sum(input_tokens) AS i, sum(output_tokens) AS o, sum(cache_read_tokens) AS cr, sum(cache_write_tokens) AS cw FROM usage_ledger').get() as { i: number; o: number; cr: number; cw: number };
    const other = raw.prepare('SELECT accumulated_input_tokens AS i, accumulated_output_tokens AS o FROM sessions WHERE id NOT IN (SELECT session_id FROM usage_ledger)').get() as { i: number; o: number };
    const own = raw
      .prepare("SELECT sum(input_tokens) AS i, sum(output_tokens) AS o, sum(cache_read_tokens) AS cr, sum(cache_write_tokens) AS cw FROM usage_ledger WHERE session_id = '20250314_1'")
      .get() as { i: number; o: number; cr: number; cw: number };
    raw.close();
    const row = (await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' })).rows.find((x) => x.key === 'goose');
    assert.ok(row);
    assert.deepEqual([row.tokens.input, row.tokens.output, row.tokens.cache_read, row.tokens.cache_creation], [ledger.i + other.i, ledger.o + other.o, ledger.cr, ledger.cw]);
    // The ledger's rows are in the session's lake file, and its turns are unchanged.
    const shown = readSession({ session: '20250314_1' }, sb.env);
    assert.equal(shown.turns.filter((x) => x.role === 'user' || x.role === 'assistant').length, 6);
    // show: the session's ledger rows added up, not its totals as well.
    assert.ok(own.i > 0);
    assert.deepEqual(shown.session.tokens, { input: own.i, output: own.o, cache_creation: own.cw, cache_read: own.cr });
  } finally {
    restore();
    sb.cleanup();
  }
});
