// Kiro CLI's session files (~/.kiro/sessions/cli, newer builds) -> turns.
//
// <id>.jsonl, one record a line, appended: {"version":"v1","kind":"Prompt" | "AssistantMessage" |
// "ToolResults" | "Clear", "data":{"message_id", "content":[...], "meta":{"timestamp": seconds}}}.
// Content blocks: {"kind":"text","data":s}, {"kind":"thinking","data":{"text"}}, {"kind":"image",...},
// {"kind":"toolUse","data":{"toolUseId","name","input"}}, {"kind":"toolResult","data":{"toolUseId",
// "content":[{"kind":"text"|"json","data":...}],"status":"success"|"error"}}. A Prompt is a prompt;
// each AssistantMessage is one model response (a reply), and the ToolResults after it are the
// output of its tool calls; Clear (/clear) is a notice.
// <id>.json, the session's metadata written again whole (session_id, cwd, created_at,
// updated_at, session_state {rts_model_state: {model_info: {model_id}}, ...}): the working
// directory and model, no turns.
import type { Checkpoint, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { arr, isObj, type JsonLine, type Obj } from '../kit/jsonl';
import { isoOf } from '../kit/rowentries';

interface St {
  model: string | null;
}

function blocks(data: unknown): Obj[] {
  return isObj(data) ? arr(data.content).filter(isObj) : [];
}

function resultText(content: unknown): string {
  return arr(content)
    .filter(isObj)
    .map((b) => (typeof b.data === 'string' ? b.data : b.data !== undefined ? JSON.stringify(b.data) : ''))
    .filter(Boolean)
    .join('\n');
}

export class KiroLogParser extends BaseParser<St> {
  private reply: Turn | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { model: null }, resume);
    if (!resume) this.facts.native_session = (opts.rel.split('/').pop() ?? '').replace(/(\.g\d+)?\.jsonl$/, '') || null;
  }

  protected onLine(l: RawLine): void {
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o) || typeof o.kind !== 'string') return this.badLine(l);
    const data = isObj(o.data) ? o.data : null;
    const meta = data && isObj(data.meta) ? data.meta : null;
    const ts = meta ? isoOf(meta.timestamp) : null;
    this.seen(ts);
    if (o.kind === 'Prompt') {
      this.close();
      const t = this.turn(l, 'user', 'prompt', ts);
      addText(t, this.texts(j, data));
      this.emit(t);
    } else if (o.kind === 'AssistantMessage') {
      this.close();
      this.hold();
      const t = this.turn(l, 'assistant', 'reply', ts);
      t.model = this.st.model;
      addText(t, this.texts(j, data));
      for (const b of blocks(data)) {
        if (b.kind === 'thinking' && this.opts.full) {
          const th = isObj(b.data) ? b.data.text : b.data;
          if (typeof th === 'string') addThinking(t, j.str(th));
        } else if (b.kind === 'toolUse' && isObj(b.data)) {
          const u = b.data;
          t.tools.push({
            id: typeof u.toolUseId === 'string' ? u.toolUseId : null,
            name: typeof u.name === 'string' ? u.name : '?',
            arguments: this.opts.full && u.input !== undefined ? JSON.stringify(u.input) : '',
            output: '',
            is_error: false,
          });
        }
      }
      this.reply = t;
    } else if (o.kind === 'ToolResults') {
      for (const b of blocks(data)) {
        if (b.kind !== 'toolResult' || !isObj(b.data)) continue;
        const r = b.data;
        const use = this.reply?.tools.find((u) => u.id === r.toolUseId);
        const err = typeof r.status === 'string' && r.status.toLowerCase() === 'error';
        if (use && this.reply) {
          if (this.opts.full) use.output = resultText(r.content);
          use.is_error = err;
        } else {
          const t = this.turn(l, 'tool', 'output', ts);
          t.tools.push({ id: typeof r.toolUseId === 'string' ? r.toolUseId : null, name: '?', arguments: '', output: this.opts.full ? resultText(r.content) : '', is_error: err });
          this.emit(t);
        }
      }
      if (this.reply) this.extend(this.reply, l, ts);
    } else if (o.kind === 'Clear') {
      this.close();
      const t = this.turn(l, 'system', 'notice', ts);
      t.text = '[clear]';
      this.emit(t);
    } else {
      this.badLine(l);
    }
  }

  private texts(j: JsonLine, data: Obj | null): string {
    return blocks(data)
      .filter((b) => b.kind === 'text' && typeof b.data === 'string')
      .map((b) => j.str(b.data))
      .join('\n\n');
  }

  private close(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }

  protected onFinish(): void {
    this.close();
    this.release();
  }
}

/** <id>.json: the session's working directory, model and id as facts; no turns. */
export class KiroMetaParser extends BaseParser<Record<string, never>> {
  private text: string[] = [];
  private first: RawLine | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected onLine(l: RawLine): void {
    this.hold();
    this.first ??= l;
    this.text.push(l.buf.toString('utf8', l.s, l.e));
  }

  protected onFinish(): void {
    let o: unknown;
    try {
      o = JSON.parse(this.text.join('\n'));
    } catch {
      if (this.first) this.badLine(this.first);
      return;
    }
    if (!isObj(o)) return;
    if (typeof o.session_id === 'string') this.facts.native_session = o.session_id;
    if (typeof o.cwd === 'string') this.facts.cwd = o.cwd;
    if (typeof o.title === 'string') this.facts.title_hint = o.title;
    this.seen(isoOf(o.created_at));
    this.seen(isoOf(o.updated_at));
  }
}
