// Copilot Chat through its dialect: the fixtures' user and assistant turns must equal
// expected/expected_more.json (written by `expected/derive.py more`, Python, not this code); a
// mutation-log replay must equal the session .json it logs — both the fixture pair and a log made
// here from the .json (snapshot, pushes, splices, sets, deletes); and the transcripts event stream.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES } from '../../helpers/env';
import { readTurns, turnText } from '../../../src/core/index/read';
import { replayCopilotLog } from '../../../src/core/agents/copilot/dialect';
import type { Turn } from '../../../src/core/turns';

interface Expected {
  fixture: string;
  user: number;
  assistant: number;
  turns: { role: 'user' | 'assistant'; side: boolean; text: string }[];
}

const EXPECTED: Expected[] = (JSON.parse(fs.readFileSync(path.join(__dirname, 'expected', 'expected_more.json'), 'utf8')) as Expected[]).filter((e) =>
  e.fixture.startsWith('copilot/'),
);

const SESS = 'copilot/workspaceStorage/fixtures/chatSessions/git-ai-copilot_session_simple';

/** fixture path -> the path inside the lane (lake/copilot/code/<path in the user folder>). */
const relOf = (fixture: string) => `code/${fixture.split('/').slice(1).join('/')}`;

function read(file: string, rel: string, full: boolean) {
  const r = readTurns(file, 'copilot', rel, { full, tail: true });
  assert.ok(r, `the copilot dialect reads ${rel}`);
  return r;
}

const said = (turns: Turn[]) => turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => ({ role: t.role, side: t.sidechain, text: t.text }));
/** A turn without its place in the file (a log and a document cite different lines). */
const bare = (t: Turn) => ({ ...t, span: null });

function tmpDir(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'copilot-'));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('the expectation covers every Copilot fixture', () => {
  const all: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      // workspace.json names a workspace's project: no conversation.
      else if (/\.jsonl?$/.test(e.name) && e.name !== 'workspace.json') all.push(path.relative(FIXTURES, p));
    }
  };
  walk(path.join(FIXTURES, 'copilot'));
  assert.deepEqual(all.sort(), EXPECTED.map((e) => e.fixture).sort());
  assert.equal(all.length, 4);
});

for (const e of EXPECTED) {
  test(`turns of ${e.fixture}`, () => {
    for (const full of [false, true]) {
      const r = read(path.join(FIXTURES, e.fixture), relOf(e.fixture), full);
      const got = said(r.turns);
      assert.equal(got.filter((t) => t.role === 'user').length, e.user);
      assert.equal(got.filter((t) => t.role === 'assistant').length, e.assistant);
      assert.deepEqual(got, e.turns);
      assert.equal(r.counts.bad, 0);
    }
  });
}

test('.json: a request is a prompt and a reply with model, thinking-free text, tools and their results', () => {
  const file = path.join(FIXTURES, `${SESS}.json`);
  const r = read(file, relOf(`${SESS}.json`), true);
  assert.equal(r.facts.native_session, '331fed7f-cfd6-409c-8502-06a56322b636');
  // Three prompts and three replies, then the session's name (an entry, not a turn).
  assert.deepEqual(
    r.turns.map((t) => t.kind),
    ['prompt', 'reply', 'prompt', 'reply', 'prompt', 'reply', 'name'],
  );
  assert.equal(r.turns[6].text, 'Assistance with TypeScript project tasks');
  const reply = r.turns[3];
  assert.equal(reply.model, 'copilot/claude-sonnet-4');
  assert.equal(reply.tools[0].name, 'copilot_replaceString');
  assert.match(JSON.parse(reply.tools[0].arguments).newString, /hello world/);
  assert.match(reply.tools[0].output, /successfully edited/);
  // The inline reference is named in the reply's text.
  assert.match(r.turns[1].text, /with an index\.ts file that prints/);
  // The whole document is every turn's citation; snippets pick the turn by its number.
  const size = fs.statSync(file).size;
  for (const t of r.turns) {
    assert.deepEqual([t.span.line_from, t.span.byte_from, t.span.byte_to], [1, 0, size]);
    assert.equal(turnText(file, 'copilot', relOf(`${SESS}.json`), { ...t.span, n: t.n }, t.role as 'user' | 'assistant'), t.text);
  }
});

test('the fixture .jsonl is the same session as the .json: its replay equals it, and so do its turns', () => {
  const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${SESS}.json`), 'utf8'));
  const entries = fs
    .readFileSync(path.join(FIXTURES, `${SESS}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  assert.deepEqual(replayCopilotLog(entries), doc);
  const a = read(path.join(FIXTURES, `${SESS}.json`), relOf(`${SESS}.json`), true);
  const b = read(path.join(FIXTURES, `${SESS}.jsonl`), relOf(`${SESS}.jsonl`), true);
  assert.deepEqual(b.turns.map(bare), a.turns.map(bare));
  assert.deepEqual(b.facts, a.facts);
});

