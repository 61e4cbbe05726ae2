// Codex rollout lines -> turns.
//
// The model-visible history is the response_item lines; event_msg lines are the UI's copies (user
// and agent messages, reasoning), so they are echoes, not turns. A reply is the run of items
// between two user messages or tool outputs (as Pi records it): reasoning, assistant text and tool
// calls, joined by the outputs that answer its calls (matched by call_id).
//
// Which user items a person typed: the harness also writes context as user messages (AGENTS.md,
// environment context, skills), and in redacted or older files their tags are gone. Newer builds
// mark real input with an event_msg/user_message (0.17x: item_completed UserMessage) beside its
// response_item, so user items are held
// until the model answers, then paired with those events: a paired item is a prompt, an event with
// no item is a prompt on its own, and an unpaired item is context once the file has shown such
// events (a file without any, as old builds write, has no other way to tell, so it is a prompt).
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser, addText, addThinking, joinText } from '../kit/parser';
import { INJECTED_CONTEXT, addTokens, tokens } from '../../truth';
import { argText, arr, contentText, isObj, num, strOrNull, tsOf, type JsonLine, type Obj } from '../kit/jsonl';

interface St {
  model: string | null;
  /** An event_msg/user_message was seen in this file. */
  sawUserEvent: boolean;
  /** Last cumulative token total seen (token_count events are often written twice). */
  lastTotal: number;
  metaSeen: boolean;
}


const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output', 'function_result']);

interface Item {
  kind: 'cand' | 'event' | 'sys';
  sys?: 'instructions' | 'summary' | 'name';
  no: number;
  from: number;
  to: number;
  text: string;
  ts: string | null;
  pair?: Item;
  drop?: boolean;
}

