// cursor-agent transcripts -> turns.
//
// JSONL: one line per message with no ids, timestamps or model; consecutive assistant lines are one
// model turn written step by step, so a reply runs until the next typed prompt, and tool results
// join it in call order (they carry no id that matches). The typed text is wrapped in
// <user_query>; "[REDACTED]" blocks stand for hidden text and hold nothing to search.
// .txt (older builds): `user:` / `assistant:` lines open turns; `[Thinking]`, `[Tool call] Name` with
// `  key: value` argument lines, and `[Tool result] Name` mark the rest.
// A transcript holds no clock: the session is dated by its chat's store.db `meta` row (recorded as
// <chat id>.rows.jsonl, see paths.ts), whose createdAt is cursor-agent's own.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { argText, arr, contentText, isObj, lineText, minTs, strOrNull, type JsonLine } from '../kit/jsonl';
import { isRowsFile } from '../kit/sqlite';
import { isoOf, rowsDialect, textOf, type RowsReader } from '../kit/rowentries';

interface St {
  txt: boolean;
}

const QUERY = /^\s*<user_query>\s*([\s\S]*?)\s*<\/user_query>\s*$/;

function promptText(s: string): string {
  const m = QUERY.exec(s);
  return m ? m[1] : s;
}

class CursorParser extends BaseParser<St> {
  private reply: Turn | null = null;
  /** .txt: the turn being written and what its next plain lines belong to. */
  private txtTurn: Turn | null = null;
  private txtMode: 'text' | 'thinking' | 'args' | 'result' = 'text';
  private txtBuf: string[] = [];

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { txt: opts.rel.endsWith('.txt') }, resume);
    if (!resume) {
      this.facts.native_session = (opts.rel.split('/').pop() ?? '').replace(/\.(jsonl|txt)$/, '') || null;
      if (/\/subagents\//.test(opts.rel)) {
        this.facts.subagent = true;
        const parts = opts.rel.split('/');
        this.facts.parent_session = parts[parts.indexOf('subagents') - 1] ?? null;
      }
    }
  }

  protected onLine(l: RawLine): void {
    if (this.st.txt) return this.txtLine(l);
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o)) {
      this.badLine(l);
      return;
    }
    const role = o.role ?? o.type;
    const content = isObj(o.message) ? o.message.content : o.content;
    const blocks = arr(content).filter(isObj);
    if (role === 'user') {
      const results = blocks.filter((b) => b.type === 'tool_result');
      if (results.length > 0 && this.reply) {
        for (const r of results) {
          const use = this.reply.tools.find((u) => !u.output) ?? this.reply.tools[this.reply.tools.length - 1];
          if (use && this.opts.full) use.output = contentText(j, r.content);
          if (use) use.is_error = r.is_error === true;
        }
        this.extend(this.reply, l, null);
        return;
      }
      this.closeReply();
      if (results.length > 0) {
        const t = this.turn(l, 'tool', 'output', null);
        for (const r of results) {
          t.tools.push({ id: null, name: '?', arguments: '', output: this.opts.full ? contentText(j, r.content) : '', is_error: r.is_error === true });
        }
        this.emit(t);
        return;
      }
      const text =
        typeof content === 'string'
          ? j.str(content)
          : blocks
              .filter((b) => b.type === 'text')
              .map((b) => j.str(b.text))
              .join('\n\n');
      const t = this.turn(l, 'user', 'prompt', null);
      addText(t, promptText(text));
      this.emit(t);
      return;
    }
    if (role === 'assistant') {
      const t = this.replyFor(l);
      if (typeof content === 'string') addText(t, this.visible(j.str(content)));
      for (const b of blocks) this.block(j, t, b);
    }
  }

  private visible(s: string): string {
    return s.trim() === '[REDACTED]' ? '' : s;
  }

  private block(j: JsonLine, t: Turn, b: Record<string, unknown>): void {
    if (b.type === 'text') addText(t, this.visible(j.str(b.text)));
    else if (b.type === 'thinking') {
      if (this.opts.full) addThinking(t, this.visible(j.str(b.thinking)));
    } else if (b.type === 'tool_use') {
      t.tools.push({
        id: strOrNull(b.id),
        name: strOrNull(b.name) ?? '?',
        arguments: this.opts.full ? argText(j, b.input) : '',
        output: '',
        is_error: false,
      });
    }
  }

  private replyFor(l: RawLine): Turn {
    if (this.reply) {
      this.extend(this.reply, l, null);
      return this.reply;
    }
    this.hold();
    this.reply = this.turn(l, 'assistant', 'reply', null);
    return this.reply;
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }

  // ---- .txt transcripts ----

  private txtLine(l: RawLine): void {
    const s = lineText(l);
    const head = /^(user|assistant):\s*$/.exec(s);
    if (head) {
      this.txtFlush();
      if (this.txtTurn && this.txtTurn.role === 'user') this.emit(this.txtTurn);
      this.txtTurn = null;
      if (head[1] === 'user') {
        this.closeReply();
        this.hold();
        this.txtTurn = this.turn(l, 'user', 'prompt', null);
      } else {
        this.txtTurn = this.replyFor(l);
      }
      this.txtMode = 'text';
      return;
    }
    const t = this.txtTurn;
    if (!t) {
      this.badLine(l);
      return;
    }
    this.extend(t, l, null);
    const m = /^\[(Thinking|Tool call|Tool result)\]\s*(.*)$/.exec(s);
    if (m) {
      this.txtFlush();
      if (m[1] === 'Thinking') {
        this.txtMode = 'thinking';
        this.txtBuf.push(m[2]);
      } else if (m[1] === 'Tool call') {
        t.tools.push({ id: null, name: m[2].trim() || '?', arguments: '', output: '', is_error: false });
        this.txtMode = 'args';
      } else {
        this.txtMode = 'result';
      }
      return;
    }
    this.txtBuf.push(s);
  }

  private txtFlush(): void {
    const t = this.txtTurn;
    const body = this.txtBuf.join('\n');
    this.txtBuf = [];
    if (!t) return;
    if (this.txtMode === 'text') addText(t, t.role === 'user' ? promptText(body) : body);
    else if (this.txtMode === 'thinking') {
      if (this.opts.full) addThinking(t, body);
    } else {
      const use = t.tools[t.tools.length - 1];
      if (use && this.opts.full) {
        if (this.txtMode === 'args') use.arguments = body.trim();
        else use.output = body.trim();
      }
    }
    this.txtMode = 'text';
  }

  protected onFinish(): void {
    this.txtFlush();
    if (this.txtTurn && this.txtTurn.role === 'user') {
      this.emit(this.txtTurn);
      this.txtTurn = null;
    }
    this.closeReply();
    this.release();
  }
}

/** The chat's metadata from a `meta` row's value: JSON written as hex (plain JSON is taken too). */
export function chatMeta(value: number | string | Buffer | null | undefined): Record<string, unknown> | null {
  const text = textOf(value)?.trim() ?? '';
  const json = /^([0-9a-f]{2})+$/i.test(text) ? Buffer.from(text, 'hex').toString('utf8') : text;
  try {
    const o: unknown = JSON.parse(json);
    return isObj(o) ? o : null;
  } catch {
    return null;
  }
}

/** store.db's meta rows: no turns, only the chat's start (createdAt, ms). */
const metaReader: RowsReader = {
  label: 'cursor-agent',
  entries(rows, _o, facts) {
    for (const { row, v } of rows) {
      const m = row.table === 'meta' ? chatMeta(v.cols.value) : null;
      if (!m) continue;
      facts.started = minTs(facts.started, isoOf(m.createdAt));
    }
    return [];
  },
};
const metaDialect = rowsDialect(metaReader);

export const cursorDialect: Dialect = {
  reads: (rel) => /\.(jsonl|txt)$/.test(rel),
  open: (opts, emit, resume) => (isRowsFile(opts.rel) ? metaDialect.open(opts, emit) : new CursorParser(opts, emit, resume)),
};
