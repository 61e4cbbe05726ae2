// Aider's chat history, end to end, on real histories (test/fixtures/aider, SOURCES.md): the
// dialect's turns against counts the test makes itself from the Markdown; the folders a capture
// finds (BRAIN_PROJECT_DIRS, config.toml's project_dirs, AIDER_CHAT_HISTORY_FILE, and the folders
// another agent's session ran in, with their git root); the lake byte for byte; an appended
// history read again from the index's checkpoint; and the history searched, shown, cited,
// counted and summed in derived.* and `brain stats` as the raw files say.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../../helpers/env';
import { aider as rawAider } from '../../helpers/rawusage';
import { readTurns } from '../../../src/core/index/read';
import { capture } from '../../../src/core/floor/capture';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { search, readSession, verify } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { agentByLane } from '../../../src/core/agents';
import { aiderFolderName, forgetFoundDirs } from '../../../src/core/agents/aider/paths';
import { flatSkipper } from '../../../src/core/floor/watch';
import { validateConfig } from '../../../src/core/config';
import { titleKey } from '../../../src/core/truth';
import { titleOf, type Turn } from '../../../src/core/turns';

const HIST = '.aider.chat.history.md';
const NAMES = ['aider-history-start', 'aider-history-cache', 'zen-mcp-server'];
const fixture = (n: string) => path.join(FIXTURES, 'aider', n, HIST);

function parse(file: string, full: boolean) {
  const r = readTurns(file, 'aider', `x_00000000/${HIST}`, { full, tail: true });
  assert.ok(r, 'the aider dialect reads a chat history');
  return r;
}

/** What the Markdown says without the dialect: prompts are runs of `#### …  ` lines (a blank line
 * ends one), sessions are `# aider chat started at` headers, usage lines are `> Tokens:` lines. */
function countsOf(file: string) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let prompts = 0;
  let headers = 0;
  let tokens = 0;
  lines.forEach((l, i) => {
    const isPrompt = (s: string | undefined) => s !== undefined && s.startsWith('####') && s.endsWith('  ') && (s.length === 6 || s[4] === ' ');
    if (isPrompt(l) && !isPrompt(lines[i - 1])) prompts++;
    if (l.startsWith('# aider chat started at ')) headers++;
    if (l.startsWith('> Tokens: ')) tokens++;
  });
  return { prompts, headers, tokens };
}

const kinds = (turns: Turn[], role: string) => turns.filter((t) => t.role === role);

