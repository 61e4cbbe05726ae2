// Cursor's editor chats: row records of cursorDiskKV -> turns.
//
// composerData:<composerId> value (JSON): name (the title), createdAt / lastUpdatedAt (ms),
// fullConversationHeadersOnly [{bubbleId, type}] (the messages' order; type 1 user, 2 assistant),
// modelConfig {modelName}; older chats keep the messages inline in `conversation`.
// bubbleId:<composerId>:<bubbleId> value (JSON): type, text, createdAt (ISO), thinking {text},
// toolFormerData {toolCallId, name, rawArgs, params, result, status}, tokenCount {inputTokens,
// outputTokens}, modelInfo {modelName}, workspaceUris. Cursor writes an answer as several assistant
// bubbles (text, each tool call, more text): those after one prompt are one reply, as the
// cursor-agent dialect counts them; their token counts are added up.
// A chat is dated by Cursor's own clock: the bubbles' createdAt, and the composer's createdAt and
// lastUpdatedAt, which are all a chat has when its bubbles carry no time (inline ones never do).
import type { FileFacts, Tokens, ToolUse } from '../../turns';
import { arr, isObj, maxTs, minTs, type Obj } from '../kit/jsonl';
import { isoOf, joinTexts, jsonOf, rowsDialect, textOf, type Entry, type LineRef, type RowAt } from '../kit/rowentries';

interface Bubble {
  id: string;
  b: Obj;
  at: LineRef;
  pos: number;
}

function fsPath(uri: unknown): string | null {
  if (typeof uri !== 'string') return null;
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return null;
  }
}

export const cursorIdeReader = {
  label: 'Cursor',
  entries(rows: RowAt[], _o: { full: boolean }, facts: FileFacts): Entry[] {
    let order = new Map<string, number>();
    let model: string | null = null;
    const bubbles: Bubble[] = [];
    let composerAt: LineRef | null = null;
    let inline: Obj[] = [];
    for (const { v } of rows) {
      const key = textOf(v.cols.key) ?? '';
      const val = jsonOf(v.cols.value);
      if (!isObj(val)) continue;
      if (key.startsWith('composerData:')) {
        composerAt = v.at;
        facts.native_session = key.slice('composerData:'.length);
        if (typeof val.name === 'string' && val.name) facts.title_hint = val.name;
        const from = isoOf(val.createdAt);
        facts.started = minTs(facts.started, from);
        facts.ended = maxTs(facts.ended, isoOf(val.lastUpdatedAt) ?? from);
        const mc = isObj(val.modelConfig) ? val.modelConfig : null;
        if (mc && typeof mc.modelName === 'string' && mc.modelName !== 'default') model = mc.modelName;
        order = new Map(arr(val.fullConversationHeadersOnly).filter(isObj).map((h, i) => [String(h.bubbleId), i]));
        inline = arr(val.conversation).filter(isObj);
      } else if (key.startsWith('bubbleId:')) {
        const id = key.split(':')[2] ?? '';
        bubbles.push({ id, b: val, at: v.at, pos: order.get(id) ?? Number.POSITIVE_INFINITY });
      }
    }
    for (const x of bubbles) x.pos = order.get(x.id) ?? Number.POSITIVE_INFINITY;
    // Older chats: the bubbles inline in composerData (each cites the composer's line).
    if (composerAt) {
      inline.forEach((b, i) => {
        const id = String(b.bubbleId ?? `inline-${i}`);
        if (!bubbles.some((x) => x.id === id)) bubbles.push({ id, b, at: composerAt!, pos: order.get(id) ?? i });
      });
    }
    const tsOf = (x: Bubble) => isoOf(x.b.createdAt) ?? '';
    bubbles.sort((a, c) => a.pos - c.pos || (tsOf(a) < tsOf(c) ? -1 : tsOf(a) > tsOf(c) ? 1 : 0));
    const out: Entry[] = [];
    let reply: Entry | null = null;
    for (const x of bubbles) {
      const b = x.b;
      const ts = isoOf(b.createdAt);
      if (b.type === 1) {
        reply = null;
        const ws = fsPath(arr(b.workspaceUris)[0]);
        if (ws) facts.cwd = ws;
        out.push({ role: 'user', kind: 'prompt', text: (typeof b.text === 'string' ? b.text : '').trim(), ts, at: [x.at], cwd: facts.cwd });
        continue;
      }
      if (b.type !== 2) continue;
      const mi = isObj(b.modelInfo) ? b.modelInfo : null;
      if (!reply) {
        reply = { role: 'assistant', kind: 'reply', text: '', thinking: '', tools: [], model: (mi && typeof mi.modelName === 'string' ? mi.modelName : null) ?? model, ts, at: [], cwd: facts.cwd, tokens: null };
        out.push(reply);
      }
      reply.at.push(x.at);
      if (ts) reply.ts_last = ts;
      reply.text = joinTexts([reply.text, typeof b.text === 'string' ? b.text : '']);
      const th = isObj(b.thinking) ? b.thinking.text : null;
      reply.thinking = joinTexts([reply.thinking, typeof th === 'string' ? th : '']);
      const tf = isObj(b.toolFormerData) ? b.toolFormerData : null;
      if (tf) {
        const use: ToolUse = {
          id: typeof tf.toolCallId === 'string' ? tf.toolCallId : null,
          name: typeof tf.name === 'string' ? tf.name : '?',
          arguments: typeof tf.rawArgs === 'string' ? tf.rawArgs : tf.params !== undefined ? (typeof tf.params === 'string' ? tf.params : JSON.stringify(tf.params)) : '',
          output: typeof tf.result === 'string' ? tf.result : tf.result !== undefined && tf.result !== null ? JSON.stringify(tf.result) : '',
          is_error: tf.status === 'error',
        };
        reply.tools!.push(use);
      }
      const tc = isObj(b.tokenCount) ? b.tokenCount : null;
      if (tc) {
        const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
        if (n(tc.inputTokens) || n(tc.outputTokens)) {
          const t: Tokens = reply.tokens ?? { input: 0, output: 0, cache_creation: 0, cache_read: 0 };
          t.input += n(tc.inputTokens);
          t.output += n(tc.outputTokens);
          reply.tokens = t;
        }
      }
    }
    // A reply made only of empty bubbles (a tool still running, a cancelled answer) stays a turn.
    return out;
  },
};

export const cursorIdeDialect = rowsDialect(cursorIdeReader);
