// Auggie sessions -> turns. A session is one JSON document (~/.augment/sessions/<id>.json) that
// Auggie rewrites whole; each version is a generation of its own, and a turn cites the whole
// document (lines 1..N), as Amp's threads and Gemini's legacy .json do. The fields read (the ones
// the public readers in README.md read):
//
//   { "sessionId", "title", "created", "modified", "workspaceId", "chatHistory": [ { "exchange": {
//     "request_message", "response_text", "request_nodes": [ { "type": 4, "ide_state_node": {
//     "workspace_folders": [ { "folder_root", "repository_root" } ] } } ] }, "completed",
//     "finishedAt" } ] }
//
// An exchange is a prompt (request_message) and a reply (response_text), both at finishedAt (the
// only time an exchange carries). A request with no message (a tool result sent back) is no prompt.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser, addText } from '../kit/parser';
import { arr, isObj, lineText, strOrNull, tsOf, type Obj } from '../kit/jsonl';

/** The workspace folder of the first exchange that names one (its IDE state node). */
function workspaceOf(history: unknown[]): string | null {
  for (const h of history) {
    const ex = isObj(h) && isObj(h.exchange) ? h.exchange : null;
    for (const n of arr(ex?.request_nodes)) {
      const ide = isObj(n) && isObj(n.ide_state_node) ? n.ide_state_node : null;
      for (const f of arr(ide?.workspace_folders)) {
        if (!isObj(f)) continue;
        const root = strOrNull(f.repository_root) ?? strOrNull(f.folder_root);
        if (root) return root;
      }
    }
  }
  return null;
}

class AuggieParser extends BaseParser<Record<string, never>> {
  private doc: string[] = [];
  private span: Span | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected onLine(l: RawLine): void {
    this.hold(); // a document: nothing is final before it ends
    this.doc.push(lineText(l));
    if (!this.span) this.span = { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to };
    else {
      this.span.line_to = l.no;
      this.span.byte_to = l.to;
    }
  }

  protected onFinish(): void {
    if (!this.span) return;
    let o: unknown;
    try {
      o = JSON.parse(this.doc.join('\n'));
    } catch {
      o = null;
    }
    if (!isObj(o)) {
      this.counts.bad++;
      return;
    }
    this.session(o, this.span);
    this.release();
  }

  private session(o: Obj, span: Span): void {
    this.facts.native_session ??= strOrNull(o.sessionId);
    if (typeof o.title === 'string' && o.title.trim()) this.facts.title_hint = o.title.trim();
    const history = arr(o.chatHistory);
    this.facts.cwd ??= workspaceOf(history);
    this.seen(tsOf(o.created));
    this.seen(tsOf(o.modified));
    const at = { no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine;
    for (const h of history) {
      if (!isObj(h) || !isObj(h.exchange)) continue;
      const ex = h.exchange;
      const ts = tsOf(h.finishedAt);
      this.seen(ts);
      if (typeof ex.request_message === 'string' && ex.request_message.trim()) {
        const u = this.turn(at, 'user', 'prompt', ts);
        addText(u, ex.request_message);
        u.span = { ...span };
        this.emit(u);
      }
      if (typeof ex.response_text === 'string' && ex.response_text.trim()) {
        const t = this.turn(at, 'assistant', 'reply', ts);
        addText(t, ex.response_text);
        t.span = { ...span };
        this.emit(t);
      }
    }
  }
}

export const auggieDialect: Dialect = {
  reads: (rel) => /\.json$/.test(rel),
  sharedSpans: () => true,
  open: (opts, emit, resume) => new AuggieParser(opts, emit, resume),
};
