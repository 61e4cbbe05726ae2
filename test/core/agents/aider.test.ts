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
import { openIndex, type SessionRow } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { search, readSession, verify } from '../../../src/core/recall';
import type { ReadOutput, SearchOutput } from '../../../src/core/recall/types';
import { callTool } from '../../../src/core/tools';
import { statsReport } from '../../../src/core/recall/stats';
import { FloorView } from '../../../src/core/recall/floorview';
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

/** The sessions of a history as the Markdown has them, without the dialect: each
 * `# aider chat started at` header starts one (numbered from 1), running to the
 * line before the next; with its start (as Aider wrote it) and its prompts (runs of `#### ` lines).
 * The first (number 0) is what comes before the first header: the folder's own session (a slice
 * of a history may start inside a session). */
function headersOf(text: string) {
  const lines = text.split('\n');
  const out: { n: number; from: number; to: number; started: string | null; prompts: number }[] = [{ n: 0, from: 1, to: lines.length, started: null, prompts: 0 }];
  const isPrompt = (s: string | undefined) => s !== undefined && s.startsWith('####') && s.endsWith('  ') && (s.length === 6 || s[4] === ' ');
  lines.forEach((l, i) => {
    const h = /^# aider chat started at (\S+) (\S+)/.exec(l);
    if (h) {
      out[out.length - 1].to = i;
      out.push({ n: out.length, from: i + 1, to: lines.length, started: `${h[1]}T${h[2]}`, prompts: 0 });
    } else if (isPrompt(l) && !isPrompt(lines[i - 1])) out[out.length - 1].prompts++;
  });
  return out;
}

/** A session's id: the folder's, and its header's time (as digits) after it. */
const idOf = (folder: string, h: { started: string | null }) => (h.started ? `${folder}.${h.started.replace(/\D/g, '')}` : folder);
const keyOf = (h: { started: string | null }) => (h.started ? Number(h.started.replace(/\D/g, '')) : null);

/** A section's turns as the dialect reads them (a prompt or a reply). */
const turnsIn = (turns: Turn[], h: { from: number; to: number }) => turns.filter((t) => (t.role === 'user' || t.role === 'assistant') && t.span.line_from >= h.from && t.span.line_from <= h.to);

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
    // Each entry is of the session of the last header above it (none above: the file's own).
    const heads = headersOf(fs.readFileSync(fixture(n), 'utf8'));
    for (const t of full.turns) assert.equal(t.section ?? null, keyOf(heads.find((h) => t.span.line_from >= h.from && t.span.line_from <= h.to)!), `turn ${t.n}`);
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

/** The turn index's rows of the sessions in a history file: the file's own (`id`) and one per
 * header (`id.20240805193302`, …), in the order they were met. */
function indexRows(id: string) {
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    const own = o.index.findSessions(id).find((r) => r.session === id);
    assert.ok(own, id);
    const sections = o.index.db.prepare(`SELECT * FROM sessions WHERE whole = ? ORDER BY id`).all(own.id) as SessionRow[];
    return { own, sections, listed: o.index.sessions().filter((r) => r.lane === 'aider') };
  } finally {
    o.index.close();
  }
}