/** A mutation log that builds `doc` step by step the way the editor writes one: a snapshot without
 * requests, then per request a push of the prompt (an empty response), the response parts pushed,
 * result and model set; plus a wrong push undone by a splice (`i`), and a set that is deleted. */
function logOf(doc: Record<string, unknown>): unknown[] {
  const requests = doc.requests as Record<string, unknown>[];
  const out: unknown[] = [{ kind: 0, v: { ...structuredClone(doc), requests: [], inputState: { inputText: '' } } }];
  out.push({ kind: 1, k: ['inputState', 'inputText'], v: 'typing…' });
  requests.forEach((r, i) => {
    const { response, result, modelId, ...head } = structuredClone(r);
    out.push({ kind: 2, k: ['requests'], v: [{ ...head, response: [] }] });
    const parts = response as unknown[];
    out.push({ kind: 2, k: ['requests', i, 'response'], v: parts.slice(0, 1) });
    out.push({ kind: 2, k: ['requests', i, 'response'], v: [{ value: 'a draft that gets replaced' }], i: 1 });
    out.push({ kind: 2, k: ['requests', i, 'response'], v: parts.slice(1), i: 1 });
    if (result !== undefined) out.push({ kind: 1, k: ['requests', i, 'result'], v: result });
    if (modelId !== undefined) out.push({ kind: 1, k: ['requests', i, 'modelId'], v: modelId });
  });
  out.push({ kind: 2, k: ['requests'], v: [{ requestId: 'discarded', message: { text: 'never sent' }, response: [] }] });
  out.push({ kind: 2, k: ['requests'], v: [], i: requests.length });
  out.push({ kind: 3, k: ['inputState'] });
  out.push({ kind: 1, k: ['lastMessageDate'], v: doc.lastMessageDate });
  return out;
}

test('a mutation log built from the .json replays to the .json, and gives the same turns', () => {
  const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${SESS}.json`), 'utf8'));
  const log = logOf(doc);
  assert.ok(log.length > 20, 'a real sequence of changes');
  assert.deepEqual(replayCopilotLog(structuredClone(log)), doc);
  const t = tmpDir();
  try {
    const file = path.join(t.dir, 's.jsonl');
    fs.writeFileSync(file, log.map((o) => JSON.stringify(o)).join('\n') + '\n');
    const rel = 'code/workspaceStorage/w1/chatSessions/s.jsonl';
    const fromLog = read(file, rel, true);
    const fromDoc = read(path.join(FIXTURES, `${SESS}.json`), relOf(`${SESS}.json`), true);
    assert.deepEqual(fromLog.turns.map(bare), fromDoc.turns.map(bare));
    // Every turn cites the whole log, and is found again by its number.
    for (const x of fromLog.turns) {
      assert.deepEqual([x.span.line_from, x.span.line_to], [1, log.length]);
      assert.equal(turnText(file, 'copilot', rel, { ...x.span, n: x.n }, x.role as 'user' | 'assistant'), x.text);
    }
    // Cut before the last request's reply: the prompt is there, the reply is not yet.
    const cut = log.findIndex((e) => JSON.stringify(e).includes('"k":["requests",2,"response"]'));
    fs.writeFileSync(file, log.slice(0, cut).map((o) => JSON.stringify(o)).join('\n') + '\n');
    const early = read(file, rel, false);
    assert.deepEqual(
      early.turns.map((x) => x.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'system'],
    );
    assert.equal(early.checkpoint.line, 1, 'a log is read again whole as it grows');
  } finally {
    t.done();
  }
});

test('the transcripts event stream: tool events join the reply that asked for them', () => {
  const f = 'copilot/globalStorage/GitHub.copilot-chat/transcripts/git-ai-copilot_vscode_event_stream.jsonl';
  const r = read(path.join(FIXTURES, f), relOf(f), true);
  assert.equal(r.facts.native_session, '5fcddc54-3ba1-4fc4-88ac-86bd2ce74c19');
  assert.deepEqual(
    r.turns.map((t) => [t.role, t.span.line_from, t.span.line_to]),
    [
      ['user', 2, 2],
      ['assistant', 4, 8],
      ['assistant', 9, 13],
    ],
  );
  assert.equal(r.turns[1].tools[0].name, 'read_file');
  assert.equal(JSON.parse(r.turns[2].tools[0].arguments).explanation, 'Add a comment.');
  // Line-based: each turn's own lines give its text.
  for (const t of r.turns) assert.equal(turnText(path.join(FIXTURES, f), 'copilot', relOf(f), t.span, t.role as 'user' | 'assistant'), t.text);
});

test('only chat files are read: other files of the user folder are not conversations', () => {
  const r = readTurns(path.join(FIXTURES, `${SESS}.json`), 'copilot', 'code/workspaceStorage/w1/state.json', { full: false });
  assert.equal(r, null);
  assert.ok(readTurns(path.join(FIXTURES, `${SESS}.json`), 'copilot', 'code/globalStorage/emptyWindowChatSessions/x.json', { full: false, tail: true })!.turns.length === 7);
});
