// Goose's row records -> turns.
//
// sessions: id, name (the title), working_dir, model_config_json ({"model_name", ...}), the
// session's token totals. messages: one row per message, role 'user' | 'assistant',
// content_json a list of MessageContent tagged by "type" (crates/goose/src/conversation/message.rs):
// text {text}, thinking {thinking}, redactedThinking, toolRequest {id, toolCall: {status, value:
// {name, arguments}} | {status: "error", error}}, frontendToolRequest (same shape), toolResponse
// {id, toolResult: {status, value: {content: [...], isError}} (older: value is the content list) |
// {status: "error", error}}, image, systemNotification, actionRequired, toolConfirmationRequest.
// created_timestamp is in seconds; metadata_json {userVisible, agentVisible}.
// A user message that only answers tool calls is the output of the reply that asked for them; an
// assistant message is one reply; a message the user never sees (a compaction summary) is an
// entry of the session, not a turn.
// Tokens: no message carries usage. usage_ledger (newer builds) holds one row per request
// (input_tokens, output_tokens, cache_write_tokens, cache_read_tokens); a session without ledger
// rows has only its totals on its sessions row (accumulated_input_tokens / accumulated_output_tokens,
// else input_tokens / output_tokens). Either is the session's (FileFacts.unclaimed_tokens), as
// views.sql counts them.
import type { FileFacts, Tokens, ToolUse } from '../../turns';
import { addTokens, tokens } from '../../truth';
import { arr, isObj, type Obj } from '../kit/jsonl';
import { isoOf, joinTexts, jsonOf, rowsDialect, textOf, type Entry, type RowAt } from '../kit/rowentries';

function toolText(content: unknown): string {
  return arr(content)
    .filter(isObj)
    .map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : c.type === 'resource' && isObj(c.resource) && typeof c.resource.text === 'string' ? c.resource.text : ''))
    .filter(Boolean)
    .join('\n');
}

function resultOf(r: unknown): { output: string; error: boolean } {
  if (!isObj(r)) return { output: '', error: false };
  if (r.status === 'error') return { output: typeof r.error === 'string' ? r.error : '', error: true };
  const v = r.value;
  if (Array.isArray(v)) return { output: toolText(v), error: false };
  if (isObj(v)) return { output: toolText(v.content), error: v.isError === true };
  return { output: '', error: false };
}

function callOf(item: Obj): ToolUse {
  const call = isObj(item.toolCall) ? item.toolCall : {};
  const v = isObj(call.value) ? call.value : {};
  return {
    id: typeof item.id === 'string' ? item.id : null,
    name: typeof v.name === 'string' ? v.name : '?',
    arguments: v.arguments === undefined ? '' : JSON.stringify(v.arguments),
    output: '',
    is_error: call.status === 'error',
  };
}

/** A column as a number (SQLite hands integers over as numbers, a record may hold text). */
function num(v: unknown): number | undefined {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(x) ? x : undefined;
}

/** The session's tokens: its ledger rows added up, else its sessions row's totals. */
function sessionUsage(rows: RowAt[]): Tokens | null {
  const ledger = rows.filter((r) => r.row.table === 'usage_ledger');
  let t: Tokens | null = null;
  for (const { v } of ledger) {
    const c = v.cols;
    t = addTokens(t, tokens({ input: num(c.input_tokens), output: num(c.output_tokens), cacheWrite: num(c.cache_write_tokens), cached: num(c.cache_read_tokens) }));
  }
  if (ledger.length > 0) return t;
  for (const { v } of rows.filter((r) => r.row.table === 'sessions')) {
    const c = v.cols;
    t = addTokens(t, tokens({ input: num(c.accumulated_input_tokens) ?? num(c.input_tokens), output: num(c.accumulated_output_tokens) ?? num(c.output_tokens) }));
  }
  return t;
}

export const gooseReader = {
  label: 'Goose',
  entries(rows: RowAt[], _o: { full: boolean }, facts: FileFacts): Entry[] {
    facts.unclaimed_tokens = sessionUsage(rows);
    let model: string | null = null;
    for (const { row, v } of rows) {
      if (row.table !== 'sessions') continue;
      facts.native_session = textOf(v.cols.id) ?? facts.native_session;
      const name = textOf(v.cols.name) || textOf(v.cols.description);
      if (name) facts.title_hint = name;
      facts.cwd = textOf(v.cols.working_dir) ?? facts.cwd;
      const mc = jsonOf(v.cols.model_config_json);
      if (isObj(mc) && typeof mc.model_name === 'string') model = mc.model_name;
    }
    const msgs = rows
      .filter((r) => r.row.table === 'messages')
      .map((r) => ({ r, ts: Number(r.v.cols.created_timestamp) || 0, id: Number(r.v.cols.id) || 0 }))
      .sort((a, b) => a.ts - b.ts || a.id - b.id);
    const out: Entry[] = [];
    let reply: Entry | null = null;
    for (const { r } of msgs) {
      const c = r.v.cols;
      const role = textOf(c.role);
      const items = arr(jsonOf(c.content_json)).filter(isObj);
      const meta = jsonOf(c.metadata_json);
      const hidden = isObj(meta) && meta.userVisible === false;
      const ts = isoOf(c.created_timestamp);
      const at = [r.v.at];
      const text = joinTexts(items.filter((i) => i.type === 'text').map((i) => (typeof i.text === 'string' ? i.text : '')));
      if (role === 'assistant') {
        const thinking = joinTexts(items.filter((i) => i.type === 'thinking').map((i) => (typeof i.thinking === 'string' ? i.thinking : '')));
        const tools = items.filter((i) => i.type === 'toolRequest' || i.type === 'frontendToolRequest').map(callOf);
        if (hidden) {
          if (text) out.push({ role: 'system', kind: 'summary', text, ts, at });
          continue;
        }
        if (!text && !thinking && tools.length === 0) continue;
        reply = { role: 'assistant', kind: 'reply', text, thinking, tools, model, ts, at, cwd: facts.cwd };
        out.push(reply);
        continue;
      }
      // A user message: tool results first (they belong to the reply that asked), then its text.
      for (const i of items.filter((x) => x.type === 'toolResponse')) {
        const res = resultOf(i.toolResult);
        const use = reply?.tools?.find((u) => u.id === i.id);
        if (use && reply) {
          use.output = res.output;
          use.is_error = res.error;
          reply.at.push(r.v.at);
          reply.ts_last = ts ?? reply.ts_last;
        } else {
          out.push({ role: 'tool', kind: 'output', text: '', tools: [{ id: typeof i.id === 'string' ? i.id : null, name: '?', arguments: '', output: res.output, is_error: res.error }], ts, at });
        }
      }
      if (!text) continue;
      reply = null;
      out.push(hidden ? { role: 'system', kind: 'instructions', text, ts, at } : { role: 'user', kind: 'prompt', text, ts, at, cwd: facts.cwd });
    }
    return out;
  },
};

export const gooseDialect = rowsDialect(gooseReader);