test('the index has a session per header: its id, start, title and turns as the Markdown has them', () => {
  let counted = 0;
  const listed = new Set(indexRows(aiderFolderName(sb.env, repos[NAMES[0]])).listed.map((r) => r.session));
  for (const n of NAMES) {
    const id = aiderFolderName(sb.env, repos[n]);
    const heads = headersOf(fs.readFileSync(fixture(n), 'utf8'));
    const turns = parse(fixture(n), false).turns;
    const { own, sections } = indexRows(id);
    assert.equal(sections.length, heads.length - 1, `${n}: a session per header`);
    for (const h of heads) {
      // What comes before the first header (the end of a session whose header the slice cut) is
      // the folder's own session.
      const row = h.n ? sections[h.n - 1] : own;
      assert.equal(row.session, idOf(id, h));
      assert.equal(row.section, keyOf(h));
      if (h.n) assert.equal(row.started, h.started, `${row.session}: started at its header`);
      const mine = turnsIn(turns, h);
      assert.equal(row.turns, mine.length, `${row.session}: turns`);
      assert.equal(mine.filter((t) => t.role === 'user').length, h.prompts, `${row.session}: prompts`);
      // Titled as every session is (truth.ts), by its own prompts.
      const prompts = mine.filter((t) => t.role === 'user' && t.text);
      const first = prompts.reduce<(typeof prompts)[number] | undefined>((a, t) => (!a || titleKey(t) < titleKey(a) ? t : a), undefined);
      assert.equal(row.title, first ? titleOf(first.text) : null, `${row.session}: title`);
      assert.ok(row.project && repos[n].replace(/^\//, '').replace(/[/.]+/g, '-').endsWith(row.project.replace(/^.*?code-/, 'code-')), `${row.project}`);
      assert.equal(listed.has(row.session), row.turns > 0, `${row.session}: listed when it has a turn`);
      if (row.turns > 0) counted++;
    }
  }
  assert.ok(counted > 40, `${counted}`);
});

test('show reads one session: its turns only, its start, each turn cited inside its header\'s lines', () => {
  const n = 'aider-history-start';
  const id = aiderFolderName(sb.env, repos[n]);
  const heads = headersOf(fs.readFileSync(fixture(n), 'utf8'));
  const all = parse(fixture(n), true).turns;
  let shownTurns = 0;
  const mine = (h: (typeof heads)[number]) => turnsIn(all, h);
  for (const h of heads) {
    const mine = turnsIn(all, h);
    if (mine.length === 0) continue;
    for (const index of ['live', 'off'] as const) {
      const shown = readSession({ session: idOf(id, h), max_chars: 1 }, sb.env, { index });
      assert.equal(shown.session.session, idOf(id, h), index);
      if (h.n) assert.equal(shown.session.started, h.started, `${index}: ${h.n} started`);
      assert.equal(shown.session.turns, mine.length, `${index}: ${h.n} turns`);
      const said = shown.turns.filter((t) => t.role === 'user' || t.role === 'assistant');
      assert.deepEqual(said.map((t) => t.text), mine.map((t) => t.text), `${index}: ${h.n}`);
      for (const t of shown.turns) assert.ok(t.citation.line_from >= h.from && t.citation.line_to <= h.to, `${index}: ${h.n} turn ${t.n} at ${t.citation.line_from}`);
    }
    shownTurns += mine.length;
  }
  assert.equal(shownTurns, all.filter((t) => t.role === 'user' || t.role === 'assistant').length, 'every turn is in one session');
  // The session a commit was made in, with its tokens.
  const commit = heads.find((h) => h.from <= 211 && 211 <= h.to)!;
  const shown = readSession({ session: idOf(id, commit) }, sb.env);
  const replies = shown.turns.filter((t) => t.role === 'assistant');
  assert.ok(replies.some((t) => t.tools.some((x) => x.name === 'commit' && x.arguments.startsWith('feat: Use the Spinner'))));
  assert.equal(shown.session.started, '2024-08-05T19:33:32');
  assert.ok(replies.some((t) => t.tokens && t.tokens.input === 5244 && t.tokens.output === 604));
  assert.equal(shown.session.tokens?.output, mine(commit).reduce((a, t) => a + (t.tokens?.output ?? 0), 0), 'its tokens only');
});

test('search lists each session that says it, and cites its lines of the recorded file', () => {
  const out = search({ term: 'IgnorantTemporaryDirectory', agent: 'aider', limit: 50 }, sb.env);
  assert.equal(out.source, 'index');
  const id = aiderFolderName(sb.env, repos['aider-history-start']);
  const heads = headersOf(fs.readFileSync(fixture('aider-history-start'), 'utf8'));
  const lake = fs.readFileSync(lakeOf('aider-history-start'));
  const sessions = new Set<string>();
  for (const hit of out.hits) {
    const h = heads.find((x) => idOf(id, x) === hit.session);
    assert.ok(h, hit.session);
    sessions.add(hit.session);
    for (const sn of hit.snippets) {
      const c = sn.citation;
      assert.ok(c.line_from >= h.from && c.line_to <= h.to, `${hit.session}: lines ${c.line_from}-${c.line_to} are its header's`);
      assert.equal(path.join(sb.brain, c.lake_path.startsWith('lake/') ? c.lake_path : path.join('lake', c.lake_path)), lakeOf('aider-history-start'));
      const lines = lake.toString('utf8').split('\n').slice(c.line_from - 1, c.line_to).join('\n') + '\n';
      assert.equal(crypto.createHash('sha256').update(lines).digest('hex'), c.sha256, 'sed -n A,Bp | sha256sum');
      assert.ok(verify({ citation: c }, sb.env).ok);
    }
  }
  // The sessions whose turns say it, as the Markdown has them.
  const turns = parse(fixture('aider-history-start'), false).turns.filter((t) => /IgnorantTemporaryDirectory/i.test(t.text) && (t.role === 'user' || t.role === 'assistant'));
  const want = new Set(turns.map((t) => idOf(id, heads.find((h) => t.span.line_from >= h.from && t.span.line_from <= h.to)!)));
  assert.ok(want.size > 1);
  for (const w of want) assert.ok(sessions.has(w), w);
  // Without the index (a floor scan) the same sessions.
  const scanned = search({ term: 'IgnorantTemporaryDirectory', agent: 'aider', limit: 50 }, sb.env, { index: 'off' });
  assert.deepEqual(new Set(scanned.hits.map((h) => h.session)), sessions);
});

test('the MCP / LM tools: search names each session, read_session reads a snippet\'s turn of it and pages within it', async () => {
  const ctx = { env: sb.env, home: sb.brain, index: 'snapshot' as const, budget: 20_000, caller: null };
  const id = aiderFolderName(sb.env, repos['aider-history-start']);
  const heads = headersOf(fs.readFileSync(fixture('aider-history-start'), 'utf8'));
  const found = (await callTool('search', { term: 'GitTemporaryDirectory', agent: 'aider' }, ctx)) as SearchOutput;
  const mine = found.hits.filter((x) => x.session.startsWith(`${id}.`));
  assert.ok(mine.length > 1);
  for (const hit of mine) {
    const h = heads.find((x) => idOf(id, x) === hit.session);
    assert.ok(h, hit.session);
    const sn = hit.snippets[0];
    const one = (await callTool('read_session', { session: hit.session, turns: String(sn.turn) }, ctx)) as ReadOutput;
    assert.deepEqual(one.turns.map((t) => t.citation), [sn.citation], hit.session);
    // Page by page, every turn once, each inside the session's lines.
    const seen: number[] = [];
    let turns: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = (await callTool('read_session', turns ? { session: hit.session, turns } : { session: hit.session }, ctx)) as ReadOutput & { next: string | null };
      for (const t of page.turns) {
        assert.ok(t.citation.line_from >= h.from && t.citation.line_to <= h.to, `${hit.session}: turn ${t.n}`);
        seen.push(t.n);
      }
      if (!page.next) break;
      turns = page.next;
    }
    assert.equal(seen.filter((n, i) => seen.indexOf(n) === i).length, seen.length);
    assert.equal(seen.length, (readSession({ session: hit.session }, sb.env)).total);
  }
});

test('derived.* and brain stats: a session per header, turns as the index counts them, tokens as the raw files sum', async () => {
  const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1_000_000, timeZone: 'UTC' })).rows;
  let sessions = 0;
  for (const n of NAMES) {
    const origin = path.join(repos[n], HIST);
    const turns = parse(origin, true).turns;
    const id = aiderFolderName(sb.env, repos[n]);
    const heads = headersOf(fs.readFileSync(origin, 'utf8'));
    const per = new Map(
      (await q(`SELECT m.session_id, count(*) FILTER (WHERE role = 'user'), count(*) FILTER (WHERE role = 'assistant') FROM derived.messages m JOIN derived.files s USING (file_id) WHERE s.abs_path = '${origin}' GROUP BY 1`)).map(
        ([sid, u, a]) => [String(sid), [Number(u), Number(a)]],
      ),
    );
    for (const h of heads) {
      const mine = turnsIn(turns, h);
      if (mine.length) sessions++;
      assert.deepEqual(per.get(idOf(id, h)) ?? [0, 0], [kinds(mine, 'user').length, kinds(mine, 'assistant').length], `${n} session ${h.n}`);
    }
    assert.deepEqual([...per.keys()].filter((k) => !heads.some((h) => idOf(id, h) === k)), [], 'every message is of a session the Markdown has');
    const [[calls]] = await q(`SELECT count(*) FROM derived.tool_calls t JOIN derived.files s USING (file_id) WHERE s.abs_path = '${origin}'`);
    assert.equal(Number(calls), turns.reduce((a, t) => a + t.tools.length, 0), `${n} tool calls`);
    // Each call and usage line is its session's.
    const [[astray]] = await q(`SELECT count(*) FROM derived.tool_calls t JOIN derived.messages m ON m.file_id = t.file_id AND m.role = 'assistant' AND m.line_no = (SELECT max(line_no) FROM derived.messages x WHERE x.file_id = t.file_id AND x.role = 'assistant' AND x.line_no < t.line_no) WHERE m.session_id <> t.session_id AND t.agent = 'aider'`);
    assert.equal(Number(astray), 0, `${n}: a call in its reply's session`);
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
  assert.equal(row.sessions, sessions, 'a session per header with a turn');
  const raw = NAMES.map((n) => rawAider(fixture(n)));
  assert.deepEqual(
    [row.tokens.input, row.tokens.output, row.tokens.cache_creation, row.tokens.cache_read],
    [raw.reduce((a, t) => a + t.input, 0), raw.reduce((a, t) => a + t.output, 0), raw.reduce((a, t) => a + t.cacheCreation, 0), raw.reduce((a, t) => a + t.cacheRead, 0)],
  );
  assert.ok(row.models.includes('claude-3-5-sonnet-20240620'));
  // The Sessions tree lists the same sessions with the same turns.
  const v = new FloorView(sb.brain, sb.env, { index: 'live' });
  try {
    v.refresh();
    const tree = v.sessions().filter((s) => s.lane === 'aider');
    assert.equal(tree.length, sessions);
    const off = new FloorView(sb.brain, sb.env, { index: 'off' });
    try {
      off.refresh();
      const listed = off.sessions().filter((s) => s.lane === 'aider');
      assert.deepEqual(listed.map((s) => [s.session, s.turns, s.started]).sort(), tree.map((s) => [s.session, s.turns, s.started]).sort(), 'with and without the index');
    } finally {
      off.close();
    }
  } finally {
    v.close();
  }
});

