// The dialect views and derived tables against expectations computed here, independently, from
// the fixture files themselves: messages and turns (Claude Code's lines of one reply merged,
// meta lines left out, sub-agents' apart, cursor's runs of assistant lines), tool calls and their
// failures, token usage of Pi and Codex (Codex's repeated token_count counted once).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, listFiles, type Sandbox } from '../../helpers/env';
import { rebuildCache } from '../../../src/core/cache';
import { cacheStats } from '../../../src/core/cache/reports';
import { all, capturedSandbox } from './helpers';

type J = Record<string, any>;

function jsonLines(file: string): (J | null)[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l, i, a) => !(i === a.length - 1 && l === ''))
    .map((l) => {
      try {
        const j = JSON.parse(l);
        return j && typeof j === 'object' && !Array.isArray(j) ? j : null;
      } catch {
        return null;
      }
    });
}

function files(dir: string, ext: RegExp): string[] {
  return listFiles(path.join(FIXTURES, dir)).filter((f) => ext.test(f)).map((f) => path.join(FIXTURES, dir, f));
}

function textOf(c: unknown): string | null {
  if (c == null) return null;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.filter((b) => ['text', 'input_text', 'output_text'].includes(b?.type)).map((b) => b.text).join('\n');
  return null;
}

interface Expect {
  messages: number;
  turns: number;
  calls: number;
  failures: number;
}

/** The main conversations' counts, and in side those of sub-agents: lines marked isSidechain
 * (in the parent's file or their own) and every line of a subagents/ file. */
function expectCc(): Expect & { side: { messages: number; turns: number } } {
  const e = { messages: 0, turns: 0, calls: 0, failures: 0, side: { messages: 0, turns: 0 } };
  for (const f of files('claude/projects', /\.jsonl$/)) {
    const turns = new Set<string>();
    const sideTurns = new Set<string>();
    const uses = new Set<string>();
    const failed = new Set<string>();
    // A reply: the main conversation's assistant lines with one id (message.id, else requestId,
    // else uuid) until a user line that is no tool result or an assistant line with another id
    // opens the next stretch; sidechain lines with one id within a stretch (every line of an
    // agent-*.jsonl file is its main conversation).
    const subFile = path.basename(f).startsWith('agent-');
    let stretch = 0;
    let last: string | null = null;
    jsonLines(f).forEach((j, i) => {
      if (!j) return;
      const role = j.message?.role;
      const key: string = j.message?.id || j.requestId || j.uuid || `line${i}`;
      const result = j.type === 'user' && Array.isArray(j.message?.content) && j.message.content.some((b: J) => b?.type === 'tool_result');
      const main = subFile || j.isSidechain !== true;
      if (['user', 'assistant'].includes(j.type) && main && !result) {
        if (j.type === 'user' || key !== last) stretch = i + 1;
        last = j.type === 'assistant' ? key : null;
      }
      if (j.type === 'assistant' && Array.isArray(j.message?.content)) {
        for (const b of j.message.content) if (b?.type === 'tool_use') {
          e.calls++;
          uses.add(b.id);
        }
      }
      if (j.type === 'user' && Array.isArray(j.message?.content)) {
        // A result pairs with its call by id; one without an id pairs with nothing.
        for (const b of j.message.content) if (b?.type === 'tool_result' && b.is_error === true && b.tool_use_id != null) failed.add(b.tool_use_id);
      }
      if (!['user', 'assistant'].includes(j.type) || !['user', 'assistant'].includes(role)) return;
      const side = j.isSidechain === true || f.includes(`${path.sep}subagents${path.sep}`);
      const t = side ? sideTurns : turns;
      if (side) e.side.messages++;
      else e.messages++;
      if (j.isMeta === true || j.isCompactSummary === true) return;
      // A harness notice (an interrupt) and a command's output are no turns (src/core/truth.ts).
      if (role === 'user' && /^\s*(\[Request interrupted by user[^\]]*\]|<local-command-caveat>|<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>)/.test(textOf(j.message.content) ?? '')) return;
      if (role === 'assistant') t.add(main ? `reply${stretch}` : `reply${stretch}:${key}`);
      else if ((textOf(j.message.content) ?? '') !== '') t.add(`line${i}`);
    });
    e.turns += turns.size;
    e.side.turns += sideTurns.size;
    e.failures += [...uses].filter((u) => failed.has(u)).length;
  }
  return e;
}

