// Gemini CLI chats -> turns.
//
// .jsonl (current): an append log. Line 1 is the session's metadata; then one line per message
// *write* — a message may be written again later under the same id with more fields, and the last
// write wins — plus {"$set":{…}} metadata updates (a `messages` key there replaces the whole list)
// and {"$rewindTo":"<id>"}, which drops that message and everything after it. So no turn is final
// until the file ends: the parser holds from the first line (the checkpoint stays at line 1 and a
// grown file is read again whole), and a turn cites the line of its message's last write.
// .json (legacy): one pretty-printed ConversationRecord rewritten whole on every update. Each
// generation is its own lake file and a turn cites the whole document (lines 1..N): the lines of
// one message inside a pretty-printed document are not a unit anyone can check on their own.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { INJECTED_CONTEXT, tokens } from '../../truth';
import { arr, isObj, lineText, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';

interface St {
  json: boolean;
}

interface Rec {
  o: Obj;
  span: Span;
}

/** Text of a Gemini `content`: a string, or Parts whose `text` fields are joined. */
export function geminiText(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
    .filter((s) => s.trim())
    .join('\n\n');
}

/** Content made only of functionResponse parts (no text): tool results sent back to the model. */
function isToolResults(v: unknown): boolean {
  const parts = arr(v);
  return parts.length > 0 && parts.every((p) => isObj(p) && isObj(p.functionResponse) && !(typeof p.text === 'string' && p.text.trim()));
}

function toolOutput(c: Obj): string {
  const out: string[] = [];
  for (const r of arr(c.result)) {
    const fr = isObj(r) && isObj(r.functionResponse) ? r.functionResponse : null;
    const resp = fr && isObj(fr.response) ? fr.response : null;
    if (!resp) continue;
    if (typeof resp.output === 'string') out.push(resp.output);
    else if (typeof resp.error === 'string') out.push(resp.error);
    else out.push(JSON.stringify(resp));
  }
  if (out.length === 0 && typeof c.resultDisplay === 'string') out.push(c.resultDisplay);
  return out.join('\n');
}

class GeminiParser extends BaseParser<St> {
  /** .jsonl: messages in conversation order, each with the span of its last write. */
  private msgs: Rec[] = [];
  /** Every message's last own write, by id (a later `$set` list may repeat it without some fields). */
  private written = new Map<string, Obj>();
  /** .json: the document's lines. */
  private doc: string[] = [];
  private docSpan: Span | null = null;
  private first = true;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { json: opts.rel.endsWith('.json') }, resume);
    if (!resume) {
      const parts = opts.rel.split('/');
      const i = parts.indexOf('chats');
      // chats/<parent>/<id>.jsonl: a sub-agent's conversation.
      if (i >= 0 && parts.length - i === 3) {
        this.facts.subagent = true;
        this.facts.parent_session = parts[i + 1];
      }
    }
  }

  protected onLine(l: RawLine): void {
    this.hold(); // nothing is final before the file ends (see the top of this file)
    const span = { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to };
    if (this.st.json) {
      this.doc.push(lineText(l));
      if (!this.docSpan) this.docSpan = span;
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
    const wasFirst = this.first;
    this.first = false;
    if (!isObj(o)) {
      this.badLine(l);
      return;
    }
    if (isObj(o.$set)) {
      this.meta(o.$set);
      if (Array.isArray(o.$set.messages)) {
        // A full checkpoint of the list: every message now cites this line. A resume (0.61) lists
        // the conversation again without each reply's tokens, tool calls and thoughts: what an
        // earlier write of the same message held of those stays (they were spent all the same).
        this.msgs = o.$set.messages.filter(isObj).map((m) => {
          const old = typeof m.id === 'string' ? this.written.get(m.id) : undefined;
          if (!old) return { o: m, span: { ...span } };
          const kept: Obj = { ...m };
          for (const k of ['tokens', 'toolCalls', 'thoughts', 'model']) if (kept[k] === undefined && old[k] !== undefined) kept[k] = old[k];
          return { o: kept, span: { ...span } };
        });
      }
      return;
    }
    if (typeof o.$rewindTo === 'string') {
      const i = this.msgs.findIndex((m) => m.o.id === o.$rewindTo);
      if (i >= 0) this.msgs.length = i;
      return;
    }
    if (typeof o.type === 'string' && (typeof o.id === 'string' || 'content' in o)) {
      const id = strOrNull(o.id);
      if (id !== null) this.written.set(id, o);
      const at = id === null ? -1 : this.msgs.findIndex((m) => m.o.id === id);
      if (at >= 0) this.msgs[at] = { o, span };
      else this.msgs.push({ o, span });
      return;
    }
    if (wasFirst || typeof o.sessionId === 'string') {
      this.meta(o);
      return;
    }
    this.badLine(l);
  }

  private meta(o: Obj): void {
    if (typeof o.sessionId === 'string') this.facts.native_session ??= o.sessionId;
    if (o.kind === 'subagent') this.facts.subagent = true;
    if (typeof o.summary === 'string' && o.summary.trim()) this.facts.title_hint = o.summary.trim();
    this.seen(tsOf(o.startTime));
    this.seen(tsOf(o.lastUpdated));
  }

  protected onFinish(): void {
    if (this.st.json) {
      if (!this.docSpan) return;
      let o: unknown;
      try {
        o = JSON.parse(this.doc.join('\n'));
      } catch {
        o = null;
      }
      if (!isObj(o)) {
        // A half-written document: still on the floor and found by the scan tier.
        this.counts.bad++;
        return;
      }
      this.meta(o);
      const span = this.docSpan;
      this.msgs = arr(o.messages)
        .filter(isObj)
        .map((m) => ({ o: m, span: { ...span } }));
    }
    for (const m of this.msgs) this.message(m);
    this.release();
  }

  private message({ o, span }: Rec): void {
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    const at = { no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine;
    let t: Turn;
    if (o.type === 'user' && isToolResults(o.content)) {
      // 0.61 writes the tool results it sends back as a user message of functionResponse parts:
      // the output of the reply's calls, not something the user said.
      t = this.turn(at, 'tool', 'output', ts);
      for (const p of arr(o.content)) {
        const fr = isObj(p) && isObj(p.functionResponse) ? p.functionResponse : null;
        if (!fr) continue;
        const resp = isObj(fr.response) ? fr.response : null;
        const out = resp && typeof resp.output === 'string' ? resp.output : resp && typeof resp.error === 'string' ? resp.error : resp ? JSON.stringify(resp) : '';
        t.tools.push({ id: strOrNull(fr.id), name: strOrNull(fr.name) ?? '?', arguments: '', output: this.opts.full ? out : '', is_error: !!resp && typeof resp.error === 'string' });
      }
    } else if (o.type === 'user') {
      const shown = typeof o.displayContent === 'string' && o.displayContent.trim() ? o.displayContent : geminiText(o.content);
      // Context the CLI injects as a user message (0.61's <session_context>): instructions, not a
      // prompt, a title or a turn (truth.ts).
      t = INJECTED_CONTEXT.test(shown) ? this.turn(at, 'system', 'instructions', ts) : this.turn(at, 'user', 'prompt', ts);
      addText(t, shown);
    } else if (o.type === 'gemini' || o.type === 'model') {
      // 'model' with `parts`: the shape of early builds' records.
      t = this.turn(at, 'assistant', 'reply', ts);
      addText(t, geminiText(o.content ?? o.parts));
      t.model = strOrNull(o.model);
      if (this.opts.full) {
        for (const th of arr(o.thoughts)) {
          if (!isObj(th)) continue;
          addThinking(t, [th.subject, th.description].filter((x) => typeof x === 'string' && x.trim()).join('\n'));
        }
      }
      for (const c of arr(o.toolCalls)) {
        if (!isObj(c)) continue;
        t.tools.push({
          id: strOrNull(c.id),
          name: strOrNull(c.name) ?? '?',
          arguments: this.opts.full && c.args !== undefined ? JSON.stringify(c.args) : '',
          output: this.opts.full ? toolOutput(c) : '',
          is_error: c.status === 'error',
        });
        const cts = tsOf(c.timestamp);
        if (cts) t.ts_last = cts > (t.ts_last ?? '') ? cts : t.ts_last;
      }
      if (isObj(o.tokens)) {
        const k = o.tokens;
        // input includes the cached part and not the tool prompt; output not the thoughts.
        t.tokens = tokens({ input: num(k.input), inputIncludesCached: true, cached: num(k.cached), tool: num(k.tool), output: num(k.output), thoughts: num(k.thoughts) });
      }
    } else {
      // info / error / warning and types a newer CLI may add: said by the harness, not a person.
      t = this.turn(at, 'system', 'notice', ts);
      addText(t, geminiText(o.content ?? o.parts));
    }
    t.span = { ...span };
    this.emit(t);
  }
}

export const geminiDialect: Dialect = {
  reads: (rel) => /\/chats\/.+\.jsonl?$/.test(rel),
  sharedSpans: (rel) => rel.endsWith('.json'),
  open: (opts, emit, resume) => new GeminiParser(opts, emit, resume),
};