for (const n of NAMES) {
  test(`${n}: prompts, sessions and replies as the Markdown has them, lean and full alike`, () => {
    const c = countsOf(fixture(n));
    const full = parse(fixture(n), true);
    const lean = parse(fixture(n), false);
    assert.equal(kinds(full.turns, 'user').length, c.prompts, 'one prompt per run of #### lines');
    assert.equal(full.turns.filter((t) => t.kind === 'notice' && t.text.startsWith('aider chat started at ')).length, c.headers, 'a notice per session header');
    // Every usage line belongs to a reply, and a reply has at most one.
    assert.equal(kinds(full.turns, 'assistant').filter((t) => t.tokens).length, c.tokens);
    assert.deepEqual(
      lean.turns.map((t) => [t.n, t.role, t.kind, t.text, t.span.line_from, t.span.line_to]),
      full.turns.map((t) => [t.n, t.role, t.kind, t.text, t.span.line_from, t.span.line_to]),
    );
    assert.deepEqual(full.turns.map((t) => t.n), full.turns.map((_, i) => i + 1));
    // Spans follow each other and never overlap; prompts never carry Aider's framing.
    for (let i = 1; i < full.turns.length; i++) assert.ok(full.turns[i].span.line_from > full.turns[i - 1].span.line_to, `turn ${i + 1}`);
    for (const t of kinds(full.turns, 'user')) assert.ok(!/^#### |  $/m.test(t.text), t.text);
    assert.equal(full.counts.bad, 0);
  });
}

test('tokens, model, edits and commits of a reply; a prompt of several lines is one prompt', () => {
  const r = parse(fixture('aider-history-cache'), true);
  const first = kinds(r.turns, 'assistant')[0];
  assert.equal(first.model, 'claude-3-5-sonnet-20240620');
  // "> Tokens: 1.6k sent, 1.6k cache write, 51 received."
  assert.deepEqual(first.tokens, { input: 0, output: 51, cache_creation: 1600, cache_read: 0 });
  const sum = r.turns.reduce((a, t) => (t.tokens ? { i: a.i + t.tokens.input, o: a.o + t.tokens.output, w: a.w + t.tokens.cache_creation, h: a.h + t.tokens.cache_read } : a), { i: 0, o: 0, w: 0, h: 0 });
  const raw = rawAider(fixture('aider-history-cache'));
  assert.deepEqual(sum, { i: raw.input, o: raw.output, w: raw.cacheCreation, h: raw.cacheRead });
  const start = parse(fixture('aider-history-start'), true);
  const tools = start.turns.flatMap((t) => t.tools);
  const text = fs.readFileSync(fixture('aider-history-start'), 'utf8');
  assert.equal(tools.filter((x) => x.name === 'edit').length, (text.match(/^> Applied edit to /gm) ?? []).length);
  const commit = tools.find((x) => x.name === 'commit');
  assert.equal(commit?.id, 'fd43cd4');
  assert.equal(commit?.arguments, 'feat: Use the Spinner instead of the inlined custom spinner');
  // The emacs mode line and lint output above the first header are read, not lost.
  assert.equal(start.turns[0].span.line_from, 1);
  const zen = parse(fixture('zen-mcp-server'), true);
  const multi = kinds(zen.turns, 'user').find((t) => t.text.startsWith('/add /home/dragonfsky'));
  assert.equal(multi?.text.split('\n').length, 8);
  assert.equal(multi?.span.line_to, (multi?.span.line_from ?? 0) + 7);
  // What a command printed is a tool turn of its own, not a reply.
  assert.equal(kinds(zen.turns, 'assistant').length, 0);
  assert.ok(kinds(zen.turns, 'tool').some((t) => t.text.includes('Copied code context to clipboard.')));
});

test('read up to any line end, then from its checkpoint: the turns of one read', () => {
  const file = fixture('aider-history-start');
  const rel = `x_00000000/${HIST}`;
  const key = (t: Turn) => JSON.stringify([t.n, t.role, t.kind, t.text, t.span, t.tokens, t.tools.length]);
  const whole = parse(file, false).turns.map(key);
  const size = fs.statSync(file).size;
  let cuts = 0;
  for (let c = 1500; c < size; c += 4999) {
    const a = readTurns(file, 'aider', rel, { full: false, to: c });
    assert.ok(a);
    const b = readTurns(file, 'aider', rel, { full: false, resume: a.checkpoint, tail: true });
    assert.ok(b);
    const merged = [...a.turns.filter((t) => t.span.line_from < a.checkpoint.line), ...b.turns].map(key);
    assert.deepEqual(merged, whole, `cut at byte ${c}, checkpoint line ${a.checkpoint.line}`);
    cuts++;
  }
  assert.ok(cuts > 30);
});

// ---- capture, index, cache, recall ----

let sb: Sandbox;
const repos: Record<string, string> = {};

/** A Claude Code session whose cwd is `cwd` (the way a second agent names a folder). */
function ccSession(home: string, cwd: string): void {
  const dir = path.join(home, '.claude', 'projects', cwd.replace(/[/.]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const id = '7d2f6d8e-1b7a-4c55-9a0e-5f1c2d3e4f50';
  const lines = [
    { type: 'user', sessionId: id, cwd, uuid: 'u1', timestamp: '2025-01-02T03:04:05.000Z', message: { role: 'user', content: 'look at the repo' } },
    { type: 'assistant', sessionId: id, cwd, uuid: 'a1', parentUuid: 'u1', timestamp: '2025-01-02T03:04:06.000Z', message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'done' }], usage: { input_tokens: 1, output_tokens: 1 } } },
  ];
  fs.writeFileSync(path.join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l) + '\n').join(''));
}

