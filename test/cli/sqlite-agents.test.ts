// Goose, Zed, Kiro CLI (and Amazon Q), Warp and Cursor's editor chats end to end: their databases,
// built with each agent's own schema (test/fixtures/<agent>/build.ts), sit where each agent keeps
// them in a temp HOME; `brain record` records them as row records; search finds a phrase of each,
// show shows the turns, stats counts the tokens each agent recorded (summed here straight from the
// databases), citations check with sed and sha256sum; a second record appends nothing; an edited
// and a deleted row are recorded as a new version and a tombstone, the old text still found.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { brain, sandbox, listFiles, type Sandbox } from '../helpers/env';
import { checkCitation } from '../helpers/rowchecks';
import { rawDbUsage } from '../helpers/rawdbusage';
import { buildGoose } from '../fixtures/goose/build';
import { buildZed, ZED_THREAD_ID, ZED_LEGACY_ID } from '../fixtures/zed/build';
import { buildAmazonQ, buildKiro, KIRO_ID, Q_ID } from '../fixtures/kiro/build';
import { buildWarp, WARP_CONVERSATION } from '../fixtures/warp/build';
import { buildCursorIde, COMPOSER } from '../fixtures/cursor_ide/build';

const mk = (f: string) => {
  fs.mkdirSync(path.dirname(f), { recursive: true });
  return f;
};

function places(sb: Sandbox) {
  const data = sb.env.XDG_DATA_HOME!;
  return {
    goose: mk(path.join(data, 'goose', 'sessions', 'sessions.db')),
    zed: mk(path.join(data, 'zed', 'threads', 'threads.db')),
    kiro: mk(path.join(data, 'kiro-cli', 'data.sqlite3')),
    q: mk(path.join(data, 'amazon-q', 'data.sqlite3')),
    warp: mk(path.join(sb.env.XDG_STATE_HOME!, 'warp-terminal', 'warp.sqlite')),
    cursor: mk(path.join(sb.env.XDG_CONFIG_HOME!, 'Cursor', 'User', 'globalStorage', 'state.vscdb')),
  };
}