test('a history appended in pieces: each session keeps its id and turns, a new header adds one', async () => {
  const n = 'aider-history-start';
  const file = path.join(repos[n], HIST);
  const id = aiderFolderName(sb.env, repos[n]);
  const whole = fs.readFileSync(fixture('aider-history-cache'));
  // Aider appends whole lines (append_chat_history ends each write with a newline); the pieces
  // end inside replies, prompts and Aider's words, at the line end after each of these offsets.
  const cuts = [0, ...[4000, 4100, 20000, 77777].map((c) => whole.indexOf(10, c) + 1), whole.length];
  let before = indexRows(id).sections;
  for (let i = 1; i < cuts.length; i++) {
    fs.appendFileSync(file, whole.subarray(cuts[i - 1], cuts[i]));
    await record();
    const now = indexRows(id).sections;
    const heads = headersOf(fs.readFileSync(file, 'utf8'));
    const turns = parse(file, false).turns;
    assert.equal(now.length, heads.length - 1, `piece ${i}: a session per header`);
    // The sessions there were keep their index row, id and start; all but the last keep their turns.
    for (const b of before) {
      const a = now.find((x) => x.id === b.id);
      assert.ok(a, b.session);
      assert.deepEqual([a.session, a.section, a.started], [b.session, b.section, b.started]);
      if (b !== before[before.length - 1]) assert.equal(a.turns, b.turns, `${b.session} unchanged`);
    }
    for (const h of heads.slice(1)) assert.equal(now[h.n - 1].turns, turnsIn(turns, h).length, `piece ${i}: ${h.n}`);
    before = now;
  }
  assert.ok(before.length > 60);
  assert.ok(fs.readFileSync(lakeOf(n)).equals(fs.readFileSync(file)), 'appended to the same lake file');
  assert.ok(!fs.existsSync(`${lakeOf(n)}.g2`), 'no generation: the history only grew');
  // A session of the appended part is shown as such.
  const last = headersOf(fs.readFileSync(file, 'utf8')).filter((h) => turnsIn(parse(file, false).turns, h).length > 0).pop()!;
  const shown = readSession({ session: idOf(id, last) }, sb.env);
  assert.equal(shown.session.started, last.started);
});

