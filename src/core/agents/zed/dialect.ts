// Zed's row records -> turns.
//
// A `threads` row holds a whole thread: id, summary (the title), updated_at, data_type ('zstd' or
// 'json') and data, the DbThread document (crates/agent/src/db.rs, version "0.3.0"): title,
// messages, updated_at, initial_project_snapshot {worktree_snapshots: [{worktree_path}]},
// cumulative_token_usage, request_token_usage {<user message id>: TokenUsage}, model {provider,
// model}, subagent_context {parent_thread_id}. Messages are serde's external tagging of
// crates/agent/src/thread.rs: {"User": {id, content: [{"Text": s} | {"Mention": {uri, content}} |
// {"Image": ...}]}}, {"Agent": {content: [{"Text": s} | {"Thinking": {text, signature}} |
// {"RedactedThinking": s} | {"ToolUse": {id, name, raw_input, input, ...}}], tool_results: {<id>:
// {tool_use_id, tool_name, is_error, content: {"Text": s} | {"Image": ...}, output}}}}, "Resume".
// Threads of the first agent (no version or an older one) have {role, segments: [{type, text}],
// tool_uses, tool_results} messages instead.
// request_token_usage holds, per prompt, the usage of the prompt's latest request: it is given to
// the prompt's last reply. cumulative_token_usage is every request's usage added up (the earlier
// requests of a prompt's tool loop and compaction requests too) where the Zed build kept it: the
// first agent did and newer builds do, while the builds between saved it unchanged (zero for a
// thread they started). The thread's tokens are, count by count, the larger of the two; what that
// holds beyond the replies' usage is the session's, no reply's (FileFacts.unclaimed_tokens), as
// views.sql counts the thread (README.md says why).
import * as zlib from 'node:zlib';
import type { FileFacts, Tokens, ToolUse } from '../../turns';
import { addTokens } from '../../truth';
import { arr, isObj, type Obj } from '../kit/jsonl';
import { isoOf, joinTexts, rowsDialect, textOf, type Entry, type LineRef, type RowAt } from '../kit/rowentries';

type Unzstd = (b: Buffer) => Buffer;
const unzstd = (zlib as unknown as { zstdDecompressSync?: Unzstd }).zstdDecompressSync;

/** The thread document of a row, or null (not JSON, or zstd on a Node without it). */
export function zedThread(cols: Record<string, unknown>): Obj | null {
  const data = cols.data;
  let raw: Buffer | null = Buffer.isBuffer(data) ? data : typeof data === 'string' ? Buffer.from(data, 'utf8') : null;
  if (!raw) return null;
  try {
    if (textOf(cols.data_type as string) === 'zstd') {
      if (!unzstd) return null;
      raw = unzstd(raw);
    }
    const j = JSON.parse(raw.toString('utf8')) as unknown;
    return isObj(j) ? j : null;
  } catch {
    return null;
  }
}

function tokensOf(u: unknown): Tokens | null {
  if (!isObj(u)) return null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { input: n(u.input_tokens), output: n(u.output_tokens), cache_creation: n(u.cache_creation_input_tokens), cache_read: n(u.cache_read_input_tokens) };
}

const ZERO: Tokens = { input: 0, output: 0, cache_creation: 0, cache_read: 0 };

/** A thread's tokens: count by count, the larger of its cumulative usage and its prompts' usage added up. */
export function threadTokens(thread: Obj): Tokens {
  const perPrompt = Object.values(isObj(thread.request_token_usage) ? thread.request_token_usage : {}).reduce((t: Tokens, u) => addTokens(t, tokensOf(u) ?? ZERO), ZERO);
  const cum = tokensOf(thread.cumulative_token_usage) ?? ZERO;
  return {
    input: Math.max(cum.input, perPrompt.input),
    output: Math.max(cum.output, perPrompt.output),
    cache_creation: Math.max(cum.cache_creation, perPrompt.cache_creation),
    cache_read: Math.max(cum.cache_read, perPrompt.cache_read),
  };
}

/** What `whole` holds beyond `part`, count by count. */
function beyond(whole: Tokens, part: Tokens): Tokens {
  return {
    input: Math.max(0, whole.input - part.input),
    output: Math.max(0, whole.output - part.output),
    cache_creation: Math.max(0, whole.cache_creation - part.cache_creation),
    cache_read: Math.max(0, whole.cache_read - part.cache_read),
  };
}

/** A tagged value ({"Text": s}) or a plain string, as text. */
function tagText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isObj(v) && typeof v.Text === 'string') return v.Text;
  return '';
}