function expectPi(): Expect & { input: number; output: number; cacheRead: number; cacheWrite: number } {
  const e = { messages: 0, turns: 0, calls: 0, failures: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const f of files('pi/agent/sessions', /\.jsonl$/)) {
    const calls = new Set<string>();
    const failed = new Set<string>();
    for (const j of jsonLines(f)) {
      if (!j || j.type !== 'message') continue;
      const m = j.message ?? {};
      if (m.role === 'user' || m.role === 'assistant') {
        e.messages++;
        e.turns++;
      }
      if (m.role === 'assistant' && Array.isArray(m.content)) {
        for (const b of m.content) if (b?.type === 'toolCall') {
          e.calls++;
          calls.add(b.id);
        }
      }
      if (m.role === 'assistant' && m.usage && typeof m.usage === 'object') {
        e.input += m.usage.input ?? 0;
        e.output += m.usage.output ?? 0;
        e.cacheRead += m.usage.cacheRead ?? 0;
        e.cacheWrite += m.usage.cacheWrite ?? 0;
      }
      if (m.role === 'toolResult' && m.isError === true) failed.add(m.toolCallId);
    }
    e.failures += [...calls].filter((c) => failed.has(c)).length;
  }
  return e;
}

const CODEX_CALLS = ['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call'];

/** Messages and turns are the main sessions' (a thread a sub-agent spawned, session_meta
 * source.subagent.thread_spawn, is a sub-agent's); calls and usage are every session's. */
