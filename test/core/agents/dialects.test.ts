// Every fixture transcript through its dialect: the user and assistant turns (count, order, text)
// must equal expected/expected.json, which expected/derive.py wrote from the fixtures on its own
// (Python, not this code). Then the merges the formats need, checked on the lines themselves, and
// resuming from a checkpoint at every line boundary, which must give the same turns as one read.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
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

const EXPECTED: Expected[] = JSON.parse(fs.readFileSync(path.join(__dirname, 'expected', 'expected.json'), 'utf8'));

/** fixture path -> lane and the path inside the lane, as the lake lays it out. */
function laneOf(fixture: string): { lane: string; rel: string } {
  const [agent, ...rest] = fixture.split('/');
  if (agent === 'claude') return { lane: 'cc', rel: rest.slice(1).join('/') };
  if (agent === 'codex') return { lane: 'codex', rel: rest.join('/') };
  if (agent === 'pi') return { lane: 'pi', rel: rest.slice(2).join('/') };
  return { lane: 'cursor', rel: rest.slice(1).join('/') };
}

function said(turns: Turn[]) {
  return turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => ({ role: t.role, side: t.sidechain, text: t.text }));
}

function read(fixture: string, full: boolean) {
  const { lane, rel } = laneOf(fixture);
  const r = readTurns(path.join(FIXTURES, fixture), lane, rel, { full });
  assert.ok(r, `a dialect reads ${fixture}`);
  return r;
}

test('the expectation covers every fixture transcript', () => {
  const all: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) all.push(path.relative(FIXTURES, p));
    }
  };
  for (const a of ['claude', 'codex', 'pi', 'cursor']) walk(path.join(FIXTURES, a));
  assert.deepEqual(all.sort(), EXPECTED.map((e) => e.fixture).sort());
});

for (const e of EXPECTED) {
  test(`turns of ${e.fixture}`, () => {
    for (const full of [false, true]) {
      const r = read(e.fixture, full);
      const got = said(r.turns);
      assert.equal(got.filter((t) => t.role === 'user').length, e.user, `user turns (${full ? 'full' : 'lean'})`);
      assert.equal(got.filter((t) => t.role === 'assistant').length, e.assistant, `assistant turns (${full ? 'full' : 'lean'})`);
      assert.deepEqual(got, e.turns);
      // Numbers are 1..N in the order of each turn's first line.
      assert.deepEqual(
        r.turns.map((t) => t.n),
        r.turns.map((_, i) => i + 1),
      );
      for (let i = 1; i < r.turns.length; i++) assert.ok(r.turns[i].span.line_from >= r.turns[i - 1].span.line_from);
    }
  });
}

test('turn spans are exact line and byte ranges of their file', () => {
  for (const e of EXPECTED) {
    const file = path.join(FIXTURES, e.fixture);
    const starts = new Map<number, { from: number; to: number }>();
    forEachLine(file, { byte: 0, line: 1 }, null, (l) => starts.set(l.no, { from: l.from, to: l.to }), { tail: true });
    for (const t of read(e.fixture, false).turns) {
      assert.equal(t.span.byte_from, starts.get(t.span.line_from)!.from, `${e.fixture} turn ${t.n} byte_from`);
      assert.equal(t.span.byte_to, starts.get(t.span.line_to)!.to, `${e.fixture} turn ${t.n} byte_to`);
    }
  }
});

test('Claude Code: lines of one reply (one message.id) are one turn, tool results join it', () => {
  const f = 'claude/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';
  const lines = fs.readFileSync(path.join(FIXTURES, f), 'utf8').split('\n');
  const r = read(f, true);
  // Lines 12..24 hold one reply (msg_01VtR...): two Task calls, their results, and inline sidechain
  // lines of the sub-agents in between.
  const reply = r.turns.find((t) => t.span.line_from === 12)!;
  const ids = new Set(
    lines
      .slice(reply.span.line_from - 1, reply.span.line_to)
      .map((l) => JSON.parse(l))
      .filter((o) => o.type === 'assistant' && !o.isSidechain)
      .map((o) => o.message.id),
  );
  assert.equal(ids.size, 1, 'one message id');
  assert.deepEqual(
    reply.tools.map((u) => u.name),
    ['Task', 'Task', 'TodoWrite'],
  );
  assert.ok(reply.tools.every((u) => u.output.length > 0), 'every call has its result');
  // Usage is repeated on every line of the reply, so far: counted once, the last line's.
  const mine = lines
    .slice(reply.span.line_from - 1, reply.span.line_to)
    .map((l) => JSON.parse(l))
    .filter((o) => o.type === 'assistant' && !o.isSidechain && o.message?.usage);
  assert.equal(reply.tokens!.output, mine[mine.length - 1].message.usage.output_tokens);
  // The inline sidechain's prompt and replies are turns of their own, marked.
  const side = r.turns.filter((t) => t.sidechain);
  assert.equal(side.filter((t) => t.role === 'user').length, 2);
  assert.ok(side.every((t) => t.span.line_from > 12));
});

