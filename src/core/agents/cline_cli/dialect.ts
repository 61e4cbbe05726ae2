// Cline CLI (the Cline SDK's session files) -> turns.
//
// <id>.messages.json: {version, sessionId, messages: [...]} (older: the list alone), Anthropic-shaped
//   messages with ts, modelInfo {id, provider} and, on replies, metrics {inputTokens, outputTokens,
//   cacheReadTokens, cacheWriteTokens}. A user message's text is a prompt (its <user_input> wrapper
//   taken off); its tool_result blocks are the outputs of the reply before it. Each assistant
//   message is a reply. A file named for another agent than the folder (a sub-agent's or
//   teammate's) is a side conversation of the session.
// <id>.json: the manifest; no turns, but the session's cwd, title and times.
import type { Checkpoint, Dialect, ParseOptions, Turn } from '../../turns';
import { addText, addThinking } from '../kit/parser';
import { arr, isObj, num, strOrNull, tsOf, type Obj } from '../kit/jsonl';
import { DocumentParser, asText, withoutGeneration } from '../kit/document';
import { isManifest } from './paths';

const WRAP = /^\s*<user_input[^>]*>([\s\S]*?)<\/user_input>\s*$/;

function blocks(content: unknown): Obj[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arr(content).filter(isObj);
}

class ClineCliParser extends DocumentParser {
  private readonly side: boolean;
  private readonly manifest: boolean;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
    const rel = withoutGeneration(opts.rel);
    const parts = rel.split('/');
    const folder = parts[parts.length - 2] ?? '';
    this.manifest = isManifest(rel);
    this.side = !this.manifest && (parts[parts.length - 1] ?? '') !== `${folder}.messages.json`;
  }

  protected document(doc: unknown): void {
    if (this.manifest) return this.readManifest(doc);
    const list = Array.isArray(doc) ? doc : isObj(doc) ? arr(doc.messages) : null;
    if (!list) {
      this.counts.bad++;
      return;
    }
    if (isObj(doc)) this.facts.native_session ??= strOrNull(doc.sessionId);
    // Not facts.subagent: the facts of any file of the folder may become the session's, and the
    // session is the main conversation's; its sub-agents' turns are marked sidechain instead.
    const out: Turn[] = [];
    let reply: Turn | null = null;
    for (const m of list) {
      if (!isObj(m)) continue;
      const ts = tsOf(m.ts);
      this.seen(ts);
      if (m.role === 'user') {
        let said = '';
        for (const b of blocks(m.content)) {
          if (b.type === 'text' && typeof b.text === 'string') said += (said ? '\n\n' : '') + (WRAP.exec(b.text)?.[1] ?? b.text);
          else if (b.type === 'tool_result' && reply) {
            const use = reply.tools.find((u) => u.id === b.tool_use_id);
            if (use) {
              use.is_error = b.is_error === true;
              if (this.opts.full) use.output = asText(b.content);
              if (ts) reply.ts_last = ts;
            }
          }
        }
        if (said.trim()) {
          const u = this.docTurn('user', 'prompt', ts);
          u.sidechain = this.side;
          addText(u, said);
          out.push(u);
          reply = null;
        }
      } else if (m.role === 'assistant') {
        const t = this.docTurn('assistant', 'reply', ts);
        t.sidechain = this.side;
        const info = isObj(m.modelInfo) ? m.modelInfo : {};
        t.model = strOrNull(info.id);
        for (const b of blocks(m.content)) {
          if (b.type === 'text' && typeof b.text === 'string') addText(t, b.text);
          else if ((b.type === 'thinking' || b.type === 'reasoning') && this.opts.full) addThinking(t, asText(b.thinking ?? b.text));
          else if (b.type === 'tool_use') {
            t.tools.push({ id: strOrNull(b.id), name: strOrNull(b.name) ?? '?', arguments: this.opts.full ? asText(b.input) : '', output: '', is_error: false });
          }
        }
        const u = isObj(m.metrics) ? m.metrics : null;
        if (u) t.tokens = { input: num(u.inputTokens), output: num(u.outputTokens), cache_creation: num(u.cacheWriteTokens), cache_read: num(u.cacheReadTokens) };
        out.push(t);
        reply = t;
      }
    }
    for (const t of out) this.emit(t);
  }

  private readManifest(doc: unknown): void {
    if (!isObj(doc)) {
      this.counts.bad++;
      return;
    }
    this.facts.native_session = strOrNull(doc.session_id);
    this.facts.cwd = strOrNull(doc.cwd) ?? strOrNull(doc.workspace_root);
    const meta = isObj(doc.metadata) ? doc.metadata : {};
    this.facts.title_hint = strOrNull(meta.title);
    this.seen(tsOf(doc.started_at));
    this.seen(tsOf(doc.ended_at));
  }
}

export const clineCliDialect: Dialect = {
  reads: (rel) => rel.endsWith('.json'),
  open: (opts, emit, resume) => new ClineCliParser(opts, emit, resume),
  sharedSpans: () => true,
};