async function record(): Promise<void> {
  forgetFoundDirs();
  await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    o.index.update();
  } finally {
    o.index.close();
  }
}

before(async () => {
  sb = sandbox({ name: 'aider' });
  // Three repositories: one named in BRAIN_PROJECT_DIRS, one in config.toml, one found because a
  // Claude Code session ran in a folder inside it (Aider writes at the git root).
  for (const n of NAMES) {
    repos[n] = path.join(sb.home, 'code', n);
    fs.mkdirSync(path.join(repos[n], '.git'), { recursive: true });
    fs.copyFileSync(fixture(n), path.join(repos[n], HIST));
  }
  // A history deeper in a repository is not the repository's: a root is never walked.
  fs.mkdirSync(path.join(repos['zen-mcp-server'], 'deep', 'er'), { recursive: true });
  fs.copyFileSync(fixture('zen-mcp-server'), path.join(repos['zen-mcp-server'], 'deep', 'er', HIST));
  fs.writeFileSync(path.join(repos['zen-mcp-server'], '.aider.input.history'), '\n# 2025-10-23 17:05:01.123456\n+/add **\n');
  fs.mkdirSync(sb.brain, { recursive: true });
  fs.writeFileSync(path.join(sb.brain, 'config.toml'), `project_dirs = [${JSON.stringify(repos['aider-history-cache'])}]\n`);
  sb.env.BRAIN_PROJECT_DIRS = repos['aider-history-start'];
  const inside = path.join(repos['zen-mcp-server'], 'tools', 'shared');
  fs.mkdirSync(inside, { recursive: true });
  ccSession(sb.home, inside);
  // The first pass records the Claude Code session; the index then names its folder.
  await record();
  await record();
  await rebuildCache(sb.brain);
});
after(() => sb.cleanup());

const lakeOf = (n: string, name = HIST) => path.join(sb.brain, 'lake', 'aider', aiderFolderName(sb.env, repos[n]), name);

test('each history is on the floor byte for byte, its input history beside it; nothing deeper', () => {
  for (const n of NAMES) assert.ok(fs.readFileSync(lakeOf(n)).equals(fs.readFileSync(path.join(repos[n], HIST))), n);
  assert.ok(fs.existsSync(lakeOf('zen-mcp-server', '.aider.input.history')));
  const all: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(path.join(d, e.name)) : all.push(path.join(d, e.name)));
  };
  walk(path.join(sb.brain, 'lake', 'aider'));
  assert.equal(all.length, 4, all.join('\n'));
});

