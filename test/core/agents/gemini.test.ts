// Gemini CLI chats through their dialect: the fixtures' user and assistant turns must equal
// expected/expected_more.json (written by `expected/derive.py more`, Python, not this code); then the
// append log's rules (last write wins, $set, $rewindTo) on logs made here, the legacy .json's
// whole-document citation, and resuming from a checkpoint.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES } from '../../helpers/env';
import { readTurns, turnText } from '../../../src/core/index/read';
import { forEachLine } from '../../../src/core/agents/kit/jsonl';
import type { Turn } from '../../../src/core/turns';

interface Expected {
  fixture: string;
  user: number;
  assistant: number;
  turns: { role: 'user' | 'assistant'; side: boolean; text: string }[];
}

const EXPECTED: Expected[] = (JSON.parse(fs.readFileSync(path.join(__dirname, 'expected', 'expected_more.json'), 'utf8')) as Expected[]).filter((e) =>
  e.fixture.startsWith('gemini/'),
);

/** fixture path -> the path inside the lane (lake/gemini/<project>/chats/...). */
const relOf = (fixture: string) => fixture.split('/').slice(2).join('/');

function read(file: string, rel: string, full: boolean) {
  const r = readTurns(file, 'gemini', rel, { full, tail: true });
  assert.ok(r, `the gemini dialect reads ${rel}`);
  return r;
}

const said = (turns: Turn[]) => turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => ({ role: t.role, side: t.sidechain, text: t.text }));

function tmpFile(name: string, body: string): { file: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'gemini-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return { file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('the expectation covers every Gemini fixture', () => {
  const all: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.jsonl?$/.test(e.name)) all.push(path.relative(FIXTURES, p));
    }
  };
  walk(path.join(FIXTURES, 'gemini'));
  assert.deepEqual(all.sort(), EXPECTED.map((e) => e.fixture).sort());
  assert.equal(all.length, 6);
});

for (const e of EXPECTED) {
  test(`turns of ${e.fixture}`, () => {
    for (const full of [false, true]) {
      const r = read(path.join(FIXTURES, e.fixture), relOf(e.fixture), full);
      const got = said(r.turns);
      assert.equal(got.filter((t) => t.role === 'user').length, e.user);
      assert.equal(got.filter((t) => t.role === 'assistant').length, e.assistant);
      assert.deepEqual(got, e.turns);
      assert.deepEqual(
        r.turns.map((t) => t.n),
        r.turns.map((_, i) => i + 1),
      );
      assert.equal(r.counts.bad, 0);
    }
  });
}