class CodexParser extends BaseParser<St> {
  private reply: { t: Turn; outputs: boolean } | null = null;
  private owner = new Map<string, Turn>();
  private window: Item[] = [];

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { model: null, sawUserEvent: false, lastTotal: -1, metaSeen: false }, resume);
  }

  protected onLine(l: RawLine): void {
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o)) {
      this.badLine(l);
      return;
    }
    const ts = tsOf(o.timestamp) ?? tsOf(o.created_at);
    this.seen(ts);
    const type = o.type;
    const payload = isObj(o.payload) ? o.payload : null;
    if (payload) {
      if (type === 'session_meta') return this.meta(l, j, payload, ts);
      if (type === 'turn_context') return this.context(payload);
      if (type === 'response_item') return this.item(l, j, payload, ts);
      if (type === 'event_msg') return this.event(l, j, payload, ts);
      if (type === 'compacted') {
        const text = j.str(payload.message);
        if (text.trim()) this.sys(l, 'summary', text, ts);
        return;
      }
      return;
    }
    // Older builds: a bare header line, then bare response items without the envelope.
    if (type === undefined && typeof o.id === 'string' && !this.st.metaSeen && !('role' in o)) return this.meta(l, j, o, ts);
    if (typeof type === 'string' && (CALLS.has(type) || OUTPUTS.has(type) || type === 'message' || type === 'reasoning')) {
      return this.item(l, j, o, ts);
    }
    if (typeof o.role === 'string') return this.item(l, j, { ...o, type: 'message', content: o.content ?? o.message }, ts);
  }

  private meta(l: RawLine, j: JsonLine, p: Obj, ts: string | null): void {
    const first = !this.st.metaSeen;
    this.st.metaSeen = true;
    if (first) {
      this.facts.native_session ??= strOrNull(p.id) ?? strOrNull(p.session_id);
      if (typeof p.cwd === 'string' && p.cwd) this.facts.cwd ??= p.cwd;
      this.seen(tsOf(p.timestamp));
      const src = p.source;
      if (isObj(src) && src.subagent !== undefined) {
        this.facts.subagent = true;
        const spawn = isObj(src.subagent) && isObj(src.subagent.thread_spawn) ? src.subagent.thread_spawn : null;
        this.facts.parent_session ??= strOrNull(spawn?.parent_thread_id) ?? strOrNull(p.parent_thread_id);
      }
    }
    const ins = isObj(p.base_instructions) ? p.base_instructions.text : p.instructions;
    if (first && typeof ins === 'string' && (j.elided(ins) || ins.trim())) {
      this.sys(l, 'instructions', this.opts.full ? j.str(ins) : '', ts);
    }
  }

  private context(p: Obj): void {
    if (typeof p.model === 'string' && p.model) this.st.model = p.model;
    if (typeof p.cwd === 'string' && p.cwd) this.facts.cwd ??= p.cwd;
  }

  private item(l: RawLine, j: JsonLine, p: Obj, ts: string | null): void {
    const type = p.type;
    if (type === 'message') {
      const role = p.role;
      // Instructions are only read in full (the index never holds them).
      const text = role === 'user' || role === 'assistant' || this.opts.full ? this.messageText(j, p.content) : '';
      if (role === 'user') {
        if (INJECTED_CONTEXT.test(text)) return this.sys(l, 'instructions', text, ts);
        return this.userItem(l, 'cand', text, ts);
      }
      if (role === 'assistant') {
        const r = this.replyFor(l, ts);
        addText(r, text);
        return;
      }
      // developer / system: instructions
      return this.sys(l, 'instructions', text, ts);
    }
    if (type === 'reasoning') {
      const r = this.replyFor(l, ts);
      if (this.opts.full) {
        const parts = arr(p.summary).map((s) => (isObj(s) ? j.str(s.text) : ''));
        addThinking(r, joinText(parts));
      }
      return;
    }
    if (typeof type === 'string' && CALLS.has(type)) {
      const r = this.replyFor(l, ts);
      const id = strOrNull(p.call_id) ?? strOrNull(p.id);
      const fn = isObj(p.function) ? p.function : null;
      const name = strOrNull(p.name) ?? strOrNull(fn?.name) ?? type.replace(/_call$/, '');
      let args = '';
      if (this.opts.full) args = argText(j, p.arguments ?? p.input ?? p.action ?? fn?.arguments);
      r.tools.push({ id, name, arguments: args, output: '', is_error: false });
      if (id) this.owner.set(id, r);
      return;
    }
    if (typeof type === 'string' && OUTPUTS.has(type)) {
      const id = strOrNull(p.call_id);
      const owner = (id && this.owner.get(id)) || (type === 'function_result' ? this.reply?.t : undefined);
      const out = this.opts.full ? contentText(j, p.output ?? p.result ?? p.tools) : '';
      const use = owner ? (owner.tools.find((u) => u.id === id) ?? owner.tools[owner.tools.length - 1]) : undefined;
      if (owner && use && this.reply && owner === this.reply.t) {
        use.output = use.output ? `${use.output}\n${out}` : out;
        this.extend(owner, l, ts);
        this.reply.outputs = true;
        return;
      }
      // No open reply made this call: an output on its own.
      this.closeReply();
      this.resolveWindow();
      const t = this.turn(l, 'tool', 'output', ts);
      t.tools.push({ id, name: '?', arguments: '', output: out, is_error: false });
      this.emit(t);
    }
  }

  private event(l: RawLine, j: JsonLine, p: Obj, ts: string | null): void {
    if (p.type === 'user_message') {
      this.st.sawUserEvent = true;
      this.userItem(l, 'event', j.str(p.message), ts);
      return;
    }
    // Newer builds (0.17x) mark typed input with item_completed UserMessage instead.
    if (p.type === 'item_completed' && isObj(p.item) && p.item.type === 'UserMessage') {
      this.st.sawUserEvent = true;
      this.userItem(l, 'event', this.messageText(j, p.item.content), ts);
      return;
    }
    if (p.type === 'thread_name_updated' && typeof p.thread_name === 'string' && p.thread_name.trim()) {
      this.facts.title_hint = j.str(p.thread_name);
      this.sys(l, 'name', j.str(p.thread_name), ts);
      return;
    }
    if (p.type === 'token_count' && isObj(p.info)) {
      const total = isObj(p.info.total_token_usage) ? num(p.info.total_token_usage.total_tokens) : -1;
      if (total === this.st.lastTotal) return; // the same count written twice
      this.st.lastTotal = total;
      const last = isObj(p.info.last_token_usage) ? p.info.last_token_usage : null;
      if (!last) return;
      // input_tokens includes the cached part; stats and derived.usage count it apart (truth.ts).
      const step = tokens({
        input: num(last.input_tokens),
        inputIncludesCached: true,
        cached: num(last.cached_input_tokens),
        cacheWrite: num(last.cache_write_input_tokens),
        output: num(last.output_tokens),
      });
      // A count with no reply open is the session's still (stats counts it): kept on the file.
      if (!this.reply) this.facts.unclaimed_tokens = addTokens(this.facts.unclaimed_tokens ?? null, step);
      else this.reply.t.tokens = addTokens(this.reply.t.tokens, step);
    }
  }

  private messageText(j: JsonLine, c: unknown): string {
    if (typeof c === 'string') return j.str(c).trim();
    return joinText(
      arr(c).map((b) => (isObj(b) && (b.type === 'input_text' || b.type === 'output_text' || b.type === 'text') ? j.str(b.text) : '')),
    );
  }

  /** The open reply, or a new one (which ends the user window and any reply that got outputs). */
  private replyFor(l: RawLine, ts: string | null): Turn {
    if (this.reply && !this.reply.outputs) {
      this.extend(this.reply.t, l, ts);
      return this.reply.t;
    }
    this.closeReply();
    this.resolveWindow();
    this.hold();
    const t = this.turn(l, 'assistant', 'reply', ts);
    t.model = this.st.model;
    this.reply = { t, outputs: false };
    return t;
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply.t;
    this.reply = null;
    this.owner.clear();
    this.emit(t);
    if (this.window.length === 0) this.release();
  }

  private userItem(l: RawLine, kind: 'cand' | 'event', text: string, ts: string | null): void {
    this.closeReply();
    this.hold();
    this.window.push({ kind, no: l.no, from: l.from, to: l.to, text, ts });
  }

  /** Recorded instructions. Inside a user window they wait for it, so numbers follow lines. */
  private sys(l: RawLine, kind: 'instructions' | 'summary' | 'name', text: string, ts: string | null): void {
    if (this.window.length > 0) {
      this.window.push({ kind: 'sys', sys: kind, no: l.no, from: l.from, to: l.to, text, ts });
      return;
    }
    const t = this.turn(l, 'system', kind, ts);
    addText(t, text);
    this.emit(t);
  }

  private resolveWindow(): void {
    const w = this.window;
    if (w.length === 0) return;
    this.window = [];
    const cands = w.filter((i) => i.kind === 'cand');
    for (const ev of w.filter((i) => i.kind === 'event')) {
      const free = cands.filter((c) => !c.pair);
      let c = free.find((x) => x.text.trim() === ev.text.trim());
      if (!c) {
        // Redacted or reformatted copies: the item written right beside the event.
        const near = free
          .map((x) => ({ x, d: Math.abs(x.no - ev.no), before: x.no < ev.no ? 0 : 1 }))
          .filter((e) => e.d <= 3)
          .sort((a, b) => a.d - b.d || a.before - b.before);
        c = near[0]?.x;
      }
      if (c) {
        c.pair = ev;
        ev.drop = true;
      }
    }
    const sawEvents = this.st.sawUserEvent;
    for (const i of w) {
      if (i.drop) continue;
      const lines = i.pair ? [i, i.pair] : [i];
      const first = lines.reduce((a, b) => (b.no < a.no ? b : a));
      const last = lines.reduce((a, b) => (b.no > a.no ? b : a));
      const fake: RawLine = { no: first.no, from: first.from, to: first.to, buf: Buffer.alloc(0), s: 0, e: 0 };
      let t: Turn;
      if (i.kind === 'sys') {
        t = this.turn(fake, 'system', i.sys ?? 'instructions', i.ts);
      } else if (i.kind === 'event' || i.pair || !sawEvents) {
        t = this.turn(fake, 'user', 'prompt', i.ts);
      } else {
        t = this.turn(fake, 'system', 'instructions', i.ts);
      }
      addText(t, i.text);
      if (last !== first) {
        t.span.line_to = last.no;
        t.span.byte_to = last.to;
        t.ts_last = last.ts ?? t.ts_last;
      }
      this.emit(t);
    }
    if (!this.reply) this.release();
  }

  protected onFinish(): void {
    this.resolveWindow();
    this.closeReply();
  }
}

export const codexDialect: Dialect = {
  reads: (rel) => rel.endsWith('.jsonl'),
  open: (opts, emit, resume) => new CodexParser(opts, emit, resume),
};
