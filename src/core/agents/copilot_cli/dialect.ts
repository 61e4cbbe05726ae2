// GitHub Copilot CLI -> turns. Two shapes, told apart by the file's name:
//
// session-state/<id>/events.jsonl: one event a line ({type, data, id, timestamp, parentId}, and
//   agentId on a sub-agent's events). user.message is a prompt; each assistant.message is one
//   model reply with its toolRequests, which the tool.execution_start/_complete events after it
//   join by toolCallId (the reply's span grows over them). session.usage_record carries one model
//   call's tokens and comes just before the assistant.message of that call. A resumed session is
//   appended to the same file (session.resume).
// history-session-state/<id>.json (builds before the event log): one document rewritten whole,
//   {sessionId, startTime, chatMessages: OpenAI-style messages}; every turn cites the document.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { arr, isObj, lineText, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';

interface St {
  legacy: boolean;
  /** Tokens of the model call whose reply comes next (a usage record precedes its message). */
  pIn: number;
  pOut: number;
  pCr: number;
  pCw: number;
  pUsage: boolean;
}

/** One usage record in the unit every agent shares: Copilot's inputTokens counts the cached
 * prompt (read and written) too, so what was not served from cache is the rest. */
export function copilotCliTokens(u: Obj): { input: number; output: number; cache_creation: number; cache_read: number } {
  const cr = num(u.cacheReadTokens);
  const cw = num(u.cacheWriteTokens);
  return { input: Math.max(0, num(u.inputTokens) - cr - cw), output: num(u.outputTokens), cache_creation: cw, cache_read: cr };
}

/** The text of an OpenAI-style message's content (a string or a list of text parts). */
function chatContent(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n\n');
}

class CopilotCliParser extends BaseParser<St> {
  private reply: Turn | null = null;
  private doc: string[] = [];
  private docSpan: Span | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { legacy: opts.rel.endsWith('.json'), pIn: 0, pOut: 0, pCr: 0, pCw: 0, pUsage: false }, resume);
  }

  protected onLine(l: RawLine): void {
    if (this.st.legacy) {
      this.hold(); // a document: nothing is final before it ends
      this.doc.push(lineText(l));
      if (!this.docSpan) this.docSpan = { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to };
      else {
        this.docSpan.line_to = l.no;
        this.docSpan.byte_to = l.to;
      }
      return;
    }
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
    const side = typeof o.agentId === 'string' && o.agentId !== '';
    switch (o.type) {
      case 'session.start':
      case 'session.resume': {
        if (o.type === 'session.start') this.facts.native_session ??= strOrNull(d.sessionId);
        const ctx = isObj(d.context) ? d.context : {};
        if (typeof ctx.cwd === 'string' && ctx.cwd) this.facts.cwd = ctx.cwd;
        return;
      }
      case 'user.message': {
        this.closeReply();
        const t = this.turn(l, 'user', 'prompt', ts);
        t.sidechain = side;
        addText(t, typeof d.content === 'string' ? d.content : '');
        this.emit(t);
        return;
      }
      case 'session.usage_record': {
        const u = isObj(d.usage) ? d.usage : {};
        const k = copilotCliTokens(u);
        this.st.pIn += k.input;
        this.st.pOut += k.output;
        this.st.pCr += k.cache_read;
        this.st.pCw += k.cache_creation;
        this.st.pUsage = true;
        return;
      }
      case 'assistant.message': {
        this.closeReply();
        this.hold();
        const t = this.turn(l, 'assistant', 'reply', ts);
        t.sidechain = side;
        t.model = strOrNull(d.model);
        addText(t, typeof d.content === 'string' ? d.content : '');
        if (this.opts.full && typeof d.reasoningText === 'string') addThinking(t, d.reasoningText);
        for (const q of arr(d.toolRequests)) {
          if (!isObj(q)) continue;
          t.tools.push({
            id: strOrNull(q.toolCallId),
            name: strOrNull(q.name) ?? '?',
            arguments: this.opts.full ? (typeof q.arguments === 'string' ? q.arguments : JSON.stringify(q.arguments ?? {})) : '',
            output: '',
            is_error: false,
          });
        }
        if (this.st.pUsage) {
          t.tokens = { input: this.st.pIn, output: this.st.pOut, cache_creation: this.st.pCw, cache_read: this.st.pCr };
          this.st.pIn = this.st.pOut = this.st.pCr = this.st.pCw = 0;
          this.st.pUsage = false;
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
            if (this.opts.full && r) use.output = typeof r.content === 'string' ? r.content : typeof r.detailedContent === 'string' ? r.detailedContent : '';
            if (this.opts.full && !use.output && isObj(d.error) && typeof d.error.message === 'string') use.output = d.error.message;
          }
          this.extend(this.reply, l, ts);
        }
        return;
      }
      case 'session.error': {
        this.closeReply();
        const t = this.turn(l, 'system', 'notice', ts);
        addText(t, typeof d.message === 'string' ? d.message : '');
        this.emit(t);
        return;
      }
      default:
        // Turn bookkeeping, the system prompt, permissions, hooks, shutdown totals and events a
        // newer build may add: no turn of their own.
        return;
    }
  }

  protected onFinish(): void {
    if (!this.st.legacy) {
      this.closeReply();
      return;
    }
    if (!this.docSpan) return;
    let o: unknown;
    try {
      o = JSON.parse(this.doc.join('\n'));
    } catch {
      o = null;
    }
    if (!isObj(o)) {
      this.counts.bad++; // a half-written document: still on the floor, found by the scan tier
      return;
    }
    this.legacy(o, this.docSpan);
    this.release();
  }

  private legacy(o: Obj, span: Span): void {
    this.facts.native_session ??= strOrNull(o.sessionId);
    const start = tsOf(o.startTime);
    this.seen(start);
    const at = { no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine;
    let reply: Turn | null = null;
    const flush = () => {
      if (reply) this.emit(reply);
      reply = null;
    };
    for (const m of arr(o.chatMessages)) {
      if (!isObj(m)) continue;
      if (m.role === 'user') {
        flush();
        const t = this.turn(at, 'user', 'prompt', start);
        addText(t, chatContent(m.content));
        t.span = { ...span };
        this.emit(t);
      } else if (m.role === 'assistant') {
        flush();
        const t = this.turn(at, 'assistant', 'reply', start);
        addText(t, chatContent(m.content));
        t.span = { ...span };
        for (const c of arr(m.tool_calls)) {
          if (!isObj(c)) continue;
          const f = isObj(c.function) ? c.function : {};
          t.tools.push({
            id: strOrNull(c.id),
            name: strOrNull(f.name) ?? '?',
            arguments: this.opts.full ? (typeof f.arguments === 'string' ? f.arguments : JSON.stringify(f.arguments ?? {})) : '',
            output: '',
            is_error: false,
          });
        }
        reply = t;
      } else if (m.role === 'tool' && reply && this.opts.full) {
        // A result joins its call by id, else the first call of that name still without output.
        const r: Turn = reply;
        const use = r.tools.find((u) => u.id !== null && u.id === m.tool_call_id) ?? r.tools.find((u) => u.output === '' && (m.name === undefined || u.name === m.name));
        if (use) use.output = chatContent(m.content);
      }
    }
    flush();
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }
}

export const copilotCliDialect: Dialect = {
  reads: (rel) => /(^|\/)session-state\/[^/]+\/events\.jsonl$/.test(rel) || /(^|\/)history-session-state\/[^/]+\.json$/.test(rel),
  sharedSpans: (rel) => rel.endsWith('.json'),
  open: (opts, emit, resume) => new CopilotCliParser(opts, emit, resume),
};
