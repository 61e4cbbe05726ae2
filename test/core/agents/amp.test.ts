// Amp threads, end to end, on a thread document built field for field from the public readers of
// Amp's format (test/fixtures/SOURCES.md): the dialect's turns, tool results joined to their calls,
// tokens and title; a thread rewritten whole recorded as a second generation, whose turns and usage
// count once across the two (index, derived.*, brain stats), searched, shown and cited; and where
// the threads are on each platform.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../../helpers/env';
import { amp as rawAmp } from '../../helpers/rawusage';
import { readTurns } from '../../../src/core/index/read';
import { capture } from '../../../src/core/floor/capture';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { search, readSession, verify } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { agentByLane } from '../../../src/core/agents';

const ID = 'T-019a7c3e-5b1d-7f20-9c4e-2a8b6d0e1f37';
const NOW = path.join(FIXTURES, 'amp', 'threads', `${ID}.json`);
const EARLIER = path.join(FIXTURES, 'amp', 'earlier', `${ID}.json`);

function parse(file: string, full: boolean) {
  const r = readTurns(file, 'amp', `threads/${ID}.json`, { full, tail: true });
  assert.ok(r);
  return r;
}

test('a thread: prompts, replies with their calls and results, usage, title, folder', () => {
  const r = parse(NOW, true);
  const doc = JSON.parse(fs.readFileSync(NOW, 'utf8'));
  const lines = fs.readFileSync(NOW, 'utf8').split('\n').length - 1;
  assert.deepEqual(
    r.turns.map((t) => [t.role, t.kind]),
    [['user', 'prompt'], ['assistant', 'reply'], ['assistant', 'reply'], ['assistant', 'reply'], ['user', 'prompt'], ['system', 'summary']],
  );
  // A user message of tool results only is no prompt; every turn cites the whole document.
  for (const t of r.turns) assert.deepEqual([t.span.line_from, t.span.line_to], [1, lines]);
  const [read] = r.turns[1].tools;
  assert.equal(read.name, 'Read');
  assert.match(read.output, /export function main/);
  assert.equal(read.is_error, false);
  assert.equal(r.turns[2].tools[0].is_error, true, 'run.status error');
  assert.equal(r.turns[1].thinking, 'The CLI entry point is src/cli.ts; read it first.');
  assert.equal(r.turns[1].model, 'claude-sonnet-4-5-20250929');
  const sum = r.turns.reduce((a, t) => (t.tokens ? [a[0] + t.tokens.input, a[1] + t.tokens.output, a[2] + t.tokens.cache_creation, a[3] + t.tokens.cache_read] : a), [0, 0, 0, 0]);
  const raw = rawAmp(NOW);
  assert.deepEqual(sum, [raw.input, raw.output, raw.cacheCreation, raw.cacheRead]);
  assert.equal(r.facts.title_hint, doc.title);
  assert.equal(r.facts.native_session, ID);
  assert.equal(r.facts.cwd, '/home/ana/code/cfgtool');
  assert.equal(r.turns[0].ts, new Date(doc.messages[0].meta.sentAt).toISOString());
  // Lean reads the same turns, without results and thinking.
  const lean = parse(NOW, false);
  assert.deepEqual(lean.turns.map((t) => [t.n, t.role, t.text]), r.turns.map((t) => [t.n, t.role, t.text]));
  assert.equal(lean.turns[1].tools[0].output, '');
});

