// Warp's row records -> turns.
//
// agent_tasks.task is a protobuf warp.multi_agent.v1.Task: 1 id, 2 description, 5 messages. A
// Message: 1 id, 11 task_id, 13 request_id, 14 timestamp {1 seconds, 2 nanos}, and one of
// 2 user_query {1 query}, 3 agent_output {1 text}, 4 tool_call {1 tool_call_id, then the tool as
// the field of its kind: 2 run_shell_command {1 command}, 5 read_files, 9 grep, 12 call_mcp_tool,
// ...}, 5 tool_call_result {1 tool_call_id, ...}, 9 system_query, 15 agent_reasoning {1 reasoning},
// 16 summarization. Field numbers are those of public generated bindings of Warp's task.proto.
// The messages of one request (request_id) after a prompt are one reply; a tool_call_result is
// the output of the call it names. ai_queries gives each exchange's working directory and model
// (and the prompt, when no task holds one); agent_conversations' conversation_data JSON the usage
// (Warp records one token total per model, no split): conversation_usage_metadata.token_usage
// [{model_id, warp_tokens, byok_tokens}], the session's tokens (FileFacts.unclaimed_tokens),
// counted as input, as views.sql counts them.
import type { FileFacts, Tokens, ToolUse } from '../../turns';
import { addTokens, tokens } from '../../truth';
import { arr, isObj } from '../kit/jsonl';
import { isoOf, joinTexts, jsonOf, rowsDialect, textOf, type Entry, type LineRef, type RowAt } from '../kit/rowentries';
import { all, fields, first, str, sub, texts, toJson, type Field } from '../kit/protobuf';

const TOOLS: Record<number, string> = {
  2: 'run_shell_command',
  3: 'search_codebase',
  4: 'server',
  5: 'read_files',
  6: 'apply_file_diffs',
  7: 'suggest_plan',
  8: 'suggest_create_plan',
  9: 'grep',
  10: 'file_glob',
  11: 'read_mcp_resource',
  12: 'call_mcp_tool',
  13: 'write_to_long_running_shell_command',
  14: 'suggest_new_conversation',
  15: 'file_glob_v2',
  16: 'suggest_prompt',
  17: 'open_code_review',
  18: 'init_project',
  19: 'subagent',
  20: 'read_documents',
  21: 'edit_documents',
  22: 'create_documents',
  23: 'read_shell_command_output',
  24: 'use_computer',
  25: 'insert_review_comments',
  26: 'read_skill',
  27: 'request_computer_use',
  28: 'fetch_conversation',
};

interface Msg {
  f: Field[];
  at: LineRef;
  ts: string | null;
  order: number;
  request: string | null;
}

function tsOf(f: Field[] | null): string | null {
  if (!f) return null;
  const s = first(f, 1);
  const n = first(f, 2);
  if (!s || typeof s.v !== 'number') return null;
  return new Date(s.v * 1000 + (n && typeof n.v === 'number' ? Math.floor(n.v / 1e6) : 0)).toISOString();
}

/** The prompt text of an ai_queries input: [{"Query": {"text", "context"}}]. */
function queryText(input: unknown): string {
  const items = Array.isArray(input) ? input : [input];
  return joinTexts(items.map((i) => (isObj(i) && isObj(i.Query) && typeof i.Query.text === 'string' ? i.Query.text : '')));
}