test('a history cut short and written on is a new generation: each session once, by its header', async () => {
  const n = 'zen-mcp-server';
  const file = path.join(repos[n], HIST);
  const id = aiderFolderName(sb.env, repos[n]);
  const before = indexRows(id).sections;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const heads = headersOf(lines.join('\n'));
  // Cut before its last session, then a session of the other history written after it.
  const cache = fs.readFileSync(fixture('aider-history-cache'), 'utf8').split('\n');
  const next = headersOf(cache.join('\n'));
  const added = cache.slice(next[1].from - 1, next[2].from - 1).join('\n') + '\n';
  fs.writeFileSync(file, lines.slice(0, heads[heads.length - 1].from - 1).join('\n') + '\n' + added);
  await record();
  assert.ok(fs.existsSync(`${lakeOf(n)}.g2`), 'a new generation');
  const now = indexRows(id).sections;
  // Every session there was keeps its id and its turns (the one cut away too: the first
  // generation holds it); the sessions both generations hold are counted once.
  for (const b of before) {
    const a = now.find((x) => x.session === b.session);
    assert.ok(a, b.session);
    assert.equal(a.turns, b.turns, b.session);
    const shown = readSession({ session: b.session }, sb.env);
    assert.equal(shown.session.turns, b.turns, `show ${b.session}`);
  }
  const fresh = now.filter((x) => !before.some((b) => b.id === x.id));
  assert.deepEqual(fresh.map((x) => x.session), [idOf(id, next[1])]);
  assert.equal(fresh[0].turns, turnsIn(parse(fixture('aider-history-cache'), false).turns, next[1]).length);
  assert.ok(fresh[0].turns > 0);
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