function agentEntry(a: Obj, at: LineRef[], model: string | null, ts: string | null): Entry {
  const content = arr(a.content);
  const results = isObj(a.tool_results) ? a.tool_results : {};
  const tools: ToolUse[] = [];
  const texts: string[] = [];
  const thinking: string[] = [];
  for (const c of content) {
    if (typeof c === 'string') continue;
    if (!isObj(c)) continue;
    if (typeof c.Text === 'string') texts.push(c.Text);
    else if (isObj(c.Thinking)) thinking.push(typeof c.Thinking.text === 'string' ? c.Thinking.text : '');
    else if (isObj(c.ToolUse)) {
      const u = c.ToolUse;
      const id = typeof u.id === 'string' ? u.id : null;
      const r = id && isObj(results[id]) ? (results[id] as Obj) : null;
      tools.push({
        id,
        name: typeof u.name === 'string' ? u.name : '?',
        arguments: typeof u.raw_input === 'string' && u.raw_input ? u.raw_input : u.input === undefined ? '' : JSON.stringify(u.input),
        output: r ? tagText(r.content) : '',
        is_error: r?.is_error === true,
      });
    }
  }
  return { role: 'assistant', kind: 'reply', text: joinTexts(texts), thinking: joinTexts(thinking), tools, model, ts, at };
}

/** A thread of the first agent: {role, segments, tool_uses, tool_results}. */
function legacyEntry(m: Obj, at: LineRef[], model: string | null, ts: string | null): Entry | null {
  const segs = arr(m.segments).filter(isObj);
  const text = joinTexts(segs.filter((s) => s.type === 'text').map((s) => (typeof s.text === 'string' ? s.text : '')));
  if (m.role === 'user') return text ? { role: 'user', kind: 'prompt', text, ts, at } : null;
  if (m.role !== 'assistant') return text ? { role: 'system', kind: 'instructions', text, ts, at } : null;
  const results = arr(m.tool_results).filter(isObj);
  const tools: ToolUse[] = arr(m.tool_uses)
    .filter(isObj)
    .map((u) => {
      const r = results.find((x) => x.tool_use_id === u.id);
      return {
        id: typeof u.id === 'string' ? u.id : null,
        name: typeof u.name === 'string' ? u.name : '?',
        arguments: u.input === undefined ? '' : JSON.stringify(u.input),
        output: r ? tagText(r.content) : '',
        is_error: r?.is_error === true,
      };
    });
  const thinking = joinTexts(segs.filter((s) => s.type === 'thinking').map((s) => (typeof s.text === 'string' ? s.text : '')));
  return { role: 'assistant', kind: 'reply', text, thinking, tools, model, ts, at };
}

export const zedReader = {
  label: 'Zed',
  shared: true,
  entries(rows: RowAt[], _o: { full: boolean }, facts: FileFacts): Entry[] {
    const out: Entry[] = [];
    let unclaimed: Tokens | null = null;
    for (const { row, v } of rows) {
      if (row.table !== 'threads') continue;
      const at = [v.at];
      facts.native_session = textOf(v.cols.id) ?? facts.native_session;
      const thread = zedThread(v.cols);
      const title = textOf(v.cols.summary) || (thread && typeof thread.title === 'string' ? thread.title : null) || (thread && typeof thread.summary === 'string' ? thread.summary : null);
      if (title) facts.title_hint = title;
      if (!thread) continue;
      const ts = isoOf(thread.updated_at) ?? isoOf(textOf(v.cols.updated_at));
      const snap = isObj(thread.initial_project_snapshot) ? thread.initial_project_snapshot : null;
      const tree = snap ? arr(snap.worktree_snapshots).find(isObj) : undefined;
      if (tree && typeof tree.worktree_path === 'string') facts.cwd = tree.worktree_path;
      const sub = isObj(thread.subagent_context) ? thread.subagent_context : null;
      if (sub && typeof sub.parent_thread_id === 'string') {
        facts.parent_session = sub.parent_thread_id;
        facts.subagent = true;
      }
      const m = isObj(thread.model) ? thread.model : null;
      const model = m && typeof m.model === 'string' ? m.model : null;
      const usage = isObj(thread.request_token_usage) ? thread.request_token_usage : {};
      let prompt: string | null = null;
      let lastReply: Entry | null = null;
      let claimed = ZERO;
      const settle = () => {
        if (!prompt || !lastReply) return;
        lastReply.tokens = tokensOf(usage[prompt]);
        if (lastReply.tokens) claimed = addTokens(claimed, lastReply.tokens);
      };
      for (const msg of arr(thread.messages)) {
        if (msg === 'Resume') {
          out.push({ role: 'system', kind: 'notice', text: '[resume]', ts, at });
          continue;
        }
        if (!isObj(msg)) continue;
        if (isObj(msg.User)) {
          settle();
          const u = msg.User;
          prompt = typeof u.id === 'string' ? u.id : null;
          lastReply = null;
          const text = joinTexts(arr(u.content).map((c) => (isObj(c) && typeof c.Text === 'string' ? c.Text : '')));
          out.push({ role: 'user', kind: 'prompt', text, ts, at, cwd: facts.cwd });
        } else if (isObj(msg.Agent)) {
          lastReply = agentEntry(msg.Agent, at, model, ts);
          lastReply.cwd = facts.cwd;
          lastReply.sidechain = facts.subagent;
          out.push(lastReply);
        } else if (typeof msg.role === 'string') {
          const e = legacyEntry(msg, at, model, ts);
          if (e) out.push(e);
        }
      }
      settle();
      unclaimed = addTokens(unclaimed, beyond(threadTokens(thread), claimed));
    }
    facts.unclaimed_tokens = unclaimed;
    return out;
  },
};

export const zedDialect = rowsDialect(zedReader);
