// Kiro's agent sessions -> turns. Two JSON documents, each rewritten whole (a generation per quiet
// version; a turn cites the whole document, lines 1..N):
//
// <32 hex>/<id>.chat: { "executionId", "chat": [ { "role": "human" | "bot" | "tool", "content":
//   "…" } ], "metadata": { "modelId", "workflowId", "startTime", "endTime" } } (older files name
//   the list "history", entries { "message": { "role", "content" } }). A human entry carries Kiro's
//   steering rules and environment before and after what the person typed: the text after the last
//   </user-rule> or </steering-reminder> and before <EnvironmentContext> is the prompt; an entry
//   with nothing else (or the <identity> system prompt) is instructions.
// workspace-sessions/<workspace>/<id>.json: { "title", "sessionType", "selectedModel", "history":
//   [ { "message": { "role": "user" | "assistant", "content": "…" | [ { "type": "text", "text" } ] },
//   "promptLogs": { "completion" } } ] }: an assistant message that only says "On it." (or nothing)
//   has its words in promptLogs.completion.
import type { Checkpoint, Dialect, ParseOptions, Turn } from '../../turns';
import { addText } from '../kit/parser';
import { DocumentParser } from '../kit/document';
import { arr, isObj, strOrNull, tsOf, type Obj } from '../kit/jsonl';
import { kiroWorkspace } from './paths';

function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((b) => (isObj(b) && (b.type === 'text' || b.type === undefined) && typeof b.text === 'string' ? b.text : ''))
    .filter((s) => s.trim())
    .join('\n');
}

/** What the person typed, out of a human entry that wraps it in Kiro's rules and context; '' when
 * the entry is only those. */
export function kiroUserText(raw: string): string {
  let t = raw.trim();
  if (t.startsWith('<identity>')) return '';
  for (const end of ['</user-rule>', '</steering-reminder>']) {
    const i = t.lastIndexOf(end);
    if (i >= 0) t = t.slice(i + end.length).replace(/^[`\r\n]+/, '').trim();
  }
  if (t.startsWith('## Included Rules') || t.startsWith('<steering-reminder>')) return '';
  const env = t.indexOf('<EnvironmentContext>');
  if (env >= 0) t = t.slice(0, env).trim();
  if (t.startsWith('Follow these instructions') && t.length > 5000) return '';
  return t;
}

class KiroParser extends DocumentParser<Record<string, never>> {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(o: unknown): void {
    if (!isObj(o)) this.counts.bad++;
    else this.session(o);
  }

  private session(o: Obj): void {
    const meta = isObj(o.metadata) ? o.metadata : {};
    this.facts.native_session ??= strOrNull(o.executionId) ?? strOrNull(meta.workflowId);
    if (typeof o.title === 'string' && o.title.trim()) this.facts.title_hint = o.title.trim();
    this.facts.cwd ??= kiroWorkspace(this.opts.rel);
    this.seen(tsOf(meta.startTime));
    this.seen(tsOf(meta.endTime));
    const model = strOrNull(meta.modelId) ?? strOrNull(o.selectedModel) ?? strOrNull(o.defaultModelTitle);
    for (const e of arr(o.chat ?? o.history)) {
      if (!isObj(e)) continue;
      const m = isObj(e.message) ? e.message : e;
      const role = m.role;
      const raw = textOf(m.content);
      let t: Turn;
      if (role === 'human' || role === 'user') {
        const said = kiroUserText(raw);
        t = this.docTurn(said ? 'user' : 'system', said ? 'prompt' : 'instructions', null);
        addText(t, said || raw);
      } else if (role === 'bot' || role === 'assistant') {
        t = this.docTurn('assistant', 'reply', null);
        const logs = isObj(e.promptLogs) ? e.promptLogs : {};
        const words = (!raw.trim() || raw.trim() === 'On it.') && typeof logs.completion === 'string' && logs.completion.trim() ? logs.completion : raw;
        addText(t, words);
        t.model = model;
      } else if (role === 'tool') {
        t = this.docTurn('tool', 'output', null);
        addText(t, raw);
      } else continue;
      this.emit(t);
    }
  }
}

export const kiroDialect: Dialect = {
  reads: (rel) => /\.chat$/.test(rel) || /^workspace-sessions\/.+\.json$/.test(rel),
  sharedSpans: () => true,
  open: (opts, emit, resume) => new KiroParser(opts, emit, resume),
};
