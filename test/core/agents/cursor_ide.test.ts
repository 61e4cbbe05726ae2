// Cursor's editor chats: a state.vscdb with Cursor's tables (test/fixtures/cursor_ide/build.ts),
// read through the row records of its composerData/bubbleId keys: a prompt's answer bubbles as one
// reply (thinking, tool calls and results, summed token counts), title, project; only the session
// keys are in the records (not the look-alike keys beside them); then the pipeline.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BUILTIN, registry, useRegistry } from '../../../src/core/agents';
import { cursorIdeFiles } from '../../../src/core/agents/cursor_ide/paths';
import { capture } from '../../../src/core/floor/capture';
import { readSession, search } from '../../../src/core/recall';
import { cacheStats, toolCalls } from '../../../src/core/cache/reports';
import { sandbox } from '../../helpers/env';
import { rowRecords, writeLake } from '../../helpers/rowrecords';
import { filesRegistry, stageRows } from '../../helpers/rowagents';
import { checkCitation, said, turnsOf } from '../../helpers/rowchecks';
import { buildCursorIde, COMPOSER, CURSOR_BUBBLES, CURSOR_CWD } from '../../fixtures/cursor_ide/build';

function tmp(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'cursor-ide-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const tables = () => cursorIdeFiles.databases!({ HOME: '/h' })[0].tables;

test("Cursor IDE: a composer's bubbles give prompts and one reply per prompt, with thinking, tools and summed tokens", () => {
  const t = tmp();
  try {
    const db = path.join(t.dir, 'state.vscdb');
    buildCursorIde(db, { unrelated: 70 });
    const files = rowRecords(db, tables());
    assert.deepEqual([...files.keys()], [`${COMPOSER}.rows.jsonl`]);
    const lines = files.get(`${COMPOSER}.rows.jsonl`)!;
    // The composer and its bubbles, nothing of the keys around them.
    assert.equal(lines.length, 1 + CURSOR_BUBBLES.length);
    const r = turnsOf(writeLake(t.dir, 'c.rows.jsonl', lines), 'cursor_ide');
    assert.deepEqual(said(r.turns), [
      ['user', 'Why is the bilby cache never invalidated?'],
      ['assistant', 'The bilby cache keys ignore the file mtime, so invalidate() never fires.'],
      ['user', 'Fix it'],
      ['assistant', 'I could not apply the edit.'],
    ]);
    const a = r.turns[1];
    assert.equal(a.thinking, 'Look at the cache module.');
    assert.deepEqual(a.tools.map((u) => [u.id, u.name, u.arguments, u.output, u.is_error]), [['toolu_bilby_1', 'read_file', '{"target_file":"src/cache.rs"}', '{"contents":"fn invalidate() {}"}', false]]);
    assert.deepEqual(a.tokens, { input: 12040 + 13110, output: 88 + 412, cache_creation: 0, cache_read: 0 });
    assert.equal(r.turns[3].tools[0].is_error, true);
    assert.equal(a.model, 'claude-4.5-sonnet');
    assert.equal(r.turns[0].ts, '2025-12-25T19:35:08.486Z');
    assert.equal(r.facts.title_hint, 'Bilby cache invalidation');
    assert.equal(r.facts.cwd, CURSOR_CWD);
  } finally {
    t.done();
  }
});

test('Cursor IDE through the pipeline: recorded, searched, shown, its bubble token counts summed, cited', async () => {
  const sb = sandbox({ name: 'cursor-ide-rows' });
  const stage = path.join(sb.dir, 'rows');
  const db = path.join(sb.dir, 'state.vscdb');
  buildCursorIde(db, { unrelated: 50 });
  stageRows(BUILTIN.byLane('cursor_ide')!, sb.env, db, stage);
  const restore = useRegistry(filesRegistry('cursor_ide', stage));
  try {
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    assert.equal(rec.lanes.cursor_ide?.files, 1, JSON.stringify(rec.lanes));
    const r = search({ term: 'file mtime', agent: 'cursor-ide' }, sb.env);
    assert.equal(r.hits.length, 1);
    assert.equal(r.hits[0].session, COMPOSER);
    assert.equal(r.hits[0].project, CURSOR_CWD);
    for (const s of r.hits[0].snippets) {
      assert.match(s.text, /file mtime/);
      checkCitation(sb.brain, s.citation);
    }
    assert.equal(readSession({ session: COMPOSER }, sb.env).turns.length, 4);
    const raw = new BetterSqlite3(db, { readonly: true });
    const want = raw
      .prepare("SELECT sum(json_extract(value, '$.tokenCount.inputTokens')) AS i, sum(json_extract(value, '$.tokenCount.outputTokens')) AS o FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;'")
      .get() as { i: number; o: number };
    raw.close();
    const stats = await cacheStats(sb.brain, 'agent', { timeZone: 'UTC' });
    const row = stats.rows.find((x) => x.key === 'cursor-ide');
    assert.ok(row, JSON.stringify(stats.rows));
    assert.equal(row.tokens.input, want.i);
    assert.equal(row.tokens.output, want.o);
    assert.equal(row.turns, 4);
    assert.deepEqual(row.models, ['claude-4.5-sonnet']);
    const calls = await toolCalls(sb.brain, { agent: 'cursor_ide' });
    assert.equal(calls.total.calls, 2);
    assert.equal(calls.total.failures, 1);
  } finally {
    restore();
    sb.cleanup();
  }
  assert.equal(registry(), BUILTIN);
});