const json = (r: { status: number | null; stdout: string; stderr: string }) => {
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('the SQLite agents end to end: recorded by brain record, searched, shown, counted, cited, edited and deleted', () => {
  const sb = sandbox({ name: 'sqlite-agents' });
  try {
    const p = places(sb);
    buildGoose(p.goose);
    buildZed(p.zed);
    buildKiro(p.kiro);
    buildAmazonQ(p.q);
    buildWarp(p.warp);
    buildCursorIde(p.cursor, { unrelated: 500 });
    const env = { BRAIN_QUIET_SECONDS: '0' };
    const rec = json(brain(sb, ['record', '--json'], { env }));
    const lanes = rec.lanes ?? rec.report?.lanes ?? {};
    for (const lane of ['goose', 'zed', 'kiro', 'warp', 'cursor_ide']) assert.ok(lanes[lane]?.files >= 1, `${lane}: ${JSON.stringify(lanes)}`);
    const lake = path.join(sb.brain, 'lake');
    const files = listFiles(lake).filter((f) => /^(goose|zed|kiro|warp|cursor_ide)\//.test(f));
    assert.deepEqual(files.sort(), [
      `cursor_ide/${COMPOSER}.rows.jsonl`,
      'goose/20250314_1.rows.jsonl',
      'goose/20250314_2.rows.jsonl',
      `kiro/amazon-q/${Q_ID}.rows.jsonl`,
      `kiro/kiro-cli/${KIRO_ID}.rows.jsonl`,
      `warp/stable/${WARP_CONVERSATION}.rows.jsonl`,
      `zed/${ZED_LEGACY_ID}.rows.jsonl`,
      `zed/${ZED_THREAD_ID}.rows.jsonl`,
    ].sort());
    // Only the session keys of Cursor's table are in its lake file.
    assert.equal(fs.readFileSync(path.join(lake, `cursor_ide/${COMPOSER}.rows.jsonl`), 'utf8').trim().split('\n').length, 7);

    for (const [agent, term, session] of [
      ['goose', 'quokka manifest', '20250314_1'],
      ['zed', 'platypus state', ZED_THREAD_ID],
      ['kiro', 'koala tests', KIRO_ID],
      ['amazon-q', 'numbat config', Q_ID],
      ['warp', 'emu config', WARP_CONVERSATION],
      ['cursor-ide', 'file mtime', COMPOSER],
    ]) {
      const s = json(brain(sb, ['search', term, '--agent', agent, '--json']));
      assert.equal(s.hits.length, 1, `${agent}: ${JSON.stringify(s.hits.map((h: { session: string }) => h.session))}`);
      assert.equal(s.hits[0].session, session);
      for (const sn of s.hits[0].snippets) checkCitation(sb.brain, sn.citation);
      const shown = json(brain(sb, ['show', session, '--json']));
      assert.ok(shown.turns.some((t: { role: string; text: string }) => t.role !== 'system' && t.text.includes(term.split(' ')[0])), `${agent}: show`);
    }

    // Nothing changed: a second record appends nothing.
    const sizes = () => Object.fromEntries(files.map((f) => [f, fs.statSync(path.join(lake, f)).size]));
    const before = sizes();
    json(brain(sb, ['record', '--json'], { env }));
    assert.deepEqual(sizes(), before);

    // A Goose message edited in place and a Zed thread deleted.
    const g = new BetterSqlite3(p.goose);
    g.prepare(`UPDATE messages SET content_json = ? WHERE session_id = '20250314_2' AND role = 'user'`).run(JSON.stringify([{ type: 'text', text: 'How is the wombat crate built and released?' }]));
    g.close();
    const zdb = new BetterSqlite3(p.zed);
    zdb.prepare('DELETE FROM threads WHERE id = ?').run(ZED_LEGACY_ID);
    zdb.close();
    json(brain(sb, ['record', '--json'], { env }));
    const after = sizes();
    assert.ok(after['goose/20250314_2.rows.jsonl'] > before['goose/20250314_2.rows.jsonl']);
    assert.ok(after[`zed/${ZED_LEGACY_ID}.rows.jsonl`] > before[`zed/${ZED_LEGACY_ID}.rows.jsonl`]);
    const gs = json(brain(sb, ['show', '20250314_2', '--json']));
    assert.equal(gs.turns[0].text, 'How is the wombat crate built and released?');
    assert.ok(gs.turns.some((t: { kind: string; text: string }) => t.kind === 'notice' && t.text.includes('How is the wombat crate built?')));
    const old = json(brain(sb, ['search', 'wombat crate built?', '--agent', 'goose', '--json']));
    assert.equal(old.hits.length, 1);
    const zs = json(brain(sb, ['show', ZED_LEGACY_ID, '--json']));
    assert.ok(zs.turns.some((t: { text: string }) => t.text === 'It enables the echidna spike mode.'));
    assert.match(zs.turns[zs.turns.length - 1].text, /deleted from Zed's database/);
    assert.equal(json(brain(sb, ['search', 'echidna spike', '--json'])).hits.length, 1);
  } finally {
    sb.cleanup();
  }
});

test('stats counts the tokens and tool calls each SQLite agent recorded, after a real brain record', () => {
  const sb = sandbox({ name: 'sqlite-agents-stats' });
  try {
    const p = places(sb);
    buildGoose(p.goose);
    buildZed(p.zed);
    buildKiro(p.kiro);
    buildAmazonQ(p.q);
    buildWarp(p.warp);
    buildCursorIde(p.cursor, { unrelated: 500 });
    json(brain(sb, ['record', '--json'], { env: { BRAIN_QUIET_SECONDS: '0' } }));
    // What each agent recorded, summed from its database here (test/helpers/rawdbusage.ts).
    const want = rawDbUsage(sb.home);
    assert.deepEqual([...want.keys()].sort(), ['cursor-ide', 'goose', 'warp', 'zed']);
    const st = json(brain(sb, ['stats', '--json']));
    for (const [agent, t] of want) {
      const row = st.rows.find((r: { key: string }) => r.key === agent);
      assert.ok(row, `${agent} in ${JSON.stringify(st.rows.map((r: { key: string }) => r.key))}`);
      assert.deepEqual([row.tokens.input, row.tokens.output, row.tokens.cache_creation, row.tokens.cache_read], [t.input, t.output, t.cacheCreation, t.cacheRead], agent);
      assert.ok(t.input > 0, `${agent} has tokens to count`);
    }
    assert.equal(st.rows.find((r: { key: string }) => r.key === 'kiro-cli').turns, 8);
    const calls = json(brain(sb, ['calls', '--json']));
    const total = (agent: string) => calls.rows.filter((r: { agent: string }) => r.agent === agent).reduce((a: number, r: { calls: number }) => a + r.calls, 0);
    assert.deepEqual([total('goose'), total('zed'), total('kiro-cli'), total('warp'), total('cursor-ide')], [2, 1, 2, 1, 2]);
  } finally {
    sb.cleanup();
  }
});