test('Claude Code: isMeta and notices are instructions, command output is tool output', () => {
  const r = read('claude/projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl', true);
  const at = (line: number) => r.turns.find((t) => t.span.line_from === line)!;
  assert.equal(at(59).role, 'system'); // <local-command-caveat>, isMeta
  assert.equal(at(60).role, 'user'); // /exit typed
  assert.equal(at(61).role, 'tool'); // <local-command-stdout>
  assert.match(at(61).tools[0].output, /See ya!/);
  const plan = read('claude/projects/-misc-git-ai/example-claude-code.jsonl', true);
  assert.equal(plan.turns[plan.turns.length - 1].kind, 'notice');
});

test('Claude Code: a sub-agent file is its own conversation with its parent named', () => {
  const r = read('claude/projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a52886dc180afb356.jsonl', false);
  assert.equal(r.facts.subagent, true);
  assert.equal(r.facts.parent_session, 'ef958aa1-0e93-49f0-bb71-150f63befcd1');
  assert.equal(r.turns[0].role, 'user');
  assert.match(r.turns[0].text, /^You are \*\*bob\*\*/);
  // The skill text it loaded (isMeta) is an instruction, not a prompt.
  assert.equal(r.turns.find((t) => t.span.line_from === 7)!.role, 'system');
});