function expectCodex(): Expect & { input: number; output: number; cached: number; sideMessages: number } {
  const e = { messages: 0, turns: 0, calls: 0, failures: 0, input: 0, output: 0, cached: 0, sideMessages: 0 };
  for (const f of files('codex/sessions', /\.(jsonl|json)$/)) {
    let prevTotal: string | undefined;
    const lines = jsonLines(f);
    // A sub-agent's rollout by its first session_meta (a later one is a copied sub-agent's).
    const side = !!lines.find((j) => j?.type === 'session_meta')?.payload?.source?.subagent?.thread_spawn?.parent_thread_id;
    // Typed prompts, where the file has events recording typed input (user_message, or an
    // item_completed UserMessage): each event claims a user item of its stretch (none of a reply
    // between them): one with its text, else the nearest within three lines (the earlier on a
    // tie); an event claiming none is a prompt of its own. An unclaimed item is context once an
    // event was written before the reply after it; without events every user item that is not
    // context by its text is a prompt. Bare lines (the earliest files) with a role and no item
    // kind are messages, the user's text in "message".
    const CONTEXT = /^(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<permissions instructions>|<collaboration_mode>|<personality|<skills?[\s>_]|<user_shell_command>|<turn_aborted>|<subagent_notification>|<apps_instructions>|<session_context>)/;
    const KINDS = ['message', 'reasoning', ...CODEX_CALLS, 'function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output', 'function_result'];
    const bodyOf = (j: J): J => {
      if ('payload' in j) return j.payload ?? {};
      if (!KINDS.includes(j.type) && typeof j.role === 'string') return { ...j, type: 'message', content: j.content ?? j.message };
      return j;
    };
    const isReplyItem = (j: J) => {
      const b = bodyOf(j);
      const item = !('payload' in j) || j.type === 'response_item';
      return item && ((b.type === 'message' && b.role === 'assistant') || b.type === 'reasoning' || CODEX_CALLS.includes(b.type));
    };
    const typedText = (j: J): string | null => {
      const b = j.payload ?? {};
      if (j.type !== 'event_msg') return null;
      if (b.type === 'user_message') return typeof b.message === 'string' ? b.message : '';
      if (b.type === 'item_completed' && b.item?.type === 'UserMessage') return textOf(b.item.content) ?? '';
      return null;
    };
    const userItems: number[] = [];
    const events: number[] = [];
    lines.forEach((j, i) => {
      if (!j) return;
      const b = bodyOf(j);
      const item = !('payload' in j) || j.type === 'response_item';
      if (item && b.type === 'message' && b.role === 'user' && !CONTEXT.test((textOf(b.content) ?? '').trimStart())) userItems.push(i);
      if (typedText(j) !== null) events.push(i);
    });
    const noReplyBetween = (a: number, b: number) => !lines.slice(Math.min(a, b) + 1, Math.max(a, b)).some((j) => j && isReplyItem(j));
    const typed = new Set<number>();
    const ownPrompt = new Set<number>();
    for (const e of events) {
      const said = typedText(lines[e]!)!.trim();
      const ok = userItems.filter((u) => noReplyBetween(u, e));
      const same = ok.find((u) => (textOf(bodyOf(lines[u]!).content) ?? '').trim() === said);
      const near = ok.filter((u) => Math.abs(u - e) <= 3).sort((a, b) => Math.abs(a - e) - Math.abs(b - e) || a - b);
      const c = same ?? near[0];
      if (c !== undefined) typed.add(c);
      else ownPrompt.add(e);
    }
    const nextReply = (i: number) => {
      const k = lines.findIndex((j, x) => x > i && j && isReplyItem(j));
      return k < 0 ? lines.length : k;
    };
    const prompt = (i: number) => typed.has(i) || (userItems.includes(i) && !events.some((e) => e < nextReply(i)));
    // A reply is the run of reasoning, assistant text and calls between user messages and tool
    // outputs: one turn, and a row of its own when it holds no assistant message.
    let inReply = false;
    let replyMsgs = 0;
    const endReply = () => {
      if (inReply && replyMsgs === 0) {
        if (side) e.sideMessages++;
        else e.messages++;
      }
      if (inReply && !side) e.turns++;
      inReply = false;
      replyMsgs = 0;
    };
    for (const [i, j] of lines.entries()) {
      if (!j) continue;
      const bare = !('payload' in j);
      const body = bodyOf(j);
      const isItem = bare || j.type === 'response_item';
      const replyItem = isItem && ((body.type === 'message' && body.role === 'assistant') || body.type === 'reasoning' || CODEX_CALLS.includes(body.type));
      const breaks = (isItem && ((body.type === 'message' && body.role === 'user') || /_output$|^function_result$/.test(body.type ?? ''))) || typedText(j) !== null;
      if (replyItem) {
        inReply = true;
        if (body.type === 'message') replyMsgs++;
      } else if (breaks) endReply();
      if (side && isItem && body.type === 'message' && ['user', 'assistant'].includes(body.role)) e.sideMessages++;
      else if (isItem && body.type === 'message' && ['user', 'assistant'].includes(body.role)) {
        e.messages++;
        const t = (textOf(body.content) ?? '').trimStart();
        if (body.role === 'user' && !CONTEXT.test(t) && prompt(i)) e.turns++;
      }
      if (ownPrompt.has(i)) {
        if (side) e.sideMessages++;
        else {
          e.messages++;
          e.turns++;
        }
      }
      if (isItem && CODEX_CALLS.includes(body.type)) e.calls++;
      if (j.type === 'event_msg' && body.type === 'token_count' && body.info && typeof body.info === 'object') {
        const total = body.info.total_token_usage ? JSON.stringify(body.info.total_token_usage) : undefined;
        const dup = total !== undefined && prevTotal !== undefined && total === prevTotal;
        prevTotal = total;
        if (dup) continue;
        const last = body.info.last_token_usage;
        if (last) {
          e.input += (last.input_tokens ?? 0) - (last.cached_input_tokens ?? 0);
          e.cached += last.cached_input_tokens ?? 0;
          e.output += last.output_tokens ?? 0;
        }
      }
    }
    endReply();
  }
  return e;
}

function expectCursor(): Expect {
  const e: Expect = { messages: 0, turns: 0, calls: 0, failures: 0 };
  for (const f of files('cursor/projects', /agent-transcripts\/.*\.jsonl$/)) {
    let inReply = false;
    for (const j of jsonLines(f)) {
      if (!j || !['user', 'assistant'].includes(j.role)) continue;
      e.messages++;
      const c = j.message?.content;
      if (j.role === 'assistant') {
        if (!inReply) e.turns++;
        inReply = true;
        if (Array.isArray(c)) e.calls += c.filter((b) => b?.type === 'tool_use').length;
      } else if ((textOf(c) ?? '') !== '') {
        e.turns++;
        inReply = false;
      }
    }
  }
  return e;
}

