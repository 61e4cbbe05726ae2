// Copilot CLI, Qwen Code and Factory Droid through their dialects, on the transcripts the real CLIs
// wrote against the model stand-in (test/fixtures/copilot-cli, qwen, factory): the prompts, replies,
// tool calls and tokens equal what the test reads from the same files with plain JSON parsing;
// resuming at any line gives the same turns; a turn's own lines give its text; the paths follow
// each agent's env overrides and leave its other files alone; and the older whole-document shapes
// (Copilot CLI's history-session-state, Qwen's tmp/<hash>/chats/*.json) cite the whole document.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES, sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';
import { readSession } from '../../../src/core/recall';
import { readTurns, turnText } from '../../../src/core/index/read';
import { forEachLine } from '../../../src/core/agents/kit/jsonl';
import { agentByLane } from '../../../src/core/agents';

type J = Record<string, any>;
const lines = (file: string): J[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

interface Said {
  role: 'user' | 'assistant';
  text: string;
  tools: string[];
  tokens: { input: number; output: number; cache_read: number; cache_creation: number } | null;
}

const textOf = (parts: J[] | undefined, key = 'text') => (parts ?? []).filter((p) => typeof p[key] === 'string' && !p.thought).map((p) => p[key].trim()).filter(Boolean).join('\n\n');

/** The conversation read straight from each format (the README of each agent folder says why). */
const FIXTURE = [
  {
    lane: 'copilot_cli',
    rel: 'session-state/aff2d723-ee75-4724-85fd-d631b871d0eb/events.jsonl',
    file: path.join(FIXTURES, 'copilot-cli', 'session-state', 'aff2d723-ee75-4724-85fd-d631b871d0eb', 'events.jsonl'),
    expect(file: string): Said[] {
      const out: Said[] = [];
      let usage: J | null = null;
      for (const e of lines(file)) {
        if (e.type === 'user.message') out.push({ role: 'user', text: e.data.content, tools: [], tokens: null });
        if (e.type === 'session.usage_record') usage = e.data.usage;
        if (e.type === 'assistant.message') {
          const u = usage;
          usage = null;
          out.push({
            role: 'assistant',
            text: e.data.content,
            tools: e.data.toolRequests.map((q: J) => `${q.toolCallId}:${q.name}`),
            tokens: u ? { input: u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens, output: u.outputTokens, cache_read: u.cacheReadTokens, cache_creation: u.cacheWriteTokens } : null,
          });
        }
      }
      return out;
    },
  },
  {
    lane: 'qwen',
    rel: 'projects/-tmp-brain-fixtures-qwen-home-work-brain-demo/chats/5b0d7c2e-8f1a-4c3d-9e6b-2a4f8c1d3e57.jsonl',
    file: path.join(FIXTURES, 'qwen', 'projects', '-tmp-brain-fixtures-qwen-home-work-brain-demo', 'chats', '5b0d7c2e-8f1a-4c3d-9e6b-2a4f8c1d3e57.jsonl'),
    expect(file: string): Said[] {
      const out: Said[] = [];
      for (const r of lines(file)) {
        if (r.type === 'user' && !r.subtype) out.push({ role: 'user', text: textOf(r.message.parts), tools: [], tokens: null });
        if (r.type === 'assistant') {
          const u = r.usageMetadata;
          out.push({
            role: 'assistant',
            text: textOf(r.message.parts),
            tools: r.message.parts.filter((p: J) => p.functionCall).map((p: J) => `${p.functionCall.id}:${p.functionCall.name}`),
            tokens: { input: u.promptTokenCount - u.cachedContentTokenCount, output: u.candidatesTokenCount, cache_read: u.cachedContentTokenCount, cache_creation: 0 },
          });
        }
      }
      return out;
    },
  },
  {
    lane: 'droid',
    rel: '-tmp-brain-fixtures-droid-home-work-brain-demo/ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446.jsonl',
    file: path.join(FIXTURES, 'factory', 'sessions', '-tmp-brain-fixtures-droid-home-work-brain-demo', 'ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446.jsonl'),
    expect(file: string): Said[] {
      const out: Said[] = [];
      for (const r of lines(file)) {
        if (r.type !== 'message') continue;
        const blocks: J[] = r.message.content;
        if (r.message.role === 'user' && !r.id.startsWith('context-') && blocks.some((b) => b.type === 'text')) out.push({ role: 'user', text: textOf(blocks), tools: [], tokens: null });
        if (r.message.role === 'assistant')
          out.push({ role: 'assistant', text: textOf(blocks), tools: blocks.filter((b) => b.type === 'tool_use').map((b) => `${b.id}:${b.name}`), tokens: null });
      }
      return out;
    },
  },
];

function read(f: (typeof FIXTURE)[number], full: boolean) {
  const r = readTurns(f.file, f.lane, f.rel, { full, tail: true });
  assert.ok(r, `the ${f.lane} dialect reads ${f.rel}`);
  return r;
}

for (const f of FIXTURE) {
  test(`${f.lane}: the recorded session's prompts, replies, tool calls and tokens`, () => {
    const want = f.expect(f.file);
    assert.ok(want.filter((s) => s.role === 'user').length >= 2 && want.some((s) => s.tools.length > 0), 'the recording has two prompts and a tool call');
    for (const full of [false, true]) {
      const r = read(f, full);
      assert.equal(r.counts.bad, 0);
      const got = r.turns
        .filter((t) => t.role === 'user' || t.role === 'assistant')
        .map((t) => ({ role: t.role, text: t.text, tools: t.tools.map((u) => `${u.id}:${u.name}`), tokens: t.tokens }));
      assert.deepEqual(got, want);
      assert.deepEqual(
        r.turns.map((t) => t.n),
        r.turns.map((_, i) => i + 1),
      );
    }
    // With everything read: the call's arguments and the command's output.
    const call = read(f, true).turns.flatMap((t) => t.tools)[0];
    assert.match(call.arguments, /echo probe-output-\w+-ok/);
    assert.match(call.output, /probe-output-\w+-ok/);
    assert.equal(call.is_error, false);
    const facts = read(f, false).facts;
    assert.match(String(facts.cwd), /\/work\/brain-demo$/);
    assert.ok(facts.native_session && f.rel.includes(facts.native_session), 'the session id the agent wrote is the file\'s');
  });

  test(`${f.lane}: resuming from the checkpoint at any line gives the same turns as one read`, () => {
    const whole = read(f, false).turns;
    const ends: number[] = [];
    forEachLine(f.file, { byte: 0, line: 1 }, null, (l) => ends.push(l.to));
    for (let i = 0; i < ends.length; i++) {
      const first = readTurns(f.file, f.lane, f.rel, { full: false, to: ends[i] })!;
      const ck = first.checkpoint;
      const kept = first.turns.filter((t) => t.span.line_from < ck.line);
      const rest = readTurns(f.file, f.lane, f.rel, { full: false, tail: true, resume: JSON.parse(JSON.stringify(ck)) })!;
      assert.deepEqual(
        [...kept, ...rest.turns].map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to, JSON.stringify(t.tokens)]),
        whole.map((t) => [t.n, t.role, t.text, t.span.line_from, t.span.line_to, JSON.stringify(t.tokens)]),
        `cut after line ${i + 1}`,
      );
    }
  });

  test(`${f.lane}: a turn's own lines, parsed alone, give its text`, () => {
    for (const t of read(f, false).turns) {
      if (t.role !== 'user' && t.role !== 'assistant') continue;
      assert.equal(turnText(f.file, f.lane, f.rel, t.span, t.role), t.text, `turn ${t.n}`);
    }
  });
}

