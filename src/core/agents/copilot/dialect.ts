// GitHub Copilot Chat (VS Code) -> turns. Three shapes, told apart by where the file lives:
//
// chatSessions/<id>.json (and emptyWindowChatSessions/): one session object (version 3) rewritten
//   whole; each generation is its own lake file. Each request is a user turn (message.text) and
//   an assistant turn (its response[] parts). A turn cites the whole document (lines 1..N): the
//   lines of one request inside a pretty-printed document are not a unit one can check alone.
// chatSessions/<id>.jsonl: a mutation log (kind 0 snapshot, 1 set at path k, 2 push at k after
//   truncating to i, 3 delete at k), replayed in order, then read exactly like the .json. Any
//   line may change any request, so turns cite the whole log.
// GitHub.copilot-chat/transcripts/<id>.jsonl: an event stream, one event a line — user.message is
//   a prompt, each assistant.message a reply that its tool.execution_* events join (by toolCallId).
import type { Checkpoint, Dialect, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { arr, isObj, lineText, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';

type Mode = 'doc' | 'log' | 'events';

interface St {
  mode: Mode;
}

function modeOf(rel: string): Mode {
  if (/\/transcripts\/[^/]+\.jsonl$/.test(rel)) return 'events';
  return rel.endsWith('.jsonl') ? 'log' : 'doc';
}

// ---- the mutation log ----

/** Applies one mutation-log entry to `state` and returns the new state (kind 0 replaces it). */
export function applyMutation(state: unknown, e: Obj): unknown {
  if (e.kind === 0) return e.v;
  const k = arr(e.k).filter((x): x is string | number => typeof x === 'string' || typeof x === 'number');
  if (k.length === 0) {
    if (e.kind === 1) return e.v;
    return state;
  }
  // Walk to the container of the last key, creating objects where a set goes through nothing.
  let cur: unknown = state;
  for (let i = 0; i < k.length - 1; i++) {
    if (!isObj(cur) && !Array.isArray(cur)) return state;
    const c = cur as Record<string | number, unknown>;
    if (c[k[i]] === undefined || c[k[i]] === null) {
      if (e.kind !== 1 && e.kind !== 2) return state;
      c[k[i]] = typeof k[i + 1] === 'number' ? [] : {};
    }
    cur = c[k[i]];
  }
  if (!isObj(cur) && !Array.isArray(cur)) return state;
  const c = cur as Record<string | number, unknown>;
  const last = k[k.length - 1];
  if (e.kind === 1) c[last] = e.v;
  else if (e.kind === 2) {
    if (!Array.isArray(c[last])) c[last] = [];
    const a = c[last] as unknown[];
    if (typeof e.i === 'number' && e.i >= 0) a.length = Math.min(a.length, e.i);
    a.push(...arr(e.v));
  } else if (e.kind === 3) {
    if (Array.isArray(c) && typeof last === 'number') c.splice(last, 1);
    else delete c[last];
  }
  return state;
}

/** Replays a whole log (parsed lines, in order). */
export function replayCopilotLog(entries: unknown[]): unknown {
  let state: unknown = undefined;
  for (const e of entries) if (isObj(e)) state = applyMutation(state, e);
  return state;
}

// ---- a session object ----

/** Every `text` string inside a tool result (VS Code serialises prompt-tsx trees). */
function resultText(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') return out;
  if (Array.isArray(v)) for (const x of v) resultText(x, out);
  else if (isObj(v)) {
    if (typeof v.text === 'string') out.push(v.text);
    else if (typeof v.value === 'string') out.push(v.value);
    for (const x of Object.values(v)) if (typeof x === 'object') resultText(x, out);
  }
  return out;
}

function refName(p: Obj): string {
  if (typeof p.name === 'string') return p.name;
  const r = isObj(p.inlineReference) ? p.inlineReference : null;
  const u = r && isObj(r.uri) ? r.uri : r;
  const fp = u && typeof u.path === 'string' ? u.path : '';
  return fp.split('/').pop() ?? '';
}

/** The reply text of a response: its markdown parts (and inline references, by name) in order.
 * They are one stream cut at references, so they are joined as they are. */
export function copilotReplyText(response: unknown): string {
  let s = '';
  for (const p of arr(response)) {
    if (!isObj(p)) continue;
    if ((p.kind === undefined || p.kind === null || p.kind === 'markdownContent') && typeof p.value === 'string') s += p.value;
    else if (p.kind === 'inlineReference') s += refName(p);
  }
  return s.trim();
}

class CopilotParser extends BaseParser<St> {
  private lines: string[] = [];
  private whole: Span | null = null;
  private reply: Turn | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { mode: modeOf(opts.rel) }, resume);
  }

  protected onLine(l: RawLine): void {
    if (this.st.mode === 'events') return this.event(l);
    this.hold(); // a document or a log: nothing is final before it ends
    this.lines.push(lineText(l));
    if (!this.whole) this.whole = { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to };
    else {
      this.whole.line_to = l.no;
      this.whole.byte_to = l.to;
    }
  }

  protected onFinish(): void {
    if (this.st.mode === 'events') {
      this.closeReply();
      return;
    }
    if (!this.whole) return;
    let session: unknown = null;
    if (this.st.mode === 'doc') {
      try {
        session = JSON.parse(this.lines.join('\n'));
      } catch {
        session = null;
      }
    } else {
      const entries: unknown[] = [];
      for (const s of this.lines) {
        if (!s.trim()) continue;
        try {
          entries.push(JSON.parse(s));
        } catch {
          this.counts.bad++;
        }
      }
      session = replayCopilotLog(entries);
    }
    if (!isObj(session)) {
      this.counts.bad++;
      return;
    }
    this.session(session, this.whole);
    this.release();
  }

  private session(o: Obj, span: Span): void {
    this.facts.native_session ??= strOrNull(o.sessionId);
    if (typeof o.customTitle === 'string' && o.customTitle.trim()) this.facts.title_hint = o.customTitle.trim();
    this.seen(tsOf(o.creationDate));
    this.seen(tsOf(o.lastMessageDate));
    const at = { no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine;
    for (const r of arr(o.requests)) {
      if (!isObj(r)) continue;
      const ts = tsOf(r.timestamp);
      this.seen(ts);
      const msg = isObj(r.message) ? r.message : {};
      const u = this.turn(at, 'user', 'prompt', ts);
      addText(u, typeof msg.text === 'string' ? msg.text : '');
      u.span = { ...span };
      this.emit(u);
      const parts = arr(r.response).filter(isObj);
      if (parts.length === 0) continue;
      const t = this.turn(at, 'assistant', 'reply', ts);
      t.span = { ...span };
      t.model = strOrNull(r.modelId);
      addText(t, copilotReplyText(parts));
      const res = isObj(r.result) ? r.result : {};
      const meta = isObj(res.metadata) ? res.metadata : {};
      const timings = isObj(res.timings) ? res.timings : {};
      if (typeof r.timestamp === 'number' && typeof timings.totalElapsed === 'number') t.ts_last = tsOf(r.timestamp + timings.totalElapsed) ?? t.ts_last;
      // The calls the model made, with arguments, in order; the response's tool parts carry other
      // ids, so the i-th tool part is matched with the i-th call when the ids differ.
      const calls = arr(meta.toolCallRounds).flatMap((x) => (isObj(x) ? arr(x.toolCalls).filter(isObj) : []));
      const results = isObj(meta.toolCallResults) ? meta.toolCallResults : {};
      let i = 0;
      for (const p of parts) {
        if (p.kind === 'thinking') {
          if (this.opts.full) addThinking(t, typeof p.value === 'string' ? p.value : arr(p.value).filter((x) => typeof x === 'string').join(''));
        } else if (p.kind === 'toolInvocationSerialized') {
          const id = strOrNull(p.toolCallId);
          const call = calls.find((c) => c.id === id) ?? calls[i];
          i++;
          t.tools.push({
            id,
            name: strOrNull(p.toolId) ?? (call ? strOrNull(call.name) : null) ?? '?',
            arguments: this.opts.full && call ? (typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? '')) : '',
            output: this.opts.full && call && typeof call.id === 'string' ? resultText(results[call.id]).join('') : '',
            is_error: false,
          });
        }
      }
      // Tokens: result.usage (0.37 on), else the older result.metadata figures.
      const usage = isObj(res.usage) ? res.usage : {};
      const pIn = typeof usage.promptTokens === 'number' ? usage.promptTokens : meta.promptTokens;
      const pOut = typeof usage.completionTokens === 'number' ? usage.completionTokens : meta.outputTokens;
      if (typeof pIn === 'number' || typeof pOut === 'number') {
        t.tokens = { input: num(pIn), output: num(pOut), cache_creation: 0, cache_read: 0 };
      }
      this.emit(t);
    }
    // The name the user gave, an entry after the turns (their numbers stay), so search finds it.
    if (this.facts.title_hint && typeof o.customTitle === 'string') {
      const n = this.turn(at, 'system', 'name', this.facts.ended);
      n.span = { ...span };
      addText(n, this.facts.title_hint);
      this.emit(n);
    }
  }

  // ---- the transcripts event stream ----

  private event(l: RawLine): void {
    let o: unknown;
    try {
      o = JSON.parse(lineText(l));
    } catch {
      this.badLine(l);
      return;
    }
    if (!isObj(o) || typeof o.type !== 'string') {
      this.badLine(l);
      return;
    }
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    const d = isObj(o.data) ? o.data : {};
    switch (o.type) {
      case 'session.start':
        this.facts.native_session ??= strOrNull(d.sessionId);
        this.seen(tsOf(d.startTime));
        return;
      case 'user.message': {
        this.closeReply();
        const t = this.turn(l, 'user', 'prompt', ts);
        addText(t, typeof d.content === 'string' ? d.content : '');
        this.emit(t);
        return;
      }
      case 'assistant.message': {
        this.closeReply();
        this.hold();
        const t = this.turn(l, 'assistant', 'reply', ts);
        addText(t, typeof d.content === 'string' ? d.content : '');
        if (typeof d.reasoningText === 'string' && this.opts.full) addThinking(t, d.reasoningText);
        for (const q of arr(d.toolRequests)) {
          if (!isObj(q)) continue;
          t.tools.push({
            id: strOrNull(q.toolCallId),
            name: strOrNull(q.name) ?? '?',
            arguments: this.opts.full ? (typeof q.arguments === 'string' ? q.arguments : JSON.stringify(q.arguments ?? '')) : '',
            output: '',
            is_error: false,
          });
        }
        this.reply = t;
        return;
      }
      case 'tool.execution_start':
      case 'tool.execution_complete': {
        const use = this.reply?.tools.find((u) => u.id === d.toolCallId);
        if (this.reply && use) {
          if (o.type === 'tool.execution_complete') {
            use.is_error = d.success === false;
            const r = isObj(d.result) ? d.result : null;
            if (this.opts.full && r && typeof r.content === 'string') use.output = r.content;
          }
          this.extend(this.reply, l, ts);
        }
        return;
      }
      default:
        // turn_start/turn_end and events a newer build may add: no turn of their own.
        return;
    }
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }
}

export const copilotDialect: Dialect = {
  reads: (rel) => /\/(chatSessions|emptyWindowChatSessions)\/[^/]+\.jsonl?$/.test(rel) || /\/transcripts\/[^/]+\.jsonl$/.test(rel),
  open: (opts, emit, resume) => new CopilotParser(opts, emit, resume),
  sharedSpans: (rel) => modeOf(rel) !== 'events',
};
