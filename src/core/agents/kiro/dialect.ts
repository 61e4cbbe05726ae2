// Kiro CLI's (and Amazon Q CLI's) row records -> turns.
//
// A row's `value` is a ConversationState (aws/amazon-q-developer-cli,
// crates/chat-cli/src/cli/chat/conversation.rs and message.rs): conversation_id, history (a list of
// {user, assistant, request_metadata}), transcript, latest_summary, model / model_info. serde's
// external tagging throughout:
//   user.content   {"Prompt": {prompt}} | {"ToolUseResults": {tool_use_results}} |
//                  {"CancelledToolUses": {prompt, tool_use_results}}; user.timestamp (RFC 3339);
//                  user.env_context.env_state.current_working_directory
//   tool result    {tool_use_id, content: [{"Text": s} | {"Json": v}], status: "Success" | "Error"}
//   assistant      {"Response": {message_id, content}} | {"ToolUse": {message_id, content,
//                  tool_uses: [{id, name, orig_name, args, orig_args}]}}
//   request_metadata {request_id, request_start_timestamp_ms, stream_end_timestamp_ms, model_id, ...}
// A user entry that only returns tool results is the output of the reply that asked for them.
// Neither records token counts (only credits and sizes): no usage.
import type { Checkpoint, Dialect, FileFacts, ParseOptions, ToolUse, Turn } from '../../turns';
import { arr, isObj, type Obj } from '../kit/jsonl';
import { isoOf, jsonOf, rowsDialect, textOf, type Entry, type RowAt } from '../kit/rowentries';
import { ROWS_SUFFIX } from '../kit/sqlite';
import { KiroLogParser, KiroMetaParser } from './sessionfiles';

function resultText(content: unknown): string {
  return arr(content)
    .map((b) => (isObj(b) ? (typeof b.Text === 'string' ? b.Text : b.Json !== undefined ? JSON.stringify(b.Json) : '') : typeof b === 'string' ? b : ''))
    .filter(Boolean)
    .join('\n');
}

export const kiroReader = {
  label: 'Kiro CLI',
  shared: true,
  entries(rows: RowAt[], _o: { full: boolean }, facts: FileFacts): Entry[] {
    const out: Entry[] = [];
    for (const { v } of rows) {
      const at = [v.at];
      const state = jsonOf(v.cols.value);
      const dir = textOf(v.cols.key);
      if (dir && !facts.cwd) facts.cwd = dir;
      if (!isObj(state)) continue;
      if (typeof state.conversation_id === 'string') facts.native_session = state.conversation_id;
      const mi = isObj(state.model_info) ? state.model_info : null;
      const convModel = (mi && typeof mi.model_id === 'string' ? mi.model_id : null) ?? (typeof state.model === 'string' ? state.model : null);
      let reply: Entry | null = null;
      for (const h of arr(state.history)) {
        // Older builds kept [user, assistant] pairs.
        const e: Obj | null = isObj(h) ? h : Array.isArray(h) ? { user: h[0], assistant: h[1] } : null;
        if (!e) continue;
        const user = isObj(e.user) ? e.user : {};
        const meta = isObj(e.request_metadata) ? e.request_metadata : {};
        const env = isObj(user.env_context) && isObj(user.env_context.env_state) ? user.env_context.env_state : null;
        const cwd = env && typeof env.current_working_directory === 'string' ? env.current_working_directory : null;
        if (cwd) facts.cwd = cwd;
        const uts = isoOf(user.timestamp) ?? isoOf(meta.request_start_timestamp_ms);
        const c = isObj(user.content) ? user.content : {};
        const results: Obj[] = [];
        let prompt: string | null = null;
        for (const [tag, body] of Object.entries(c)) {
          if (!isObj(body)) continue;
          if (typeof body.prompt === 'string') prompt = body.prompt;
          if (tag === 'ToolUseResults' || tag === 'CancelledToolUses') results.push(...arr(body.tool_use_results).filter(isObj));
        }
        for (const r of results) {
          const use = reply?.tools?.find((u) => u.id === r.tool_use_id);
          const output = resultText(r.content);
          const err = typeof r.status === 'string' && r.status.toLowerCase() === 'error';
          if (use && reply) {
            use.output = output;
            use.is_error = err;
          } else {
            out.push({ role: 'tool', kind: 'output', text: '', tools: [{ id: typeof r.tool_use_id === 'string' ? r.tool_use_id : null, name: '?', arguments: '', output, is_error: err }], ts: uts, at });
          }
        }
        if (prompt !== null) out.push({ role: 'user', kind: 'prompt', text: prompt.trim(), ts: uts, at, cwd: facts.cwd });
        const a = isObj(e.assistant) ? e.assistant : {};
        const body = isObj(a.ToolUse) ? a.ToolUse : isObj(a.Response) ? a.Response : null;
        if (!body) {
          reply = null;
          continue;
        }
        const tools: ToolUse[] = arr(body.tool_uses)
          .filter(isObj)
          .map((u) => ({
            id: typeof u.id === 'string' ? u.id : null,
            name: typeof u.orig_name === 'string' && u.orig_name ? u.orig_name : typeof u.name === 'string' ? u.name : '?',
            arguments: u.args === undefined ? '' : JSON.stringify(u.args),
            output: '',
            is_error: false,
          }));
        reply = {
          role: 'assistant',
          kind: 'reply',
          text: typeof body.content === 'string' ? body.content.trim() : '',
          tools,
          model: typeof meta.model_id === 'string' ? meta.model_id : convModel,
          ts: isoOf(meta.stream_end_timestamp_ms) ?? uts,
          at,
          cwd: facts.cwd,
        };
        out.push(reply);
      }
      const sum = state.latest_summary;
      const summary = Array.isArray(sum) && typeof sum[0] === 'string' ? sum[0] : typeof sum === 'string' ? sum : null;
      if (summary) out.push({ role: 'system', kind: 'summary', text: summary, at });
    }
    return out;
  },
};

const rows = rowsDialect(kiroReader);

/** Row records of the databases, and the session files of newer builds (sessionfiles.ts). */
export const kiroDialect: Dialect = {
  reads: (rel) => rel.endsWith(ROWS_SUFFIX) || /\.(jsonl|json)$/.test(rel),
  open(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    if (opts.rel.endsWith(ROWS_SUFFIX)) return rows.open(opts, emit);
    if (opts.rel.endsWith('.json')) return new KiroMetaParser(opts, emit, resume);
    return new KiroLogParser(opts, emit, resume);
  },
  sharedSpans: (rel) => rel.endsWith(ROWS_SUFFIX),
};