test('Droid: the context it injects before a prompt is an instruction, not a prompt; the title is session_start\'s', () => {
  const r = read(FIXTURE[2], false);
  const injected = r.turns.filter((t) => t.kind === 'instructions');
  assert.equal(injected.length, 1);
  assert.match(injected[0].text, /^<system-reminder>/);
  assert.equal(r.facts.title_hint, lines(FIXTURE[2].file)[0].title);
});

/** Droid's settings file beside the fixture's conversation, and its totals read here. */
const DROID_SETTINGS = FIXTURE[2].file.replace(/\.jsonl$/, '.settings.json');
const droidTotals = (file: string) => {
  const u = JSON.parse(fs.readFileSync(file, 'utf8')).tokenUsage;
  return { input: u.inputTokens, output: u.outputTokens, cache_creation: u.cacheCreationTokens, cache_read: u.cacheReadTokens };
};

test("Droid: the settings file holds no turns; its tokenUsage is the session's tokens", () => {
  const r = readTurns(DROID_SETTINGS, 'droid', FIXTURE[2].rel.replace(/\.jsonl$/, '.settings.json'), { full: false, tail: true });
  assert.ok(r);
  assert.deepEqual(r.turns, []);
  assert.ok(droidTotals(DROID_SETTINGS).input > 0);
  assert.deepEqual(r.facts.unclaimed_tokens, droidTotals(DROID_SETTINGS));
  // Its generations too (<id>.settings.g2.json).
  assert.ok(readTurns(DROID_SETTINGS, 'droid', FIXTURE[2].rel.replace(/\.jsonl$/, '.settings.g2.json'), { full: false, tail: true })?.facts.unclaimed_tokens);
});

