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
import type { Checkpoint, Dialect, ParseOptions, Turn } from '../../turns';
import { addText } from '../kit/parser';
import { DocumentParser } from '../kit/document';
import { arr, isObj, strOrNull, tsOf, type Obj } from '../kit/jsonl';

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

class AuggieParser extends DocumentParser<Record<string, never>> {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(o: unknown): void {
    if (!isObj(o)) this.counts.bad++;
    else this.session(o);
  }

  private session(o: Obj): void {
    this.facts.native_session ??= strOrNull(o.sessionId);
    if (typeof o.title === 'string' && o.title.trim()) this.facts.title_hint = o.title.trim();
    const history = arr(o.chatHistory);
    this.facts.cwd ??= workspaceOf(history);
    this.seen(tsOf(o.created));
    this.seen(tsOf(o.modified));
    for (const h of history) {
      if (!isObj(h) || !isObj(h.exchange)) continue;
      const ex = h.exchange;
      const ts = tsOf(h.finishedAt);
      this.seen(ts);
      if (typeof ex.request_message === 'string' && ex.request_message.trim()) {
        const u = this.docTurn('user', 'prompt', ts);
        addText(u, ex.request_message);
        this.emit(u);
      }
      if (typeof ex.response_text === 'string' && ex.response_text.trim()) {
        const t = this.docTurn('assistant', 'reply', ts);
        addText(t, ex.response_text);
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
