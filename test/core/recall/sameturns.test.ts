// show, brain stats, brain calls, derived.messages and export count the same turns, sessions, calls
// and tokens (src/core/truth.ts) on transcripts written the way each agent writes them where the
// cache's SQL read them apart from the dialects: Claude Code replies whose ids repeat (a redacted
// transcript) or are missing; Codex's earliest bare lines, typed-input events without an item,
// call ids that repeat in one file, a fork's copied calls and an archived copy of a rollout;
// Copilot Chat's session in its .json and its .jsonl log, also after the log grows past the .json.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { all, appendLine, writeJsonl } from '../cache/helpers';
import { FIXTURES, sandbox, type Sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';
import { updateCache } from '../../../src/core/cache';
import { toolCalls } from '../../../src/core/cache/reports';
import { readSession } from '../../../src/core/recall';
import { statsReport } from '../../../src/core/recall/stats';
import { isMainTurn, toolCallsOf } from '../../../src/core/truth';

type J = Record<string, any>;
let sb: Sandbox;

const CX_BARE = '0000bbbb-0000-7000-8000-000000000001';
const CX_EVENTS = '0000bbbb-0000-7000-8000-000000000002';
const CX_FORK = '0000bbbb-0000-7000-8000-000000000003';
const CP = 'copilot-two-forms';
const cpDir = () => path.join(sb.home, '.config', 'Code', 'User', 'workspaceStorage', 'forms', 'chatSessions');

function writeClaude(): void {
  const base = { sessionId: 'cc-ids', cwd: '/tmp/ids', isSidechain: false };
  let n = 0;
  const ts = () => `2026-02-01T10:00:${String(n++).padStart(2, '0')}Z`;
  const user = (content: unknown) => ({ ...base, type: 'user', timestamp: ts(), uuid: `u${n}`, message: { role: 'user', content } });
  const reply = (ids: { id?: string; requestId?: string }, content: unknown[]) => ({
    ...base,
    type: 'assistant',
    timestamp: ts(),
    uuid: `a${n}`,
    ...(ids.requestId ? { requestId: ids.requestId } : {}),
    message: { ...(ids.id ? { id: ids.id } : {}), role: 'assistant', model: 'claude-x', content },
  });
  const text = (t: string) => [{ type: 'text', text: t }];
  const R = '[trimmed for fixture]';
  writeJsonl(path.join(sb.home, '.claude', 'projects', '-tmp-ids', 'cc-ids.jsonl'), [
    user('first question'),
    // One reply over three lines, its tool's result between them.
    reply({ id: R, requestId: R }, text('looking')),
    reply({ id: R, requestId: R }, [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/ids/a' } }]),
    user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }]),
    reply({ id: R, requestId: R }, text('it says a')),
    user('second question'),
    // The same id after a prompt, after another id: three more replies.
    reply({ id: R, requestId: R }, text('one')),
    reply({ id: 'msg_other', requestId: 'req_other' }, text('two')),
    reply({ id: R, requestId: R }, text('three')),
    // No message id: the request id joins two lines; then neither: each line its own reply.
    reply({ requestId: 'req_only' }, text('four')),
    reply({ requestId: 'req_only' }, text('four, more')),
    reply({}, text('five')),
    reply({}, text('six')),
  ]);
}