test("Droid: show's session tokens are the settings file's totals, of its newest version", async () => {
  const sb = sandbox({ fixtures: true, name: 'droid-tokens' });
  try {
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const id = path.basename(FIXTURE[2].file, '.jsonl');
    const shown = () => readSession({ session: id, agent: 'droid' }, sb.env);
    assert.equal(shown().turns.filter((t) => t.role === 'user').length, 2);
    assert.deepEqual(shown().session.tokens, droidTotals(DROID_SETTINGS));
    // Droid rewrites the file with its totals so far: the newest version counts, not every version.
    const home = path.join(sb.home, '.factory', 'sessions', path.basename(path.dirname(DROID_SETTINGS)), path.basename(DROID_SETTINGS));
    const doc = JSON.parse(fs.readFileSync(home, 'utf8'));
    doc.tokenUsage = { ...doc.tokenUsage, inputTokens: 900, outputTokens: 50, cacheReadTokens: 128 };
    fs.writeFileSync(home, JSON.stringify(doc, null, 2));
    await capture({ home: sb.brain, env: { ...sb.env, BRAIN_REWRITE_QUIET_SECONDS: '0' }, quietMs: 0, lockWaitMs: 10_000 });
    assert.deepEqual(shown().session.tokens, { input: 900, output: 50, cache_creation: 0, cache_read: 128 });
  } finally {
    sb.cleanup();
  }
});

test('paths: each agent\'s folder, its env override, and only the conversation files', () => {
  const home = '/home/ana';
  const roots = (lane: string, env: Record<string, string>) => agentByLane(lane)!.roots({ HOME: home, ...env });
  const inc = (lane: string, rel: string, env: Record<string, string> = {}) => roots(lane, env).some((r) => r.include(rel));

  assert.deepEqual(roots('copilot_cli', {}).map((r) => r.dir), ['/home/ana/.copilot']);
  assert.deepEqual(roots('copilot_cli', { COPILOT_HOME: '/data/cop' }).map((r) => r.dir), ['/data/cop']);
  assert.ok(inc('copilot_cli', 'session-state/aff2d723-ee75-4724-85fd-d631b871d0eb/events.jsonl'));
  assert.ok(inc('copilot_cli', 'history-session-state/session_1.json'));
  for (const other of ['session-state/x/workspace.yaml', 'session-state/x/checkpoints/index.md', 'logs/process-1.log', 'session-store.db', 'session-state/x/rewind-file-snapshots/tracking.json'])
    assert.ok(!inc('copilot_cli', other), other);
  assert.equal(agentByLane('copilot_cli')!.sessionOf('session-state/aff2d723-ee75-4724-85fd-d631b871d0eb/events.jsonl'), 'aff2d723-ee75-4724-85fd-d631b871d0eb');

  assert.deepEqual(roots('qwen', {}).map((r) => r.dir), ['/home/ana/.qwen']);
  assert.deepEqual(roots('qwen', { QWEN_HOME: '/q' }).map((r) => r.dir), ['/q']);
  assert.deepEqual(roots('qwen', { QWEN_RUNTIME_DIR: '/run/q' }).map((r) => [r.dir, r.lakePrefix]), [['/home/ana/.qwen', ''], ['/run/q', 'runtime']]);
  assert.ok(inc('qwen', 'projects/-home-ana-x/chats/5b0d7c2e-8f1a-4c3d-9e6b-2a4f8c1d3e57.jsonl'));
  assert.ok(inc('qwen', 'tmp/f26db2059ec3/chats/session-2025-08-01T10-00-abc.json'));
  for (const other of ['projects/-home-ana-x/chats/5b0d7c2e.runtime.json', 'usage/token-usage-2026-12.jsonl', 'usage_record.jsonl', 'settings.json', 'tmp/f26db2059ec3/scheduled_tasks.lock'])
    assert.ok(!inc('qwen', other), other);
  assert.equal(agentByLane('qwen')!.projectFromPath!('projects/-home-ana-x/chats/a.jsonl'), '/home/ana/x');

  assert.deepEqual(roots('droid', {}).map((r) => r.dir), ['/home/ana/.factory/sessions']);
  assert.deepEqual(roots('droid', { FACTORY_HOME_OVERRIDE: '/elsewhere' }).map((r) => r.dir), ['/elsewhere/.factory/sessions']);
  const s = '-home-ana-x/ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446';
  assert.ok(inc('droid', `${s}.jsonl`) && inc('droid', `${s}.settings.json`));
  assert.ok(!inc('droid', `${s}.settings.json.bak`));
  assert.equal(agentByLane('droid')!.rewritesWhole!(`${s}.settings.json`), true);
  assert.equal(agentByLane('droid')!.rewritesWhole!(`${s}.jsonl`), false);
  assert.equal(agentByLane('droid')!.sessionOf(`${s}.settings.json`), agentByLane('droid')!.sessionOf(`${s}.jsonl`), 'the settings belong to the session');
});