test('.jsonl: metadata line, tool calls with their output, model and tokens', () => {
  const f = 'gemini/tmp/fixtures/chats/agent-sessions-jsonl_v040.jsonl';
  const r = read(path.join(FIXTURES, f), relOf(f), true);
  assert.equal(r.facts.native_session, 'gemini_stage0_jsonl');
  assert.deepEqual(
    r.turns.map((t) => [t.role, t.span.line_from, t.span.line_to]),
    [
      ['user', 2, 2],
      ['assistant', 4, 4],
      ['assistant', 5, 5],
    ],
  );
  const call = r.turns[1].tools[0];
  assert.equal(call.name, 'run_shell_command');
  assert.equal(JSON.parse(call.arguments).command, 'ls -F');
  assert.match(call.output, /AgentSessions\//);
  assert.equal(r.turns[1].model, 'gemini-3-flash-preview');
  // In the one unit (src/core/truth.ts): the file's input 12069 includes the 11502 read from cache.
  assert.deepEqual(r.turns[2].tokens, { input: 12069 - 11502, output: 147, cache_creation: 0, cache_read: 11502 });
  // Lean (the index): no arguments or output read.
  const lean = read(path.join(FIXTURES, f), relOf(f), false);
  assert.equal(lean.turns[1].tools[0].output, '');
});

test('.jsonl: a repeated id is the last write, in place; $set messages replaces the list; $rewindTo drops the rest', () => {
  const L = [
    { sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z', kind: 'main' },
    { id: 'u1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: [{ text: 'first prompt' }] },
    { id: 'a1', timestamp: '2026-01-01T00:00:02.000Z', type: 'gemini', content: 'draft answer' },
    { $set: { lastUpdated: '2026-01-01T00:00:03.000Z', summary: 'A test chat' } },
    { id: 'a1', timestamp: '2026-01-01T00:00:02.000Z', type: 'gemini', content: 'final answer', model: 'gemini-x' },
    { id: 'u2', timestamp: '2026-01-01T00:00:04.000Z', type: 'user', content: 'second prompt' },
    { id: 'a2', timestamp: '2026-01-01T00:00:05.000Z', type: 'gemini', content: 'second answer' },
    { id: 'i1', timestamp: '2026-01-01T00:00:06.000Z', type: 'info', content: 'Request cancelled.' },
    { $rewindTo: 'u2' },
    { id: 'u3', timestamp: '2026-01-01T00:00:07.000Z', type: 'user', content: 'third prompt' },
    { id: 'a3', timestamp: '2026-01-01T00:00:08.000Z', type: 'gemini', content: 'third answer' },
  ];
  const t = tmpFile('x.jsonl', L.map((o) => JSON.stringify(o)).join('\n') + '\n');
  try {
    const r = read(t.file, 'p/chats/x.jsonl', true);
    assert.deepEqual(
      r.turns.map((x) => [x.n, x.role, x.text, x.span.line_from]),
      [
        [1, 'user', 'first prompt', 2],
        [2, 'assistant', 'final answer', 5], // the last write's line
        [3, 'user', 'third prompt', 10],
        [4, 'assistant', 'third answer', 11],
      ],
    );
    assert.equal(r.turns[1].model, 'gemini-x');
    assert.equal(r.facts.title_hint, 'A test chat');
    assert.equal(r.facts.native_session, 's1');
    // Each turn's own line, parsed alone, gives its text (what search's snippets do).
    for (const x of r.turns) assert.equal(turnText(t.file, 'gemini', 'p/chats/x.jsonl', x.span, x.role as 'user' | 'assistant'), x.text);
    // Nothing is final before the file ends: the checkpoint stays at line 1.
    assert.equal(r.checkpoint.line, 1);
    // A full checkpoint of the list in $set.
    const more = [...L, { $set: { messages: [L[1], { id: 'a9', type: 'gemini', content: 'checkpointed' }] } }];
    fs.writeFileSync(t.file, more.map((o) => JSON.stringify(o)).join('\n') + '\n');
    const r2 = read(t.file, 'p/chats/x.jsonl', false);
    assert.deepEqual(
      r2.turns.map((x) => [x.role, x.text, x.span.line_from]),
      [
        ['user', 'first prompt', 12],
        ['assistant', 'checkpointed', 12],
      ],
    );
  } finally {
    t.done();
  }
});

test('.jsonl: a sub-agent file (chats/<parent>/<id>.jsonl) names its parent', () => {
  const t = tmpFile('c.jsonl', JSON.stringify({ sessionId: 'c', kind: 'subagent' }) + '\n' + JSON.stringify({ id: 'u', type: 'user', content: 'go' }) + '\n');
  try {
    const r = read(t.file, 'p/chats/parent-1/c.jsonl', false);
    assert.equal(r.facts.subagent, true);
    assert.equal(r.facts.parent_session, 'parent-1');
  } finally {
    t.done();
  }
});

test('legacy .json: every turn cites the whole document, and is told apart by its number', () => {
  const f = 'gemini/tmp/fixtures/chats/agentsview-tool_calls_with_results.json';
  const file = path.join(FIXTURES, f);
  const r = read(file, relOf(f), true);
  const n = fs.readFileSync(file, 'utf8').split('\n').filter((_, i, a) => i < a.length - 1 || a[i] !== '').length;
  for (const t of r.turns) {
    assert.deepEqual([t.span.line_from, t.span.line_to, t.span.byte_from, t.span.byte_to], [1, n, 0, fs.statSync(file).size]);
  }
  const reply = r.turns[1];
  assert.equal(reply.thinking, 'Planning\nI need to read the planning document.');
  assert.deepEqual(
    reply.tools.map((u) => u.name),
    ['read_file', 'run_command'],
  );
  assert.match(reply.tools[0].output, /Agentstrove/);
  // Snippets: the turn with this number, not the first one of the shared span.
  const large = 'gemini/tmp/fixtures/chats/agent-sessions-large.json';
  const lr = read(path.join(FIXTURES, large), relOf(large), false);
  for (const t of lr.turns) {
    if (t.role !== 'user' && t.role !== 'assistant') continue;
    assert.equal(turnText(path.join(FIXTURES, large), 'gemini', relOf(large), { ...t.span, n: t.n }, t.role), t.text);
  }
  assert.equal(lr.turns.find((t) => t.role === 'system')!.text, 'Request cancelled.');
});

test('a half-written legacy .json is counted bad and gives no turns', () => {
  const t = tmpFile('h.json', '{\n  "sessionId": "h",\n  "messages": [\n    {"id":"m1","type":"user",');
  try {
    const r = read(t.file, 'p/chats/h.json', false);
    assert.equal(r.turns.length, 0);
    assert.equal(r.counts.bad, 1);
  } finally {
    t.done();
  }
});

test('resuming from the checkpoint at any line gives the same turns as one read', () => {
  for (const e of EXPECTED) {
    const file = path.join(FIXTURES, e.fixture);
    const rel = relOf(e.fixture);
    const whole = read(file, rel, false).turns;
    const ends: number[] = [];
    forEachLine(file, { byte: 0, line: 1 }, null, (l) => ends.push(l.to));
    for (let i = 0; i < ends.length; i += Math.max(1, Math.floor(ends.length / 10))) {
      const first = readTurns(file, 'gemini', rel, { full: false, to: ends[i] })!;
      const ck = first.checkpoint;
      const kept = first.turns.filter((t) => t.span.line_from < ck.line);
      const rest = readTurns(file, 'gemini', rel, { full: false, tail: true, resume: JSON.parse(JSON.stringify(ck)) })!;
      assert.deepEqual(
        [...kept, ...rest.turns].map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to]),
        whole.map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to]),
        `${e.fixture} cut after line ${i + 1}`,
      );
    }
  }
});