/** A conversation's tokens: each model's total (Warp's credits and the user's own key's), as input. */
function conversationTokens(data: unknown): Tokens {
  const meta = isObj(data) && isObj(data.conversation_usage_metadata) ? data.conversation_usage_metadata : {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return tokens({ input: arr(meta.token_usage).reduce((a: number, u) => a + (isObj(u) ? n(u.warp_tokens) + n(u.byok_tokens) : 0), 0) });
}

export const warpReader = {
  label: 'Warp',
  shared: true,
  entries(rows: RowAt[], _o: { full: boolean }, facts: FileFacts): Entry[] {
    const out: Entry[] = [];
    const queries = rows.filter((r) => r.row.table === 'ai_queries').sort((a, b) => Number(a.v.cols.id) - Number(b.v.cols.id));
    const models = new Map<string, string>();
    let model: string | null = null;
    for (const q of queries) {
      const cwd = textOf(q.v.cols.working_directory);
      if (cwd && !facts.cwd) facts.cwd = cwd;
      const m = textOf(q.v.cols.model_id);
      if (m) {
        model = m;
        const ex = textOf(q.v.cols.exchange_id);
        if (ex) models.set(ex, m);
      }
    }
    let used: Tokens | null = null;
    for (const { row, v } of rows) {
      if (row.table !== 'agent_conversations') continue;
      facts.native_session = textOf(v.cols.conversation_id) ?? facts.native_session;
      const data = jsonOf(v.cols.conversation_data);
      used = addTokens(used, conversationTokens(data));
      if (isObj(data) && typeof data.parent_conversation_id === 'string') {
        facts.parent_session = data.parent_conversation_id;
        facts.subagent = true;
      }
    }
    facts.unclaimed_tokens = used;
    const msgs: Msg[] = [];
    let order = 0;
    for (const { row, v } of rows) {
      if (row.table !== 'agent_tasks') continue;
      const raw = v.cols.task;
      const task = Buffer.isBuffer(raw) ? fields(raw) : null;
      if (!task) continue;
      const title = str(first(task, 2));
      if (title && !facts.title_hint) facts.title_hint = title;
      for (const m of all(task, 5)) {
        const f = sub(m);
        if (!f) continue;
        msgs.push({ f, at: v.at, ts: tsOf(sub(first(f, 14))), order: order++, request: str(first(f, 13)) });
      }
    }
    msgs.sort((a, b) => (a.ts && b.ts && a.ts !== b.ts ? (a.ts < b.ts ? -1 : 1) : a.order - b.order));
    if (msgs.length === 0) {
      // No task holds the conversation: its prompts from ai_queries.
      for (const q of queries) {
        const text = queryText(jsonOf(q.v.cols.input));
        if (text) out.push({ role: 'user', kind: 'prompt', text, ts: isoOf(textOf(q.v.cols.start_ts)), at: [q.v.at], cwd: textOf(q.v.cols.working_directory) ?? facts.cwd });
      }
      return out;
    }
    let reply: Entry | null = null;
    let replyReq: string | null = null;
    const calls = new Map<string, ToolUse>();
    const replyFor = (m: Msg): Entry => {
      if (reply && replyReq === m.request) {
        if (!reply.at.some((a) => a.no === m.at.no)) reply.at.push(m.at);
        reply.ts_last = m.ts ?? reply.ts_last;
        return reply;
      }
      reply = { role: 'assistant', kind: 'reply', text: '', thinking: '', tools: [], model: (m.request && models.get(m.request)) || model, ts: m.ts, at: [m.at], cwd: facts.cwd };
      replyReq = m.request;
      out.push(reply);
      return reply;
    };
    for (const m of msgs) {
      const q = sub(first(m.f, 2));
      if (q) {
        reply = null;
        out.push({ role: 'user', kind: 'prompt', text: (str(first(q, 1)) ?? '').trim(), ts: m.ts, at: [m.at], cwd: facts.cwd });
        continue;
      }
      const o = sub(first(m.f, 3));
      if (o) {
        const r = replyFor(m);
        r.text = joinTexts([r.text, str(first(o, 1))]);
        continue;
      }
      const reasoning = sub(first(m.f, 15));
      if (reasoning) {
        const r = replyFor(m);
        r.thinking = joinTexts([r.thinking, str(first(reasoning, 1))]);
        continue;
      }
      const call = sub(first(m.f, 4));
      if (call) {
        const r = replyFor(m);
        const id = str(first(call, 1));
        const kind = call.find((x) => x.no !== 1 && x.wt === 2);
        const args = kind ? sub(kind) : null;
        const use: ToolUse = { id, name: kind ? (TOOLS[kind.no] ?? `tool_${kind.no}`) : '?', arguments: args ? JSON.stringify(toJson(args)) : '', output: '', is_error: false };
        r.tools!.push(use);
        if (id) calls.set(id, use);
        continue;
      }
      const res = sub(first(m.f, 5));
      if (res) {
        const id = str(first(res, 1));
        const use = id ? calls.get(id) : undefined;
        const output = texts(res.filter((x) => x.no !== 1)).join('\n');
        if (use) use.output = output;
        else out.push({ role: 'tool', kind: 'output', text: '', tools: [{ id, name: '?', arguments: '', output, is_error: false }], ts: m.ts, at: [m.at] });
        continue;
      }
      const summary = sub(first(m.f, 16));
      if (summary) out.push({ role: 'system', kind: 'summary', text: texts(summary).join('\n'), ts: m.ts, at: [m.at] });
    }
    return out;
  },
};

export const warpDialect = rowsDialect(warpReader);
