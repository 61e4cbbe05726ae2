// Pi session lines -> turns.
//
// Pi writes a whole reply (text, thinking, tool calls, usage) as one message line, and each tool
// result as its own line after it, matched by toolCallId; a reply stays open until the next user or
// assistant message so its results join it. Entries form a tree (id/parentId, v2+): an entry whose
// parent is not the entry before it starts a branch, and the abandoned branch stays in the file and
// stays searchable. Compaction and branch summaries and session names are entries, not turns, but
// their text is read even for the index: the turn tier finds them.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { argText, arr, contentText, isObj, num, strOrNull, tsOf, type JsonLine, type Obj } from '../kit/jsonl';

interface St {
  model: string | null;
  lastId: string | null;
}

const SUMMARIES = new Set(['compaction', 'branch_summary', 'branchSummary', 'compactionSummary']);

class PiParser extends BaseParser<St> {
  private reply: Turn | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { model: null, lastId: null }, resume);
  }

  protected onLine(l: RawLine): void {
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o)) {
      this.badLine(l);
      return;
    }
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    const type = o.type;
    const id = strOrNull(o.id);
    const parent = strOrNull(o.parentId);
    const branch = parent !== null && this.st.lastId !== null && parent !== this.st.lastId;
    if (type === 'session') {
      this.facts.native_session ??= strOrNull(o.id);
      if (typeof o.cwd === 'string' && o.cwd) this.facts.cwd ??= o.cwd;
      if (typeof o.modelId === 'string') this.st.model = o.modelId;
      this.facts.parent_session ??= strOrNull(o.parentSession);
      return;
    }
    if (type === 'message' && isObj(o.message)) {
      this.message(l, j, o.message, ts, branch);
    } else if (typeof type === 'string' && SUMMARIES.has(type)) {
      this.closeReply();
      const t = this.turn(l, 'system', 'summary', ts);
      t.branch = branch;
      addText(t, j.str(o.summary));
      this.emit(t);
    } else if (type === 'custom_message') {
      this.closeReply();
      const t = this.turn(l, 'system', 'instructions', ts);
      addText(t, this.opts.full ? contentText(j, o.content) : '');
      this.emit(t);
    } else if (type === 'model_change') {
      if (typeof o.modelId === 'string') this.st.model = o.modelId;
    } else if (type === 'session_info') {
      if (typeof o.name === 'string' && o.name) {
        this.facts.title_hint = o.name;
        this.closeReply();
        const t = this.turn(l, 'system', 'name', ts);
        addText(t, j.str(o.name));
        this.emit(t);
      }
    }
    if (id) this.st.lastId = id;
  }

  private message(l: RawLine, j: JsonLine, m: Obj, ts: string | null, branch: boolean): void {
    const role = m.role;
    if (role === 'toolResult' && this.reply) {
      const id = strOrNull(m.toolCallId);
      const use = this.reply.tools.find((u) => u.id === id);
      if (use) {
        if (this.opts.full) use.output = contentText(j, m.content);
        use.is_error = m.isError === true;
        this.extend(this.reply, l, ts);
        return;
      }
    }
    this.closeReply();
    if (role === 'user') {
      const t = this.turn(l, 'user', 'prompt', ts);
      t.branch = branch;
      addText(t, this.userText(j, m.content));
      this.emit(t);
    } else if (role === 'assistant') {
      this.hold();
      const t = this.turn(l, 'assistant', 'reply', ts);
      t.branch = branch;
      t.model = strOrNull(m.model) ?? this.st.model;
      for (const b of arr(m.content)) {
        if (!isObj(b)) continue;
        if (b.type === 'text') addText(t, j.str(b.text));
        else if (b.type === 'thinking') {
          if (this.opts.full) addThinking(t, j.str(b.thinking));
        } else if (b.type === 'toolCall') {
          t.tools.push({
            id: strOrNull(b.id),
            name: strOrNull(b.name) ?? '?',
            arguments: this.opts.full ? argText(j, b.arguments) : '',
            output: '',
            is_error: false,
          });
        }
      }
      if (isObj(m.usage)) {
        const u = m.usage;
        t.tokens = { input: num(u.input), output: num(u.output), cache_creation: num(u.cacheWrite), cache_read: num(u.cacheRead) };
      }
      this.reply = t;
    } else if (role === 'toolResult' || role === 'bashExecution') {
      const t = this.turn(l, 'tool', 'output', ts);
      t.branch = branch;
      const cmd = role === 'bashExecution';
      t.tools.push({
        id: strOrNull(m.toolCallId),
        name: cmd ? 'bash' : (strOrNull(m.toolName) ?? '?'),
        arguments: cmd && this.opts.full ? j.str(m.command) : '',
        output: this.opts.full ? (cmd ? j.str(m.output) : contentText(j, m.content)) : '',
        is_error: m.isError === true || (cmd && num(m.exitCode) !== 0),
      });
      this.emit(t);
    } else if (role === 'branchSummary' || role === 'compactionSummary') {
      const t = this.turn(l, 'system', 'summary', ts);
      t.branch = branch;
      addText(t, j.str(m.summary));
      this.emit(t);
    } else {
      // custom / hookMessage and roles a newer Pi may add: in the model's context, not said by anyone.
      const t = this.turn(l, 'system', 'instructions', ts);
      t.branch = branch;
      addText(t, this.opts.full ? contentText(j, m.content) : '');
      this.emit(t);
    }
  }

  private userText(j: JsonLine, c: unknown): string {
    if (typeof c === 'string') return j.str(c);
    return arr(c)
      .map((b) => (isObj(b) && b.type === 'text' ? j.str(b.text) : ''))
      .filter((s) => s.trim())
      .join('\n\n');
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }

  protected onFinish(): void {
    this.closeReply();
  }
}

export const piDialect: Dialect = {
  reads: (rel) => rel.endsWith('.jsonl'),
  open: (opts, emit, resume) => new PiParser(opts, emit, resume),
};
