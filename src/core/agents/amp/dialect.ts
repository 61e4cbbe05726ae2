// Amp threads -> turns. A thread is one JSON document (threads/T-<uuid>.json) that Amp rewrites
// whole on every change; each version is a generation of its own, and a turn cites the whole
// document (lines 1..N), as Gemini's legacy .json does. The document:
//
//   { "v", "id": "T-…", "created": <ms>, "title", "env": { "initial": { "trees": [{ "uri":
//     "file:///…" }] } }, "messages": [ … ], "usageLedger": { "events": [ … ] } }
//
// A message: { "role": "user" | "assistant" | "info", "messageId", "content": [blocks],
// "meta": { "sentAt": <ms> }, "state": { "type", "stopReason" }, "usage": { "model",
// "inputTokens", "outputTokens", "cacheCreationInputTokens", "cacheReadInputTokens" } }. Blocks are
// Anthropic-like: text, thinking, tool_use { id, name, input } in a reply; in a user message text
// (the prompt) and tool_result { toolUseID, run: { status, result | progress } }, the outcome of a
// call the reply before made. An info message with a summary block is a summary. A user message
// holding only tool results is no prompt: its results go to the calls they answer.
import type { Checkpoint, Dialect, ParseOptions, ToolUse, Turn } from '../../turns';
import { addText, addThinking } from '../kit/parser';
import { DocumentParser } from '../kit/document';
import { arr, isObj, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';

/** A tool result's text: its run's result (text or blocks) or its progress. */
function resultText(run: Obj): string {
  const r = run.result ?? run.progress;
  if (typeof r === 'string') return r;
  if (Array.isArray(r)) return r.map((x) => (typeof x === 'string' ? x : isObj(x) && typeof x.text === 'string' ? x.text : JSON.stringify(x))).join('\n');
  if (isObj(r)) return typeof r.output === 'string' ? r.output : JSON.stringify(r);
  return '';
}

/** A folder from a workspace tree's uri (file:///home/a/b -> /home/a/b). */
function treePath(uri: unknown): string | null {
  if (typeof uri !== 'string') return isObj(uri) ? strOrNull(uri.fsPath) ?? strOrNull(uri.path) : null;
  if (!uri.startsWith('file://')) return uri || null;
  try {
    return decodeURIComponent(uri.slice('file://'.length).replace(/^localhost\//, '/'));
  } catch {
    return null;
  }
}

class AmpParser extends DocumentParser<Record<string, never>> {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(o: unknown): void {
    // Not a thread: still on the floor and found by the scan tier.
    if (!isObj(o)) this.counts.bad++;
    else this.thread(o);
  }

  private thread(o: Obj): void {
    this.facts.native_session ??= strOrNull(o.id);
    if (typeof o.title === 'string' && o.title.trim()) this.facts.title_hint = o.title.trim();
    const init = isObj(o.env) && isObj(o.env.initial) ? o.env.initial : {};
    this.facts.cwd ??= strOrNull(init.cwd) ?? arr(init.trees).map((t) => (isObj(t) ? treePath(t.uri) : null)).find((p) => p) ?? null;
    const created = tsOf(o.created);
    this.seen(created);
    const calls = new Map<string, ToolUse>();
    for (const m of arr(o.messages)) {
      if (!isObj(m)) continue;
      const ts = tsOf(isObj(m.meta) ? m.meta.sentAt : undefined);
      this.seen(ts);
      const blocks = arr(m.content).filter(isObj);
      if (m.role === 'user') {
        for (const b of blocks) {
          if (b.type !== 'tool_result') continue;
          const use = calls.get(String(b.toolUseID ?? b.tool_use_id ?? ''));
          const run = isObj(b.run) ? b.run : {};
          if (!use) continue;
          use.is_error = run.status === 'error' || run.status === 'cancelled' || run.status === 'rejected-by-user';
          if (this.opts.full) use.output = resultText(run);
        }
        const text = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
        if (text.length === 0) continue;
        const t = this.docTurn('user', 'prompt', ts);
        for (const s of text) addText(t, s);
        this.put(t);
      } else if (m.role === 'assistant') {
        const t = this.docTurn('assistant', 'reply', ts);
        for (const b of blocks) {
          if (b.type === 'text' && typeof b.text === 'string') addText(t, b.text);
          else if (b.type === 'thinking' && this.opts.full && typeof b.thinking === 'string') addThinking(t, b.thinking);
          else if (b.type === 'tool_use') {
            const use: ToolUse = {
              id: strOrNull(b.id),
              name: strOrNull(b.name) ?? '?',
              arguments: this.opts.full && b.input !== undefined ? JSON.stringify(b.input) : '',
              output: '',
              is_error: false,
            };
            t.tools.push(use);
            if (use.id) calls.set(use.id, use);
          }
        }
        const u = isObj(m.usage) ? m.usage : null;
        if (u) {
          t.model = strOrNull(u.model);
          t.tokens = { input: num(u.inputTokens), output: num(u.outputTokens), cache_creation: num(u.cacheCreationInputTokens), cache_read: num(u.cacheReadInputTokens) };
        }
        this.put(t);
      } else {
        // info: a summary of what came before, or a note Amp added.
        const sum = blocks.map((b) => (b.type === 'summary' && isObj(b.summary) ? b.summary.summary : b.type === 'text' ? b.text : null)).filter((x): x is string => typeof x === 'string');
        if (sum.length === 0) continue;
        const t = this.docTurn('system', blocks.some((b) => b.type === 'summary') ? 'summary' : 'notice', ts);
        for (const s of sum) addText(t, s);
        this.put(t);
      }
    }
  }

  /** Every turn cites the whole document; they are emitted once the calls' results are in. */
  private pending: Turn[] = [];

  private put(t: Turn): void {
    this.pending.push(t);
  }

  override finish(): void {
    super.finish();
    for (const t of this.pending) this.emit(t);
    this.pending = [];
  }
}

export const ampDialect: Dialect = {
  reads: (rel) => /\.json$/.test(rel),
  sharedSpans: () => true,
  open: (opts, emit, resume) => new AmpParser(opts, emit, resume),
};
