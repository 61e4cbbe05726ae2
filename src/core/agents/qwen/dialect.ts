// Qwen Code -> turns. Two shapes, told apart by the file's name:
//
// projects/<project>/chats/<id>.jsonl: one record a line ({uuid, parentUuid, sessionId, timestamp,
//   type, cwd, version, ...}), a tree by uuid/parentUuid. type user (no subtype, or a prompt typed
//   while the agent worked: mid_turn_user_message) is a prompt; other user records (notifications,
//   cron, goal runtime) are the harness speaking. type assistant is one model reply: message.parts
//   in Gemini's Content shape (text, thought text, functionCall), model, usageMetadata. tool_result
//   records carry the functionResponse of a call and join the reply that made it (its span grows
//   over them). system records are bookkeeping (telemetry, attribution, compression), except
//   custom_title, the session's name. A record whose parentUuid is not the record before it opens
//   a branch (a rewind or an edited prompt).
// tmp/<hash>/chats/*.json (older builds, Gemini CLI's format): one document rewritten whole,
//   {sessionId, startTime, lastUpdated, messages: [{type user|gemini|qwen|model, content, toolCalls,
//   tokens, model}]}; every turn cites the document.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { arr, isObj, lineText, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';

interface St {
  legacy: boolean;
  lastUuid: string;
}

/** Tokens of a usageMetadata in the shared unit: promptTokenCount counts the cached prompt too;
 * candidatesTokenCount is the whole completion (Qwen fills it with an OpenAI-compatible API's
 * completion_tokens, which include the reasoning), so thoughts are not added again. */
export function qwenTokens(u: Obj): { input: number; output: number; cache_creation: number; cache_read: number } {
  const cached = num(u.cachedContentTokenCount);
  return { input: Math.max(0, num(u.promptTokenCount) - cached), output: num(u.candidatesTokenCount), cache_creation: 0, cache_read: cached };
}

/** The visible text of Gemini-shaped parts (thought parts left out). */
function partsText(v: unknown, thought = false): string {
  if (typeof v === 'string') return thought ? '' : v;
  const out: string[] = [];
  for (const p of arr(isObj(v) && Array.isArray(v.parts) ? v.parts : v)) {
    if (isObj(p) && typeof p.text === 'string' && (p.thought === true) === thought) out.push(p.text);
  }
  return out.join('\n\n');
}

function responseText(r: unknown): string {
  if (typeof r === 'string') return r;
  if (!isObj(r)) return '';
  if (typeof r.output === 'string') return r.output;
  if (typeof r.error === 'string') return r.error;
  if (typeof r.content === 'string') return r.content;
  return JSON.stringify(r);
}