test('the index counts, titles and names each history as the dialect reads it', () => {
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    for (const n of NAMES) {
      const id = aiderFolderName(sb.env, repos[n]);
      const rows = o.index.findSessions(id);
      assert.equal(rows.length, 1, n);
      const turns = parse(fixture(n), false).turns.filter((t) => t.role === 'user' || t.role === 'assistant');
      assert.equal(rows[0].turns, turns.length, n);
      // Titled as every session is (truth.ts): the first real prompt, a bare slash command only when
      // nothing else was asked.
      const prompts = turns.filter((t) => t.role === 'user');
      const first = prompts.reduce<(typeof prompts)[number] | undefined>((a, t) => (!a || titleKey(t) < titleKey(a) ? t : a), undefined);
      assert.equal(rows[0].title, titleOf(first?.text ?? ''));
      assert.ok(rows[0].project && repos[n].replace(/^\//, '').replace(/[/.]+/g, '-').endsWith(rows[0].project.replace(/^.*?code-/, 'code-')), `${rows[0].project}`);
    }
  } finally {
    o.index.close();
  }
});

test('search finds a reply, show reads it with tools and tokens, and its citation verifies', () => {
  const out = search({ term: 'IgnorantTemporaryDirectory', agent: 'aider' }, sb.env);
  assert.equal(out.source, 'index');
  const hit = out.hits.find((h) => h.lane === 'aider');
  assert.ok(hit, out.header);
  assert.equal(hit.session, aiderFolderName(sb.env, repos['aider-history-start']));
  const c = hit.snippets[0].citation;
  const bytes = fs.readFileSync(path.join(sb.brain, c.lake_path.startsWith('lake/') ? c.lake_path : path.join('lake', c.lake_path)));
  const lines = bytes.toString('utf8').split('\n').slice(c.line_from - 1, c.line_to).join('\n') + '\n';
  assert.equal(crypto.createHash('sha256').update(lines).digest('hex'), c.sha256, 'sed -n A,Bp | sha256sum');
  assert.ok(verify({ citation: c }, sb.env).ok);
  const shown = readSession({ session: hit.session }, sb.env);
  assert.equal(shown.session.agent, 'aider');
  const replies = shown.turns.filter((t) => t.role === 'assistant');
  assert.ok(replies.some((t) => t.tools.some((x) => x.name === 'commit' && x.arguments.startsWith('feat: Use the Spinner'))));
  assert.ok(replies.some((t) => t.tokens && t.tokens.input === 5244 && t.tokens.output === 604));
});

test('derived.* and brain stats: turns as the index counts them, tokens as the raw files sum', async () => {
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1_000_000, timeZone: 'UTC' })).rows;
  for (const n of NAMES) {
    const origin = path.join(repos[n], HIST);
    const turns = parse(origin, true).turns;
    const [[users, replies]] = await q(
      `SELECT count(*) FILTER (WHERE role = 'user'), count(*) FILTER (WHERE role = 'assistant') FROM derived.messages m JOIN derived.files s USING (file_id) WHERE s.abs_path = '${origin}'`,
    );
    assert.equal(Number(users), kinds(turns, 'user').length, `${n} prompts`);
    assert.equal(Number(replies), kinds(turns, 'assistant').length, `${n} replies`);
    const [[calls]] = await q(`SELECT count(*) FROM derived.tool_calls t JOIN derived.files s USING (file_id) WHERE s.abs_path = '${origin}'`);
    assert.equal(Number(calls), turns.reduce((a, t) => a + t.tools.length, 0), `${n} tool calls`);
    const [[input, output, write, hit]] = (await q(
      `SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cache_creation_tokens), 0), coalesce(sum(cache_read_tokens), 0) FROM derived.usage WHERE abs_path = '${origin}'`,
    )) as number[][];
    const raw = rawAider(origin);
    assert.deepEqual([Number(input), Number(output), Number(write), Number(hit)], [raw.input, raw.output, raw.cacheCreation, raw.cacheRead], `${n} tokens`);
    const [[project]] = await q(`SELECT project FROM derived.files WHERE abs_path = '${origin}'`);
    assert.equal(project, repos[n]);
  }
  const st = await statsReport(sb.brain, 'agent', { env: sb.env });
  const row = st.rows.find((r) => r.key === 'aider');
  assert.ok(row, JSON.stringify(st.rows.map((r) => r.key)));
  const expectTurns = NAMES.reduce((a, n) => a + parse(fixture(n), false).turns.filter((t) => t.role === 'user' || t.role === 'assistant').length, 0);
  assert.equal(row.turns, expectTurns);
  assert.equal(row.sessions, 3);
  const raw = NAMES.map((n) => rawAider(fixture(n)));
  assert.deepEqual(
    [row.tokens.input, row.tokens.output, row.tokens.cache_creation, row.tokens.cache_read],
    [raw.reduce((a, t) => a + t.input, 0), raw.reduce((a, t) => a + t.output, 0), raw.reduce((a, t) => a + t.cacheCreation, 0), raw.reduce((a, t) => a + t.cacheRead, 0)],
  );
  assert.ok(row.models.includes('claude-3-5-sonnet-20240620'));
});