test('Codex: event_msg copies are echoes; harness context is instructions', () => {
  const f = 'codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
  const lines = fs.readFileSync(path.join(FIXTURES, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const r = read(f, true);
  const echoes = lines.filter((o) => o.type === 'event_msg' && (o.payload.type === 'agent_message' || o.payload.type === 'user_message')).length;
  const items = lines.filter((o) => o.type === 'response_item' && o.payload.type === 'message' && o.payload.role === 'assistant').length;
  assert.equal(echoes, 7);
  // Six assistant messages, each in its own reply (a tool output ends a reply): none doubled.
  assert.equal(r.turns.filter((t) => t.role === 'assistant').length, items);
  const prompt = r.turns.filter((t) => t.role === 'user');
  assert.equal(prompt.length, 1);
  assert.deepEqual([prompt[0].span.line_from, prompt[0].span.line_to], [9, 10], 'the item and its event are one turn');
  // The user items before the first task (AGENTS.md, environment) are context.
  assert.ok([4, 5].every((n) => r.turns.find((t) => t.span.line_from === n)!.role === 'system'));
  // Calls and their outputs (matched by call_id) are in the reply that made them.
  const withCall = r.turns.filter((t) => t.tools.length > 0);
  assert.equal(withCall.length, 5);
  assert.ok(withCall.every((t) => t.tools.every((u) => u.output.length > 0)));
  // token_count is written after each call: counted once per distinct total.
  assert.ok(r.turns.filter((t) => t.role === 'assistant').every((t) => t.tokens && t.tokens.input > 0));
});

test('Codex: an event before its item (newer builds) still pairs; events without items are prompts', () => {
  const r = read('codex/sessions/2025/01/01/agent-sessions-small.jsonl', false);
  const users = r.turns.filter((t) => t.role === 'user');
  assert.deepEqual(
    users.map((t) => [t.span.line_from, t.span.line_to]),
    [
      [4, 6],
      [71, 71],
      [85, 85],
      [101, 101], // item_completed UserMessage (0.17x) counts as the event
    ],
  );
});

test('Pi: results join their reply, a re-parented entry is a branch, summaries are not turns', () => {
  const tool = read('pi/agent/sessions/--fixtures-synthetic--/git-ai-pi-session-tool.jsonl', true);
  assert.deepEqual(
    tool.turns.map((t) => [t.role, t.span.line_from, t.span.line_to]),
    [
      ['user', 2, 2],
      ['assistant', 3, 4],
    ],
  );
  assert.equal(tool.turns[1].tools[0].output, 'Applied edit to src/main.rs');
  const ign = read('pi/agent/sessions/--fixtures-synthetic--/git-ai-pi-session-ignorable.jsonl', true);
  const reply = ign.turns.find((t) => t.role === 'assistant')!;
  assert.equal(reply.branch, true, 'eeee5555 hangs off dddd4444, not the summary before it');
  assert.deepEqual(
    ign.turns.filter((t) => t.role === 'system').map((t) => t.kind),
    ['summary', 'summary'],
  );
  const bad = read('pi/agent/sessions/--fixtures-synthetic--/agentsview-session.jsonl', false);
  assert.equal(bad.counts.bad, 1, 'the malformed line is counted');
});

test('cursor: consecutive assistant lines are one reply; <user_query> is unwrapped', () => {
  const r = read('cursor/projects/fixtures/agent-transcripts/git-ai-cursor-session-simple.jsonl', true);
  assert.equal(r.turns.length, 2);
  assert.equal(r.turns[0].text, "Generate a file with all the HBO shows from the 90's in it");
  assert.equal(r.turns[1].tools.length, 10);
  // Nine blocks are only "[REDACTED]" and are dropped; three end with it after real text and stay.
  assert.equal((r.turns[1].text.match(/\[REDACTED\]/g) ?? []).length, 3);
});

test('cursor: .txt transcripts', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(require('node:os').tmpdir()), 'cursor-txt-'));
  try {
    const f = path.join(dir, 'chat.txt');
    fs.writeFileSync(
      f,
      'user:\n<user_query>\nstart the dev server\n</user_query>\n\nassistant:\n[Thinking] **Preparing**\n[Tool call] Shell\n  command: npm run dev\n\n[Tool result] Shell\n\nassistant:\nIt is running on port 3000.\n',
    );
    const r = readTurns(f, 'cursor', 'proj/agent-transcripts/chat.txt', { full: true })!;
    assert.deepEqual(
      r.turns.map((t) => [t.role, t.text]),
      [
        ['user', 'start the dev server'],
        ['assistant', 'It is running on port 3000.'],
      ],
    );
    assert.equal(r.turns[1].tools[0].name, 'Shell');
    assert.match(r.turns[1].tools[0].arguments, /npm run dev/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('resuming from the checkpoint at any line gives the same turns as one read', () => {
  for (const e of EXPECTED) {
    const { lane, rel } = laneOf(e.fixture);
    const file = path.join(FIXTURES, e.fixture);
    const whole = read(e.fixture, false).turns.map((t) => ({ ...t }));
    const ends: number[] = [];
    forEachLine(file, { byte: 0, line: 1 }, null, (l) => ends.push(l.to));
    const step = Math.max(1, Math.floor(ends.length / 25));
    for (let i = 0; i < ends.length; i += step) {
      const first = readTurns(file, lane, rel, { full: false, to: ends[i] })!;
      const ck = first.checkpoint;
      const kept = first.turns.filter((t) => t.span.line_from < ck.line);
      const rest = readTurns(file, lane, rel, { full: false, resume: JSON.parse(JSON.stringify(ck)) })!;
      const joined = [...kept, ...rest.turns];
      assert.deepEqual(
        joined.map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to]),
        whole.map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to]),
        `${e.fixture} cut after line ${i + 1}`,
      );
      assert.deepEqual(rest.facts, read(e.fixture, false).facts, `${e.fixture} facts after a resume at line ${i + 1}`);
    }
  }
});

test('a turn\'s own lines, parsed alone, give its text (the index keeps no copy)', () => {
  for (const e of EXPECTED) {
    const { lane, rel } = laneOf(e.fixture);
    const file = path.join(FIXTURES, e.fixture);
    for (const t of read(e.fixture, false).turns) {
      if (t.role !== 'user' && t.role !== 'assistant') continue;
      assert.equal(turnText(file, lane, rel, t.span, t.role), t.text, `${e.fixture} turn ${t.n}`);
    }
  }
});
