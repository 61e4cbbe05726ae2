// Factory Droid -> turns, from sessions/<project>/<id>.jsonl: one record a line.
//   session_start {id, title, cwd, isSessionTitleManuallySet}: the session's name and folder.
//   message {id, parentId, timestamp, message: {role, content: blocks}}: Anthropic-shaped blocks.
//     A user message of text is a prompt, except the context Droid injects before it (its id
//     starts with "context-": tool lists, reminders), which is the harness speaking; a user
//     message of tool_result blocks answers the calls of the reply before it (the reply's span
//     grows over it). An assistant message is one model reply (text, thinking, tool_use, modelId).
//   agent_turn_outcome and records a newer build may add: bookkeeping, no turn.
// The token totals are not in this file but in <id>.settings.json beside it: its tokenUsage, the
// session's own totals so far (inputTokens without the cached part; thinkingTokens is not added to
// output, which providers already count it in). That file holds no turns; its totals are the
// session's (FileFacts.unclaimed_tokens), of its newest generation, as views.sql counts them.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { tokens } from '../../truth';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { DocumentParser } from '../kit/document';
import { arr, isObj, lineText, strOrNull, tsOf } from '../kit/jsonl';
import { isDroidSettings } from './paths';

interface St {
  lastId: string;
}

function blocksText(content: unknown, type = 'text'): string {
  if (typeof content === 'string') return type === 'text' ? content : '';
  const out: string[] = [];
  for (const b of arr(content)) {
    if (!isObj(b) || b.type !== type) continue;
    const s = type === 'thinking' ? b.thinking : b.text;
    if (typeof s === 'string') out.push(s);
  }
  return out.join('\n\n');
}

function resultText(c: unknown): string {
  if (typeof c === 'string') return c;
  return blocksText(c);
}

class DroidParser extends BaseParser<St> {
  private reply: Turn | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { lastId: '' }, resume);
  }

  protected onLine(l: RawLine): void {
    let o: unknown;
    try {
      o = JSON.parse(lineText(l));
    } catch {
      this.badLine(l);
      return;
    }
    if (!isObj(o) || typeof o.type !== 'string') {
      this.badLine(l);
      return;
    }
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    if (o.type === 'session_start') {
      this.facts.native_session ??= strOrNull(o.id);
      if (typeof o.cwd === 'string' && o.cwd) this.facts.cwd = o.cwd;
      if (typeof o.title === 'string' && o.title.trim()) this.facts.title_hint = o.title.trim();
      return;
    }
    if (o.type !== 'message' || !isObj(o.message)) return;
    const m = o.message;
    const id = typeof o.id === 'string' ? o.id : '';
    const branch = this.st.lastId !== '' && typeof o.parentId === 'string' && o.parentId !== this.st.lastId;
    if (id) this.st.lastId = id;
    const blocks = arr(m.content).filter(isObj);
    if (m.role === 'user') {
      const results = blocks.filter((b) => b.type === 'tool_result');
      if (results.length > 0 && results.length === blocks.length) {
        const r = this.reply;
        if (!r) return;
        let joined = false;
        for (const b of results) {
          const use = r.tools.find((u) => u.id !== null && u.id === b.tool_use_id);
          if (!use) continue;
          joined = true;
          use.is_error = b.is_error === true;
          if (this.opts.full) use.output = resultText(b.content);
        }
        if (joined) this.extend(r, l, ts);
        return;
      }
      this.closeReply();
      const injected = id.startsWith('context-');
      const t = injected ? this.turn(l, 'system', 'instructions', ts) : this.turn(l, 'user', 'prompt', ts);
      t.branch = branch && !injected;
      addText(t, blocksText(m.content));
      this.emit(t);
      return;
    }
    if (m.role === 'assistant') {
      this.closeReply();
      this.hold();
      const t = this.turn(l, 'assistant', 'reply', ts);
      t.branch = branch;
      t.model = strOrNull(m.modelId) ?? strOrNull(m.model);
      addText(t, blocksText(m.content));
      if (this.opts.full) addThinking(t, blocksText(m.content, 'thinking'));
      for (const b of blocks) {
        if (b.type !== 'tool_use') continue;
        t.tools.push({
          id: strOrNull(b.id),
          name: strOrNull(b.name) ?? '?',
          arguments: this.opts.full ? JSON.stringify(b.input ?? {}) : '',
          output: '',
          is_error: false,
        });
      }
      this.reply = t;
    }
  }

  protected onFinish(): void {
    this.closeReply();
  }

  private closeReply(): void {
    if (!this.reply) return;
    const t = this.reply;
    this.reply = null;
    this.emit(t);
    this.release();
  }
}

/** <id>.settings.json: no turns, the session's token totals. */
class DroidSettingsParser extends DocumentParser {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(o: unknown): void {
    const u = isObj(o) && isObj(o.tokenUsage) ? o.tokenUsage : null;
    if (!u) return;
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    this.facts.unclaimed_tokens = tokens({ input: n(u.inputTokens), output: n(u.outputTokens), cacheWrite: n(u.cacheCreationTokens), cached: n(u.cacheReadTokens) });
  }
}

/** A settings file's generations are named <id>.settings.g<n>.json. */
const settingsFile = (rel: string) => isDroidSettings(rel.replace(/\.g\d+\.json$/, '.json'));

export const droidDialect: Dialect = {
  reads: (rel) => /(^|\/)[^/]+\.jsonl$/.test(rel) || settingsFile(rel),
  open: (opts, emit, resume) => (settingsFile(opts.rel) ? new DroidSettingsParser(opts, emit, resume) : new DroidParser(opts, emit, resume)),
};