class QwenParser extends BaseParser<St> {
  private reply: Turn | null = null;
  private doc: string[] = [];
  private docSpan: Span | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { legacy: opts.rel.endsWith('.json'), lastUuid: '' }, resume);
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
    this.facts.native_session ??= strOrNull(o.sessionId);
    if (typeof o.cwd === 'string' && o.cwd) this.facts.cwd = o.cwd;
    const uuid = typeof o.uuid === 'string' ? o.uuid : '';
    const branch = this.st.lastUuid !== '' && typeof o.parentUuid === 'string' && o.parentUuid !== this.st.lastUuid;
    if (uuid) this.st.lastUuid = uuid;
    const msg = isObj(o.message) ? o.message : {};
    switch (o.type) {
      case 'user': {
        this.closeReply();
        const typed = o.subtype === undefined || o.subtype === null || o.subtype === 'mid_turn_user_message';
        const t = typed ? this.turn(l, 'user', 'prompt', ts) : this.turn(l, 'system', 'notice', ts);
        t.branch = branch;
        t.cwd = this.facts.cwd;
        addText(t, partsText(msg));
        this.emit(t);
        return;
      }
      case 'assistant': {
        this.closeReply();
        this.hold();
        const t = this.turn(l, 'assistant', 'reply', ts);
        t.branch = branch;
        t.cwd = this.facts.cwd;
        t.model = strOrNull(o.model);
        addText(t, partsText(msg));
        if (this.opts.full) addThinking(t, partsText(msg, true));
        for (const p of arr(msg.parts)) {
          if (!isObj(p) || !isObj(p.functionCall)) continue;
          const c = p.functionCall;
          t.tools.push({
            id: strOrNull(c.id),
            name: strOrNull(c.name) ?? '?',
            arguments: this.opts.full ? JSON.stringify(c.args ?? {}) : '',
            output: '',
            is_error: false,
          });
        }
        if (isObj(o.usageMetadata)) t.tokens = qwenTokens(o.usageMetadata);
        this.reply = t;
        return;
      }
      case 'tool_result': {
        const r = this.reply;
        if (!r) return;
        let joined = false;
        for (const p of arr(msg.parts)) {
          if (!isObj(p) || !isObj(p.functionResponse)) continue;
          const fr = p.functionResponse;
          const use = r.tools.find((u) => u.id !== null && u.id === fr.id);
          if (!use) continue;
          joined = true;
          if (this.opts.full) use.output = responseText(fr.response);
        }
        const res = isObj(o.toolCallResult) ? o.toolCallResult : null;
        if (res) {
          const use = r.tools.find((u) => u.id !== null && u.id === res.callId);
          if (use) {
            joined = true;
            use.is_error = res.status === 'error' || (res.error !== undefined && res.error !== null);
          }
        }
        if (joined) this.extend(r, l, ts);
        return;
      }
      case 'system': {
        const p = isObj(o.systemPayload) ? o.systemPayload : {};
        if (o.subtype === 'custom_title' && typeof p.customTitle === 'string' && p.customTitle.trim()) {
          this.closeReply();
          this.facts.title_hint = p.customTitle.trim();
          const t = this.turn(l, 'system', 'name', ts);
          addText(t, p.customTitle);
          this.emit(t);
        }
        return;
      }
      default:
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
    this.seen(tsOf(o.startTime));
    this.seen(tsOf(o.lastUpdated));
    if (typeof o.summary === 'string' && o.summary.trim()) this.facts.title_hint = o.summary.trim();
    const at = { no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine;
    for (const m of arr(o.messages)) {
      if (!isObj(m)) continue;
      const ts = tsOf(m.timestamp);
      this.seen(ts);
      let t: Turn;
      if (m.type === 'user') {
        t = this.turn(at, 'user', 'prompt', ts);
        addText(t, partsText(m.content));
      } else if (m.type === 'gemini' || m.type === 'qwen' || m.type === 'model') {
        t = this.turn(at, 'assistant', 'reply', ts);
        t.model = strOrNull(m.model);
        addText(t, partsText(m.content));
        for (const c of arr(m.toolCalls)) {
          if (!isObj(c)) continue;
          t.tools.push({
            id: strOrNull(c.id),
            name: strOrNull(c.name) ?? '?',
            arguments: this.opts.full && c.args !== undefined ? JSON.stringify(c.args) : '',
            output: this.opts.full ? arr(c.result).map((r) => (isObj(r) && isObj(r.functionResponse) ? responseText(r.functionResponse.response) : '')).join('') : '',
            is_error: c.status === 'error',
          });
        }
        if (isObj(m.tokens)) {
          const k = m.tokens;
          t.tokens = { input: Math.max(0, num(k.input) - num(k.cached)), output: num(k.output), cache_creation: 0, cache_read: num(k.cached) };
        }
      } else {
        t = this.turn(at, 'system', 'notice', ts);
        addText(t, partsText(m.content));
      }
      t.span = { ...span };
      this.emit(t);
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

export const qwenDialect: Dialect = {
  reads: (rel) => /(^|\/)projects\/[^/]+\/chats\/[^/]+\.jsonl$/.test(rel) || /(^|\/)tmp\/[^/]+\/chats\/[^/]+\.json$/.test(rel),
  sharedSpans: (rel) => rel.endsWith('.json'),
  open: (opts, emit, resume) => new QwenParser(opts, emit, resume),
};