function writeCodex(): void {
  const dir = path.join(sb.home, '.codex', 'sessions', '2026', '02', '01');
  // The earliest files: bare items, the user's text in "message".
  writeJsonl(path.join(dir, `rollout-2026-02-01T10-00-00-${CX_BARE}.jsonl`), [
    { created_at: '2026-02-01T10:00:00Z', role: 'user', message: 'Translate hello to Spanish' },
    { created_at: '2026-02-01T10:00:01Z', type: 'function_call', function: { name: 'translate' }, arguments: { text: 'hello' }, call_id: 'bare_1' },
    { created_at: '2026-02-01T10:00:02Z', type: 'function_call_output', call_id: 'bare_1', output: 'hola' },
    { created_at: '2026-02-01T10:00:03Z', role: 'assistant', content: 'hola' },
  ]);
  const ev = (t: string, payload: unknown) => ({ timestamp: `2026-02-01T11:00:${t}Z`, type: 'event_msg', payload });
  const item = (t: string, payload: unknown) => ({ timestamp: `2026-02-01T11:00:${t}Z`, type: 'response_item', payload });
  const R = '[trimmed for fixture]';
  const history = [
    // Typed input recorded only as events (no user item beside them).
    ev('01', { type: 'user_message', message: 'list the files' }),
    item('02', { type: 'function_call', name: 'shell', call_id: R, arguments: '{"command":["ls"]}' }),
    item('03', { type: 'function_call_output', call_id: R, output: 'a.txt' }),
    item('04', { type: 'function_call', name: 'shell', call_id: R, arguments: '{"command":["ls","-a"]}' }),
    item('05', { type: 'function_call_output', call_id: R, output: '.hidden\na.txt' }),
    item('06', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'two files' }] }),
    ev('07', { type: 'token_count', info: { total_token_usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10, total_tokens: 110 }, last_token_usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10, total_tokens: 110 } } }),
  ];
  const meta = (id: string) => ({ timestamp: '2026-02-01T11:00:00Z', type: 'session_meta', payload: { id, cwd: '/tmp/cx' } });
  const events = [
    meta(CX_EVENTS),
    ...history,
    ev('08', { type: 'item_completed', item: { type: 'UserMessage', content: [{ type: 'text', text: 'thanks' }] } }),
    item('09', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'welcome' }] }),
  ];
  writeJsonl(path.join(dir, `rollout-2026-02-01T11-00-00-${CX_EVENTS}.jsonl`), events);
  // Archived: the same rollout again, in archived_sessions/.
  writeJsonl(path.join(sb.home, '.codex', 'archived_sessions', `rollout-2026-02-01T11-00-00-${CX_EVENTS}.jsonl`), events);
  // A fork: a new session holding a copy of the history (the same call ids).
  writeJsonl(path.join(dir, `rollout-2026-02-01T12-00-00-${CX_FORK}.jsonl`), [meta(CX_FORK), ...history]);
}

/** Copilot Chat's session as a .json document (pretty-printed, the larger) and as a .jsonl log
 * whose snapshot holds the same requests. */
function writeCopilot(): J {
  const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'copilot', 'workspaceStorage', 'fixtures', 'chatSessions', 'git-ai-copilot_session_simple.json'), 'utf8'));
  doc.sessionId = CP;
  doc.requests = doc.requests.slice(0, 2);
  fs.mkdirSync(cpDir(), { recursive: true });
  fs.writeFileSync(path.join(cpDir(), `${CP}.json`), JSON.stringify(doc, null, 2));
  writeJsonl(path.join(cpDir(), `${CP}.jsonl`), [{ kind: 0, v: doc }]);
  return doc;
}

async function record(): Promise<void> {
  const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  assert.ok(r.applied > 0);
  await updateCache(sb.brain, {});
}

let cpDoc: J;
before(async () => {
  sb = sandbox({ name: 'sameturns' });
  writeClaude();
  writeCodex();
  cpDoc = writeCopilot();
  await record();
});
after(() => sb.cleanup());

interface Counts {
  sessions: number;
  turns: number;
  calls: number;
  tokens: number[];
}

/** What show says of these sessions, summed. */
function shown(agent: string, sessions: string[]): Counts {
  const c: Counts = { sessions: 0, turns: 0, calls: 0, tokens: [0, 0, 0, 0] };
  for (const id of sessions) {
    const s = readSession({ session: id, agent, max_chars: 1 }, sb.env);
    const turns = s.turns.filter((t) => isMainTurn(t, s.session)).length;
    if (turns > 0) c.sessions++;
    c.turns += turns;
    c.calls += s.turns.reduce((n, t) => n + toolCallsOf(t), 0);
    const k = s.session.tokens!;
    c.tokens = [c.tokens[0] + k.input, c.tokens[1] + k.output, c.tokens[2] + k.cache_creation, c.tokens[3] + k.cache_read];
  }
  return c;
}

