// Continue's session file -> turns: {sessionId, title, workspaceDirectory, history: [...]}. Each
// history item holds one chat message: a user message is a prompt; an assistant message is a
// reply, with its toolCalls (their outputs are in the item's toolCallStates, or in a later
// role:"tool" message) and its usage ({prompt_tokens, completion_tokens, model,
// prompt_tokens_details.cache_read_tokens / cache_write_tokens}; prompt_tokens counts the cached
// part too, so input here is what is left of it). The file records no times.
import type { Checkpoint, Dialect, ParseOptions, ToolUse, Turn } from '../../turns';
import { addText, addThinking } from '../kit/parser';
import { arr, isObj, num, strOrNull, type Obj } from '../kit/jsonl';
import { DocumentParser, asText } from '../kit/document';

/** A message's content: a string, or parts of which the text ones are read. */
export function continueText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .filter(isObj)
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n\n');
}

/** A Continue usage record in the four counts every agent's tokens are kept in. */
export function continueTokens(u: Obj): NonNullable<Turn['tokens']> {
  const d = isObj(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const read = num(d.cache_read_tokens);
  const write = num(d.cache_write_tokens);
  return { input: Math.max(0, num(u.prompt_tokens) - read - write), output: num(u.completion_tokens), cache_creation: write, cache_read: read };
}

class ContinueParser extends DocumentParser {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(doc: unknown): void {
    if (!isObj(doc) || !Array.isArray(doc.history)) {
      this.counts.bad++;
      return;
    }
    this.facts.native_session = strOrNull(doc.sessionId);
    this.facts.cwd = strOrNull(doc.workspaceDirectory);
    // "Untitled Session" is the placeholder until a title is made.
    if (typeof doc.title === 'string' && doc.title.trim() && doc.title !== 'Untitled Session') this.facts.title_hint = doc.title.trim();
    const out: Turn[] = [];
    const uses = new Map<string, ToolUse>();
    const thinking: string[] = [];
    for (const item of doc.history) {
      if (!isObj(item) || !isObj(item.message)) continue;
      const m = item.message;
      if (m.role === 'user') {
        const u = this.docTurn('user', 'prompt', null);
        addText(u, continueText(m.content));
        if (u.text) out.push(u);
      } else if (m.role === 'thinking') {
        // A thinking message is part of the reply that follows it.
        thinking.push(continueText(m.content));
      } else if (m.role === 'assistant') {
        const t = this.docTurn('assistant', 'reply', null);
        if (isObj(item.reasoning)) thinking.push(asText(item.reasoning.text));
        if (this.opts.full) for (const x of thinking) addThinking(t, x);
        thinking.length = 0;
        addText(t, continueText(m.content));
        const states = arr(item.toolCallStates).filter(isObj);
        for (const c of arr(m.toolCalls).filter(isObj)) {
          const fn = isObj(c.function) ? c.function : {};
          const id = strOrNull(c.id);
          const st = states.find((s) => s.toolCallId === id);
          const use: ToolUse = {
            id,
            name: strOrNull(fn.name) ?? '?',
            arguments: this.opts.full ? asText(fn.arguments) : '',
            output: this.opts.full && st ? arr(st.output).filter(isObj).map((o) => asText(o.content)).join('\n') : '',
            is_error: st?.status === 'errored',
          };
          t.tools.push(use);
          if (id) uses.set(id, use);
        }
        const u = isObj(m.usage) ? m.usage : null;
        if (u) {
          t.tokens = continueTokens(u);
          t.model = strOrNull(u.model);
        }
        out.push(t);
      } else if (m.role === 'tool' && typeof m.toolCallId === 'string') {
        const use = uses.get(m.toolCallId);
        if (use && this.opts.full && !use.output) use.output = continueText(m.content);
      }
    }
    for (const t of out) this.emit(t);
  }
}

export const continueDialect: Dialect = {
  reads: (rel) => rel.endsWith('.json'),
  open: (opts, emit, resume) => new ContinueParser(opts, emit, resume),
  sharedSpans: () => true,
};