test('a history appended in pieces is indexed from its checkpoint to the turns of one read', async () => {
  const n = 'aider-history-start';
  const file = path.join(repos[n], HIST);
  const whole = fs.readFileSync(fixture('aider-history-cache'));
  // Aider appends whole lines (append_chat_history ends each write with a newline); the pieces
  // end inside replies, prompts and Aider's words, at the line end after each of these offsets.
  const cuts = [0, ...[4000, 4100, 20000, 77777].map((c) => whole.indexOf(10, c) + 1), whole.length];
  for (let i = 1; i < cuts.length; i++) {
    fs.appendFileSync(file, whole.subarray(cuts[i - 1], cuts[i]));
    await record();
  }
  const expect = parse(file, false).turns.filter((t) => t.role === 'user' || t.role === 'assistant').length;
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const [row] = o.index.findSessions(aiderFolderName(sb.env, repos[n]));
    assert.equal(row.turns, expect);
  } finally {
    o.index.close();
  }
  assert.ok(fs.readFileSync(lakeOf(n)).equals(fs.readFileSync(file)), 'appended to the same lake file');
  assert.ok(!fs.existsSync(`${lakeOf(n)}.g2`), 'no generation: the history only grew');
});

test('paths: Windows and macOS folders, AIDER_CHAT_HISTORY_FILE, a bad config value named', () => {
  const a = agentByLane('aider');
  assert.ok(a);
  const win = { HOME: 'C:\\Users\\Ana', BRAIN_PLATFORM: 'win32', BRAIN_HOME: path.join(sb.dir, 'nobrain') };
  assert.match(aiderFolderName(win, 'D:\\code\\proj'), /^D-code-proj_[0-9a-f]{8}$/);
  assert.notEqual(aiderFolderName(win, 'D:\\code\\proj'), aiderFolderName(win, 'D:\\code-proj'));
  assert.match(aiderFolderName({ HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' }, '/Users/ana/code/p'), /^Users-ana-code-p_[0-9a-f]{8}$/);
  // A history Aider was told to keep elsewhere is recorded there, under its own name.
  const moved = path.join(sb.dir, 'elsewhere');
  fs.mkdirSync(moved, { recursive: true });
  fs.copyFileSync(fixture('zen-mcp-server'), path.join(moved, 'chat.md'));
  const roots = a.roots({ ...sb.env, BRAIN_PROJECT_DIRS: '', AIDER_CHAT_HISTORY_FILE: path.join(moved, 'chat.md') });
  const r = roots.find((x) => x.dir === moved);
  assert.ok(r && r.flat && r.include('chat.md') && !r.include(HIST));
  assert.ok(a.dialect.reads(`${r.lakePrefix}/chat.md`) && !a.dialect.reads(`${r.lakePrefix}/.aider.input.history`));
  assert.equal(a.sessionOf(`${r.lakePrefix}/chat.md`), r.lakePrefix);
  // config.toml's project_dirs: absolute folders, or an error naming the key.
  assert.throws(() => validateConfig({ project_dirs: ['code/p'] }, 'config.toml', sb.env, { checkLocalStore: false }), /project_dirs = code\/p is not a list of absolute folders/);
  assert.deepEqual(validateConfig({ project_dirs: ['/a/b'] }, 'config.toml', sb.env, { checkLocalStore: false }).project_dirs, ['/a/b']);
});

test('the watcher looks at a flat root\'s own files only, and still into another agent\'s root inside it', () => {
  const skip = flatSkipper([
    { dir: '/h/code/p', lakePrefix: 'x', include: (rel) => rel === HIST, flat: true },
    { dir: '/h/code/p/sub', lakePrefix: 'y', include: (rel) => rel === HIST, flat: true },
    { dir: '/h/code/p/.agent/sessions', lakePrefix: '', include: () => true },
  ]);
  assert.equal(skip('/h/code/p'), false);
  assert.equal(skip(`/h/code/p/${HIST}`), false);
  assert.equal(skip('/h/code/p/node_modules'), true);
  assert.equal(skip('/h/code/p/src/a.ts'), true);
  assert.equal(skip(`/h/code/p/sub/${HIST}`), false, 'a nested repository');
  assert.equal(skip('/h/code/p/.agent/sessions/s.jsonl'), false);
  assert.equal(skip('/h/elsewhere/x'), false);
});