function tmpDoc(name: string, doc: unknown): { file: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'legacy-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  return { file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// The older whole-document shapes, built here from the fields public readers of them name (no real
// file of either was available): every turn cites the whole document.
test('Copilot CLI history-session-state/<id>.json: chatMessages as turns, tool results joined to their calls', () => {
  const { file, done } = tmpDoc('session_1.json', {
    sessionId: 'hhh',
    startTime: '2025-10-08T21:10:16.398Z',
    chatMessages: [
      { role: 'user', content: 'please add mcp servers' },
      { role: 'assistant', content: 'sure', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'str_replace_editor', arguments: '{"command":"view","path":"/x"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'file contents here' },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ],
    timeline: [],
  });
  try {
    const r = readTurns(file, 'copilot_cli', 'history-session-state/session_1.json', { full: true, tail: true })!;
    const n = fs.readFileSync(file, 'utf8').split('\n').length;
    assert.deepEqual(
      r.turns.map((t) => [t.role, t.text, t.span.line_from, t.span.line_to]),
      [
        ['user', 'please add mcp servers', 1, n],
        ['assistant', 'sure', 1, n],
        ['user', 'thanks', 1, n],
      ],
    );
    assert.deepEqual(r.turns[1].tools.map((u) => [u.name, u.output]), [['str_replace_editor', 'file contents here']]);
    assert.equal(r.facts.native_session, 'hhh');
  } finally {
    done();
  }
});

test('Qwen tmp/<hash>/chats/*.json (Gemini CLI\'s document): user and qwen messages as turns', () => {
  const { file, done } = tmpDoc('session-1.json', {
    sessionId: 's1',
    projectHash: 'f26db2059ec3',
    startTime: '2025-08-01T10:00:00.000Z',
    lastUpdated: '2025-08-01T10:01:00.000Z',
    messages: [
      { id: 'm1', timestamp: '2025-08-01T10:00:01.000Z', type: 'user', content: 'list the files' },
      { id: 'm2', timestamp: '2025-08-01T10:00:05.000Z', type: 'qwen', content: 'Here they are.', model: 'qwen3-coder-plus', tokens: { input: 120, output: 9, cached: 20, thoughts: 0, tool: 0, total: 129 } },
    ],
  });
  try {
    const r = readTurns(file, 'qwen', 'tmp/f26db2059ec3/chats/session-1.json', { full: false, tail: true })!;
    assert.deepEqual(
      r.turns.map((t) => [t.role, t.text, t.model, JSON.stringify(t.tokens)]),
      [
        ['user', 'list the files', null, 'null'],
        ['assistant', 'Here they are.', 'qwen3-coder-plus', JSON.stringify({ input: 100, output: 9, cache_creation: 0, cache_read: 20 })],
      ],
    );
    assert.ok(r.turns.every((t) => t.span.line_from === 1));
  } finally {
    done();
  }
});