// Constructed Codex calls whose outputs report failure in each of the known ways.
const CODEX_FAIL = [
  { type: 'session_meta', payload: { id: '0199aaaa-0000-7000-8000-000000000001', cwd: '/tmp/failing' } },
  ...[
    ['call_ok', 'Exit code: 0\nWall time: 1 seconds\nOutput:\nfine'],
    ['call_exit', 'Exit code: 1\nWall time: 1 seconds\nOutput:\nboom'],
    ['call_meta', JSON.stringify({ output: 'x', metadata: { exit_code: 2, duration_seconds: 0.1 } })],
    ['call_meta_ok', JSON.stringify({ output: 'x', metadata: { exit_code: 0, duration_seconds: 0.1 } })],
    ['call_ev', 'no exit code in the text'],
    ['call_none', null],
  ].flatMap(([id, out]) => [
    { timestamp: '2026-07-01T00:00:00.000Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: id } },
    ...(out === null ? [] : [{ timestamp: '2026-07-01T00:00:01.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: id, output: out } }]),
  ]),
  { timestamp: '2026-07-01T00:00:02.000Z', type: 'event_msg', payload: { type: 'exec_command_end', call_id: 'call_ev', exit_code: 3 } },
];

let sb: Sandbox;
before(async () => {
  sb = await capturedSandbox('cache-derived', (s) => {
    const f = path.join(s.home, '.codex', 'sessions', '2026', '07', '01', 'rollout-2026-07-01T00-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, CODEX_FAIL.map((x) => JSON.stringify(x) + '\n').join(''));
  });
  await rebuildCache(sb.brain);
});
after(() => sb.cleanup());

/** Counts over the fixtures' sessions (the constructed Codex session left out). */
async function counts(agent: string): Promise<Expect> {
  const only = `agent = '${agent}' AND session_id <> '0199aaaa-0000-7000-8000-000000000001'`;
  const m = await all(sb.brain, `SELECT count(*), count(DISTINCT turn_id) FROM derived.messages WHERE ${only} AND NOT is_sidechain`);
  const c = await all(sb.brain, `SELECT count(*), count(*) FILTER (WHERE is_error) FROM derived.tool_calls WHERE ${only}`);
  return { messages: m[0][0] as number, turns: m[0][1] as number, calls: c[0][0] as number, failures: c[0][1] as number };
}

test('Claude Code: messages, merged reply turns, tool calls and failures', async () => {
  const want = expectCc();
  assert.ok(want.messages > 300 && want.calls > 200 && want.failures > 5, JSON.stringify(want));
  const { side, ...main } = want;
  assert.deepEqual(await counts('claude-code'), main);
  const sc = await all(sb.brain, `SELECT count(*), count(DISTINCT turn_id) FROM derived.messages WHERE agent = 'claude-code' AND is_sidechain`);
  assert.deepEqual({ messages: sc[0][0], turns: sc[0][1] }, side);
  assert.ok(side.messages > 100 && side.turns > 50, JSON.stringify(side));
  // The lines of one reply share a turn: fewer turns than assistant lines.
  const r = await all(sb.brain, `SELECT count(*) FILTER (WHERE role = 'assistant'), count(DISTINCT turn_id) FILTER (WHERE role = 'assistant') FROM derived.messages WHERE agent = 'claude-code'`);
  assert.ok((r[0][1] as number) < (r[0][0] as number));
});

test('Codex: response items only (event_msg echoes are not messages), harness context is not a turn', async () => {
  const want = expectCodex();
  const got = await counts('codex');
  assert.deepEqual({ messages: got.messages, turns: got.turns, calls: got.calls }, { messages: want.messages, turns: want.turns, calls: want.calls });
  const side = await all(sb.brain, `SELECT count(*), count(*) FILTER (WHERE parent_session IS NOT NULL) FROM derived.messages WHERE agent = 'codex' AND is_sidechain`);
  assert.deepEqual(side, [[want.sideMessages, want.sideMessages]]);
  // (The fixtures' one thread_spawn session_meta is a later line of a main rollout: no sub-agent
  // file, as the dialect reads it; sub-agent rows are checked on Claude Code's below.)
  const echoes = await all(sb.brain, `SELECT count(*) FROM dialects.v_codex WHERE envelope_type = 'event_msg' AND body_type IN ('user_message', 'agent_message')`);
  assert.ok((echoes[0][0] as number) > 0, 'the fixtures do have echoes');
  const u = await all(sb.brain, `SELECT sum(input_tokens), sum(output_tokens), sum(cache_read_tokens) FROM derived.usage WHERE agent = 'codex'`);
  assert.deepEqual(u[0], [want.input, want.output, want.cached]);
  assert.ok(want.input > 0);
  // A failed MCP call in the fixtures (result Err) is a failure.
  assert.ok(got.failures >= 1);
});

test('Codex failures: "Exit code: N", metadata.exit_code, exec_command_end; no result is unknown', async () => {
  const r = await all(sb.brain, `SELECT call_id, is_error, result_line_no IS NOT NULL FROM derived.tool_calls WHERE session_id = '0199aaaa-0000-7000-8000-000000000001' ORDER BY line_no`);
  assert.deepEqual(r, [
    ['call_ok', false, true],
    ['call_exit', true, true],
    ['call_meta', true, true],
    ['call_meta_ok', false, true],
    ['call_ev', true, true],
    ['call_none', null, false],
  ]);
});

test('Pi: messages, tool calls, failures and usage', async () => {
  const want = expectPi();
  const got = await counts('pi');
  assert.deepEqual(got, { messages: want.messages, turns: want.turns, calls: want.calls, failures: want.failures });
  const u = await all(sb.brain, `SELECT sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_creation_tokens) FROM derived.usage WHERE agent = 'pi'`);
  assert.deepEqual(u[0], [want.input, want.output, want.cacheRead, want.cacheWrite]);
});

test('cursor-agent: consecutive assistant lines are one turn; tool calls counted', async () => {
  const want = expectCursor();
  const got = await counts('cursor-agent');
  assert.deepEqual({ messages: got.messages, turns: got.turns, calls: got.calls }, { messages: want.messages, turns: want.turns, calls: want.calls });
});

test('sessions carry project (cwd) and machine; sub-agent files point at their parent', async () => {
  const s = await all(sb.brain, `SELECT agent, project, machine_id FROM derived.sessions WHERE session_id = 'ef958aa1-0e93-49f0-bb71-150f63befcd1'`);
  assert.deepEqual(s, [['claude-code', '-experiments/worktrees', 'testbox']]);
  const sub = await all(sb.brain, `SELECT count(*) FROM derived.sessions WHERE parent_session = 'ef958aa1-0e93-49f0-bb71-150f63befcd1'`);
  const subDir = path.join(FIXTURES, 'claude', 'projects', '-experiments-worktrees', 'ef958aa1-0e93-49f0-bb71-150f63befcd1', 'subagents');
  const subIds = new Set(fs.readdirSync(subDir).map((f) => f.replace(/\.(meta\.json|jsonl)$/, '')));
  assert.equal(Number(sub[0][0]), subIds.size, 'a sub-agent (its .jsonl and .meta.json) is one session');
  const pi = await all(sb.brain, `SELECT DISTINCT project FROM derived.files WHERE agent = 'pi' AND abs_path LIKE '%large-session%'`);
  assert.deepEqual(pi, [['/Users/badlogic/workspaces/pi-mono']]);
  const m = await all(sb.brain, `SELECT count(*) FROM derived.messages WHERE project IS NULL AND agent IN ('pi', 'codex') AND session_id LIKE '019c8%'`);
  assert.equal(m[0][0], 0, 'messages inherit their session project');
});

test('a session kept in several files is one row of derived.sessions, each of its files one of derived.files', async () => {
  // Cline's task folder, Factory Droid's log beside its settings file: every file of the fixture
  // folder is a file of the session.
  const task = path.join(FIXTURES, 'cline', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', '1796300000000');
  const droidDir = path.join(FIXTURES, 'factory', 'sessions', '-tmp-brain-fixtures-droid-home-work-brain-demo');
  const droid = 'ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446';
  for (const [id, dir] of [['1796300000000', task], [droid, droidDir]]) {
    const names = fs.readdirSync(dir).sort();
    const s = await all(sb.brain, `SELECT n_files FROM derived.sessions WHERE session_id = '${id}'`);
    assert.deepEqual(s.map((r) => Number(r[0])), [names.length], id);
    const f = await all(sb.brain, `SELECT abs_path FROM derived.files WHERE session_id = '${id}' ORDER BY abs_path`);
    assert.deepEqual(f.map((r) => path.basename(String(r[0]))), names, id);
  }
  // The session's project is its log's cwd: the settings file only reads one back from its
  // folder's name, where a '-' of the path cannot be told from a '/'.
  const cwd = (jsonLines(path.join(droidDir, `${droid}.jsonl`)).find((j) => j?.type === 'session_start') as J).cwd;
  assert.deepEqual(await all(sb.brain, `SELECT project FROM derived.sessions WHERE session_id = '${droid}'`), [[cwd]]);
  // One row per machine, agent and session id, and every file in one.
  const [[rows, keys, inFiles, files]] = await all(
    sb.brain,
    `SELECT count(*), count(DISTINCT (machine_id, agent, session_id)), sum(n_files), (SELECT count(*) FROM derived.files) FROM derived.sessions`,
  );
  assert.deepEqual([rows, Number(inFiles)], [keys, Number(files)]);
});

test('sub-agent messages are kept, flagged, with their parent session; stats counts main turns only', async () => {
  // Raw: user/assistant lines of each sub-agent, in a subagents/ file or inline (isSidechain).
  const raw = new Map<string, number>();
  for (const f of files('claude/projects', /\.jsonl$/)) {
    const own = f.includes(`${path.sep}subagents${path.sep}`);
    const parent = own ? path.basename(path.dirname(path.dirname(f))) : path.basename(f, '.jsonl');
    for (const j of jsonLines(f)) {
      if (!j || !['user', 'assistant'].includes(j.type) || !['user', 'assistant'].includes(j.message?.role)) continue;
      if (own || j.isSidechain === true) raw.set(parent, (raw.get(parent) ?? 0) + 1);
    }
  }
  assert.ok((raw.get('ef958aa1-0e93-49f0-bb71-150f63befcd1') ?? 0) > 50, 'subagents/ files');
  assert.ok((raw.get('5c0375b4-57a5-4f26-b12d-d022ee4e51b7') ?? 0) > 5, 'inline sidechain lines');
  const got = await all(sb.brain, `SELECT parent_session, count(*) FROM derived.messages WHERE agent = 'claude-code' AND is_sidechain GROUP BY 1 ORDER BY 1`);
  assert.deepEqual(got, [...raw].sort(([a], [b]) => (a < b ? -1 : 1)));
  // Inline sidechain lines stay in their parent's session; a subagents/ file is its own session.
  const inline = await all(sb.brain, `SELECT DISTINCT session_id FROM derived.messages WHERE is_sidechain AND parent_session = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'`);
  assert.deepEqual(inline, [['5c0375b4-57a5-4f26-b12d-d022ee4e51b7']]);
  const own = await all(sb.brain, `SELECT count(DISTINCT file_id), bool_and(session_id <> parent_session) FROM derived.messages WHERE is_sidechain AND parent_session = 'ef958aa1-0e93-49f0-bb71-150f63befcd1'`);
  assert.deepEqual(own, [[6, true]]);
  assert.deepEqual(await all(sb.brain, `SELECT count(*) FROM derived.messages WHERE NOT is_sidechain AND parent_session IS NOT NULL`), [[0]]);
  // brain stats: sessions and turns are the main conversations'.
  const st = await cacheStats(sb.brain, 'agent');
  const cc = st.rows.find((r) => r.key === 'claude-code')!;
  const main = await all(sb.brain, `SELECT count(DISTINCT file_id), count(DISTINCT turn_id) FROM derived.messages WHERE agent = 'claude-code' AND NOT is_sidechain`);
  assert.deepEqual([cc.sessions, cc.turns], main[0]);
});

test('each derived table holds exactly what its view gives: the refresh parses each line once, to the same rows', async () => {
  // The refresh reads each agent's lines once into a temporary table that its views read while a
  // variable names it, one agent at a time through the agent's own copy of each view
  // (derived.v_messages_all__<lane>); a query here has no such variable, so the views parse the
  // lines afresh. Compared per agent, as the refresh derives them.
  const lanes = (await all(sb.brain, `SELECT DISTINCT lane FROM derived.files ORDER BY lane`)).map((r) => String(r[0]));
  for (const l of ['cc', 'codex', 'copilot', 'cursor', 'gemini', 'pi']) assert.ok(lanes.includes(l), `${l} has sessions`);
  for (const lane of lanes) {
    const files = `(SELECT file_id FROM floor.files WHERE lane = '${lane}')`;
    for (const [table, view] of [
      ['files', 'v_files'],
      ['messages', 'v_messages_all'],
      ['tool_calls', 'v_tool_calls'],
      ['usage_lines', 'v_usage_lines'],
    ]) {
      const copy = `derived.${view}__${lane}`;
      const [[has]] = await all(sb.brain, `SELECT count(*) FROM duckdb_views() WHERE schema_name = 'derived' AND view_name = '${view}__${lane}'`);
      if (Number(has) === 0) {
        // No part of this view for the agent: its files have no rows in the table either.
        const [[n]] = await all(sb.brain, `SELECT count(*) FROM derived.${table} WHERE file_id IN ${files}`);
        assert.equal(Number(n), 0, `derived.${table} holds ${lane} rows without a view for them`);
        continue;
      }
      const [[onlyTable, onlyView]] = await all(
        sb.brain,
        `SELECT (SELECT count(*) FROM (FROM derived.${table} WHERE file_id IN ${files} EXCEPT ALL FROM ${copy} WHERE file_id IN ${files})),
                (SELECT count(*) FROM (FROM ${copy} WHERE file_id IN ${files} EXCEPT ALL FROM derived.${table} WHERE file_id IN ${files}))`,
      );
      assert.deepEqual([onlyTable, onlyView], [0, 0], `derived.${table} = ${copy} for ${lane}'s files`);
    }
  }
  const [[msgs]] = await all(sb.brain, 'SELECT count(*) FROM derived.messages');
  assert.ok(Number(msgs) > 0, 'derived.messages has rows');
});

/** Sessions whose times are not yet their messages', each with why (the test fails when one is). */
const CLOCK_KNOWN: Record<string, string> = {
  // Copilot Chat's session documents (.json) have no derived.v_clock_copilot: their lines carry
  // no time of their own.
  'copilot-chat git-ai-copilot_session_simple': 'no clock part for the document form',
};

test("every agent's sessions: their times are their messages' where their lines carry none, else span them", async () => {
  const every = await capturedSandbox('cache-clock', undefined, 'all');
  try {
    await rebuildCache(every.brain);
    const rows = await all(
      every.brain,
      `WITH m AS (SELECT agent, machine_id, session_id, min(event_time) AS lo, max(event_time) AS hi
                  FROM derived.messages WHERE event_time IS NOT NULL GROUP BY ALL)
       SELECT s.agent, s.lane, s.session_id,
              EXISTS (SELECT 1 FROM floor.raw_lines r JOIN floor.files f USING (file_id)
                      WHERE f.lane = s.lane AND f.machine_id = s.machine_id AND f.session_hint IS NOT DISTINCT FROM s.session_id
                        AND r.event_time IS NOT NULL) AS lined,
              epoch_ms(s.first_event), epoch_ms(m.lo), epoch_ms(s.last_event), epoch_ms(m.hi)
       FROM derived.sessions s
       JOIN m ON m.agent = s.agent AND m.machine_id = s.machine_id AND m.session_id IS NOT DISTINCT FROM s.session_id
       ORDER BY ALL`,
    );
    const wrong: Record<string, string> = {};
    for (const [agent, , session, lined, first, lo, last, hi] of rows) {
      const [f, l] = [first === null ? null : Number(first), last === null ? null : Number(last)];
      // A session's lines with times of their own hold its messages (and more: snapshots, metadata).
      const ok = lined ? f !== null && l !== null && f <= Number(lo) && l >= Number(hi) : f === Number(lo) && l === Number(hi);
      if (!ok) wrong[`${agent} ${session}`] = `first_event ${f}, last_event ${l}; its messages ${lo} to ${hi}`;
    }
    assert.deepEqual(Object.keys(wrong).sort(), Object.keys(CLOCK_KNOWN).sort(), JSON.stringify(wrong, null, 1));
    const lanes = new Set(rows.map((r) => String(r[1])));
    for (const lane of ['goose', 'zed', 'warp', 'kiro', 'cursor_ide', 'opencode', 'kilo', 'crush', 'cc', 'cline', 'gemini']) {
      assert.ok(lanes.has(lane), `${lane} has sessions with timed messages`);
    }
  } finally {
    every.cleanup();
  }
});