/** What every other view says of one agent. */
async function views(agent: string): Promise<Record<string, Counts>> {
  const st = (await statsReport(sb.brain, 'agent', { env: sb.env, agent })).rows.find((r) => r.key === agent)!;
  const t = st.tokens;
  const calls = (await toolCalls(sb.brain, { agent })).rows.reduce((n, r) => n + r.calls, 0);
  const [[turns, files]] = await all(
    sb.brain,
    `SELECT count(DISTINCT turn_id), count(DISTINCT file_id) FROM derived.messages WHERE agent = '${agent}' AND turn_id IS NOT NULL AND NOT is_sidechain`,
  );
  return {
    stats: { sessions: st.sessions, turns: st.turns, calls: st.tool_calls, tokens: [t.input, t.output, t.cache_creation, t.cache_read] },
    'brain calls and derived.messages': { sessions: Number(files), turns: Number(turns), calls, tokens: [t.input, t.output, t.cache_creation, t.cache_read] },
  };
}

async function agree(agent: string, sessions: string[], want: Omit<Counts, 'tokens'>): Promise<void> {
  const s = shown(agent, sessions);
  assert.deepEqual({ sessions: s.sessions, turns: s.turns, calls: s.calls }, want, 'show');
  for (const [view, c] of Object.entries(await views(agent))) assert.deepEqual(c, s, view);
}

test('Claude Code: a reply is the lines with one id until the conversation moves on, in every view, whether ids repeat or are missing', async () => {
  // 2 prompts; replies: the first three lines, then one, two, three, four (two lines), five, six.
  await agree('claude-code', ['cc-ids'], { sessions: 1, turns: 9, calls: 1 });
});

test('Codex: bare early lines, typed input only in events, repeated call ids, a fork and an archived copy count alike in every view', async () => {
  // Bare: a prompt, a reply that calls, a reply that says (1 call). Events: 2 typed prompts, 4
  // replies (2 calls), once for the rollout and its archived copy. The fork: 1 prompt, 3 replies,
  // the 2 calls it copied.
  await agree('codex', [CX_BARE, CX_EVENTS, CX_FORK], { sessions: 3, turns: 3 + 6 + 4, calls: 1 + 2 + 2 });
  const [[files]] = await all(sb.brain, `SELECT count(*) FROM derived.files WHERE agent = 'codex' AND session_id = '${CX_EVENTS}'`);
  assert.equal(Number(files), 2, 'the rollout and its archived copy are both on the floor');
  const [[rows]] = await all(sb.brain, `SELECT count(*) FROM derived.sessions WHERE agent = 'codex' AND session_id = '${CX_EVENTS}'`);
  assert.equal(Number(rows), 1, 'and one session');
});

test('Copilot Chat: a session in a .json and a .jsonl log is one session, before and after the log grows past the .json', async () => {
  await agree('copilot-chat', [CP], { sessions: 1, turns: 4, calls: 1 });
  // The log grows by a request with a long answer: it is the larger form now, and show reads it.
  const more = structuredClone(cpDoc.requests[0]);
  more.requestId = 'request_more';
  more.message = { text: 'and once more, at length' };
  more.response = [{ value: 'A long answer. '.repeat(3000) }];
  appendLine(path.join(cpDir(), `${CP}.jsonl`), JSON.stringify({ kind: 2, k: ['requests'], v: [more] }));
  assert.ok(fs.statSync(path.join(cpDir(), `${CP}.jsonl`)).size > fs.statSync(path.join(cpDir(), `${CP}.json`)).size);
  await record();
  await agree('copilot-chat', [CP], { sessions: 1, turns: 6, calls: 1 });
});