test('a half-written document is a bad line, not turns', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(require('node:os').tmpdir()), 'amp-'));
  try {
    const f = path.join(dir, `${ID}.json`);
    const text = fs.readFileSync(NOW, 'utf8');
    fs.writeFileSync(f, text.slice(0, Math.floor(text.length / 2)));
    const r = parse(f, false);
    assert.equal(r.turns.length, 0);
    assert.equal(r.counts.bad, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

let sb: Sandbox;
let origin: string;

before(async () => {
  sb = sandbox({ name: 'amp' });
  sb.env.BRAIN_REWRITE_QUIET_SECONDS = '0';
  origin = path.join(sb.home, '.local', 'share', 'amp', 'threads', `${ID}.json`);
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  // Amp rewrites the thread whole as it goes: the earlier version, then the later one.
  fs.copyFileSync(EARLIER, origin);
  await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  fs.copyFileSync(NOW, origin);
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

test('each version is a generation of its own, byte for byte', () => {
  const lake = path.join(sb.brain, 'lake', 'amp', 'threads');
  assert.ok(fs.readFileSync(path.join(lake, `${ID}.json`)).equals(fs.readFileSync(EARLIER)));
  assert.ok(fs.readFileSync(path.join(lake, `${ID}.g2.json`)).equals(fs.readFileSync(NOW)));
});

test('a turn both versions hold counts once: index, show, derived.*, brain stats', async () => {
  const turns = parse(NOW, false).turns.filter((t) => t.role === 'user' || t.role === 'assistant').length;
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const [row] = o.index.findSessions(ID);
    assert.equal(row.turns, turns);
    // Amp's own title (of the newest version) beside the first prompt, which titles every session.
    assert.equal(row.title_hint, 'Add a --verbose flag to the CLI');
    assert.equal(row.title, 'Add a --verbose flag to the CLI and print the config it loaded.');
    assert.equal(row.project, '/home/ana/code/cfgtool');
  } finally {
    o.index.close();
  }
  const shown = readSession({ session: ID }, sb.env);
  assert.equal(shown.turns.filter((t) => t.role === 'user' || t.role === 'assistant').length, turns);
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1000, timeZone: 'UTC' })).rows;
  const [[users, replies]] = await q(`SELECT count(*) FILTER (WHERE role = 'user'), count(*) FILTER (WHERE role = 'assistant') FROM derived.messages WHERE agent = 'amp'`);
  assert.deepEqual([Number(users), Number(replies)], [2, 3]);
  const raw = rawAmp(origin);
  const [[i, out, w, h]] = await q(`SELECT sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens), sum(cache_read_tokens) FROM derived.usage WHERE agent = 'amp'`);
  assert.deepEqual([Number(i), Number(out), Number(w), Number(h)], [raw.input, raw.output, raw.cacheCreation, raw.cacheRead]);
  const calls = await q(`SELECT tool_name, is_error FROM derived.calls WHERE agent = 'amp' ORDER BY tool_name`);
  assert.deepEqual(calls.map((c) => [c[0], c[1]]), [['Read', false], ['edit_file', true]]);
  const [[project]] = await q(`SELECT project FROM derived.sessions WHERE agent = 'amp'`);
  assert.equal(project, '/home/ana/code/cfgtool');
  const st = await statsReport(sb.brain, 'agent', { env: sb.env });
  const r = st.rows.find((x) => x.key === 'amp');
  assert.ok(r);
  assert.equal(r.turns, turns);
  assert.equal(r.sessions, 1);
  assert.deepEqual([r.tokens.input, r.tokens.output, r.tokens.cache_creation, r.tokens.cache_read], [raw.input, raw.output, raw.cacheCreation, raw.cacheRead]);
  assert.equal(r.tool_calls, 2);
  assert.equal(r.tool_failures, 1);
});

test('search finds a prompt in the newest version once, and its citation verifies', () => {
  const out = search({ term: 'leave it for now', agent: 'amp' }, sb.env);
  const hit = out.hits.find((x) => x.session === ID);
  assert.ok(hit, out.header);
  assert.equal(hit.gen, 2);
  assert.ok(verify({ citation: hit.snippets[0].citation }, sb.env).ok);
  // Said in both versions: found once.
  const both = search({ term: 'look at the CLI entry point', agent: 'amp' }, sb.env);
  assert.equal(both.hits.find((x) => x.session === ID)?.matching_turns, 1);
});

test('paths: XDG_DATA_HOME, the old VS Code folder, Windows', () => {
  const a = agentByLane('amp');
  assert.ok(a);
  assert.equal(a.roots({ HOME: '/home/ana' })[0].dir, '/home/ana/.local/share/amp/threads');
  assert.equal(a.roots({ HOME: '/home/ana', XDG_DATA_HOME: '/data' })[0].dir, '/data/amp/threads');
  const win = a.roots({ HOME: 'C:\\Users\\Ana', BRAIN_PLATFORM: 'win32', APPDATA: 'C:\\Users\\Ana\\AppData\\Roaming' }).map((r) => r.dir);
  assert.equal(win[0], 'C:\\Users\\Ana\\.local\\share\\amp\\threads');
  assert.ok(win.includes('C:\\Users\\Ana\\AppData\\Roaming\\Code\\User\\globalStorage\\sourcegraph.amp\\threads3'));
  const mac = a.roots({ HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' }).map((r) => r.dir);
  assert.ok(mac.includes('/Users/ana/Library/Application Support/Code/User/globalStorage/sourcegraph.amp/threads3'));
  assert.equal(a.sessionOf(`threads/${ID}.json`), ID);
  assert.ok(a.rewritesWhole?.(`threads/${ID}.json`));
  assert.ok(a.roots({ HOME: '/h' })[0].include(`${ID}.json`) && !a.roots({ HOME: '/h' })[0].include(`sub/${ID}.json`));
});
