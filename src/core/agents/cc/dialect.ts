// Claude Code lines -> turns.
//
// One API reply is written one content block per line, all lines sharing message.id; the results of
// its tool calls come back as user lines, possibly between two of the reply's own lines (parallel
// calls). So a reply stays open until the conversation moves on (a user line that is no tool result,
// or a reply with another id: an id seen again after that is another reply), and tool results join
// the reply whose call they answer. The cache's derived.messages (views.sql) reads the same rule. Sidechain lines (a sub-agent
// written inline, 1.0.x) are merged the same way but apart from the main chain, whose progress
// closes them; a sub-agent file (agent-*.jsonl) is its own conversation. isMeta lines and compaction
// summaries are recorded instructions, not turns anyone said; command output is tool output. Titles
// (summary, custom-title, ai-title lines) are name entries.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser, addText, addThinking } from '../kit/parser';
import { COMMAND_OUTPUT, NOTICE, tokens } from '../../truth';
import { argText, contentText, isObj, num, strOrNull, tsOf, type JsonLine, type Obj } from '../kit/jsonl';

interface St {
  /** A sub-agent file: its sidechain lines are its main conversation. */
  subFile: boolean;
  titleSet: boolean;
}


/** Lines whose content the harness injected into the model's context (2.1.x). */
const INJECTED_LINE = new Set(['attachment', 'prompt_snapshot', 'api-request-blob']);
/** Envelope fields of a line: ids, places and versions, no text anyone wrote. */
const ENVELOPE = new Set(['type', 'uuid', 'parentUuid', 'logicalParentUuid', 'timestamp', 'sessionId', 'session_id', 'cwd', 'version', 'gitBranch', 'userType', 'entrypoint', 'isSidechain', 'agentId', 'requestId', 'promptId', 'slug']);
/** Fields inside an injected line that name or number things rather than say them. */
const NOT_TEXT = /^(type|id|uuid|toolUseID|hookEvent|hookName|exitCode|durationMs|media_type|data|signature|timestamp|path|filePath|filename|displayPath|source_uuid|status|level)$/;

/** Every string worth searching inside an injected line, depth-first (bounded). */
function stringsOf(j: JsonLine, v: unknown, out: string[], depth: number): void {
  if (depth > 12) return;
  if (typeof v === 'string') {
    const s = j.str(v).trim();
    if (s) out.push(s);
  } else if (Array.isArray(v)) for (const x of v) stringsOf(j, x, out, depth + 1);
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) if (!NOT_TEXT.test(k)) stringsOf(j, x, out, depth + 1);
}

class CcParser extends BaseParser<St> {
  /** Open replies by message id (main chain: at most one). */
  private pending = new Map<string, { t: Turn; main: boolean; usage: boolean }>();
  /** tool_use id -> the open reply that made the call. */
  private owner = new Map<string, Turn>();

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    const base = opts.rel.split('/').pop() ?? '';
    super(opts, emit, { subFile: /^agent-/.test(base), titleSet: false }, resume);
    if (!resume) this.facts.subagent = this.st.subFile;
  }

  protected onLine(l: RawLine): void {
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o)) {
      this.badLine(l);
      return;
    }
    const type = o.type;
    if (type === 'summary' || type === 'custom-title' || type === 'ai-title') {
      this.title(l, j, type, o);
      return;
    }
    if (typeof type === 'string' && INJECTED_LINE.has(type)) {
      this.injected(l, j, o);
      return;
    }
    if (type !== 'user' && type !== 'assistant') {
      this.seen(tsOf(o.timestamp));
      return;
    }
    const side = o.isSidechain === true;
    const main = this.st.subFile ? true : !side;
    const ts = tsOf(o.timestamp);
    if (type === 'assistant') this.assistant(l, j, o, main, side, ts);
    else this.user(l, j, o, main, side, ts);
    this.envelope(o, ts);
  }

  /** A line holding what the harness put in front of the model (an attachment: a memory file,
   * a reminder, a skill; the system prompt's snapshot; a request blob): recorded instructions,
   * whose text show lists and the tool tier searches. Read only in full (the index never holds
   * instructions); an attachment with no text (a mode switch) is no entry. */
  private injected(l: RawLine, j: JsonLine, o: Obj): void {
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    const body: Obj = {};
    for (const [k, v] of Object.entries(o)) if (!ENVELOPE.has(k)) body[k] = v;
    const parts: string[] = [];
    stringsOf(j, body, parts, 0);
    if (parts.length === 0) return;
    const side = o.isSidechain === true && !this.st.subFile;
    this.single(l, 'system', 'instructions', this.opts.full ? parts.join('\n\n') : '', side, ts);
  }

  private envelope(o: Obj, ts: string | null): void {
    this.seen(ts);
    if (!this.facts.cwd && typeof o.cwd === 'string' && o.cwd) this.facts.cwd = o.cwd;
    if (typeof o.sessionId === 'string') {
      if (this.st.subFile) {
        this.facts.parent_session ??= o.sessionId;
        if (typeof o.agentId === 'string') this.facts.native_session ??= `agent-${o.agentId}`;
      } else this.facts.native_session ??= o.sessionId;
    }
  }

  private title(l: RawLine, j: JsonLine, type: unknown, o: Obj): void {
    const v = type === 'summary' ? o.summary : type === 'custom-title' ? o.customTitle : o.aiTitle;
    if (typeof v !== 'string' || !v) return;
    // Shown as an entry, so search finds the name too.
    this.single(l, 'system', 'name', j.str(v), false, tsOf(o.timestamp));
    // A title the user set wins; otherwise the first one written.
    if (type === 'custom-title') {
      this.facts.title_hint = v;
      this.st.titleSet = true;
    } else if (!this.st.titleSet && !this.facts.title_hint) this.facts.title_hint = v;
  }

  private assistant(l: RawLine, j: JsonLine, o: Obj, main: boolean, side: boolean, ts: string | null): void {
    const m = isObj(o.message) ? o.message : {};
    // A reply's lines share its id within its chain (the main conversation or the sidechains);
    // the same id after the main conversation moved on is another reply (views.sql, the same rule).
    const id = `${main ? 'main' : 'side'}:${strOrNull(m.id) ?? strOrNull(o.requestId) ?? strOrNull(o.uuid) ?? `line-${l.no}`}`;
    let p = this.pending.get(id);
    if (!p) {
      // A new main reply means every earlier reply (and any sidechain under it) is complete.
      if (main) this.closeAll();
      this.hold();
      const t = this.turn(l, 'assistant', 'reply', ts);
      t.sidechain = side;
      p = { t, main, usage: false };
      this.pending.set(id, p);
    } else this.extend(p.t, l, ts);
    const t = p.t;
    if (typeof m.model === 'string' && m.model) t.model = m.model;
    if (isObj(m.usage)) {
      // Each line of a reply carries the reply's usage so far (output grows as it streams): the
      // last line's is the reply's, counted once (truth.ts).
      const u = m.usage;
      t.tokens = tokens({
        input: num(u.input_tokens),
        output: num(u.output_tokens),
        cacheWrite: num(u.cache_creation_input_tokens),
        cached: num(u.cache_read_input_tokens),
      });
      p.usage = true;
    }
    const content = m.content;
    if (typeof content === 'string') {
      addText(t, j.str(content));
      return;
    }
    if (!Array.isArray(content)) return;
    for (const b of content) {
      if (!isObj(b)) continue;
      if (b.type === 'text') addText(t, j.str(b.text));
      else if (b.type === 'thinking') {
        if (this.opts.full) addThinking(t, j.str(b.thinking));
      } else if (b.type === 'tool_use' || b.type === 'server_tool_use') {
        const tid = strOrNull(b.id);
        t.tools.push({
          id: tid,
          name: strOrNull(b.name) ?? '?',
          arguments: this.opts.full ? argText(j, b.input) : '',
          output: '',
          is_error: false,
        });
        if (tid) this.owner.set(tid, t);
      }
    }
  }

  private user(l: RawLine, j: JsonLine, o: Obj, main: boolean, side: boolean, ts: string | null): void {
    const m = isObj(o.message) ? o.message : {};
    const content = m.content;
    const blocks = Array.isArray(content) ? content.filter(isObj) : [];
    if (blocks.some((b) => b.type === 'tool_result')) {
      this.results(l, j, blocks, side, ts);
      return;
    }
    const text =
      typeof content === 'string'
        ? j.str(content)
        : blocks
            .filter((b) => b.type === 'text')
            .map((b) => j.str(b.text))
            .join('\n\n');
    if (main) this.closeAll();
    if (o.isMeta === true) return this.single(l, 'system', 'instructions', text, side, ts);
    if (o.isCompactSummary === true) return this.single(l, 'system', 'summary', text, side, ts);
    if (NOTICE.test(text)) return this.single(l, 'system', 'notice', text, side, ts);
    if (COMMAND_OUTPUT.test(text)) {
      const t = this.turn(l, 'tool', 'output', ts);
      t.sidechain = side;
      t.tools.push({ id: null, name: 'command', arguments: '', output: this.opts.full ? text : '', is_error: false });
      this.done(t);
      return;
    }
    this.single(l, 'user', 'prompt', text, side, ts);
  }

  private single(l: RawLine, role: Turn['role'], kind: Turn['kind'], text: string, side: boolean, ts: string | null): void {
    const t = this.turn(l, role, kind, ts);
    t.sidechain = side;
    addText(t, text);
    this.done(t);
  }

  private results(l: RawLine, j: JsonLine, blocks: Obj[], side: boolean, ts: string | null): void {
    let orphan: Turn | null = null;
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const id = strOrNull(b.tool_use_id);
      const owner = id ? this.owner.get(id) : undefined;
      const use = owner?.tools.find((u) => u.id === id);
      const out = this.opts.full ? contentText(j, b.content) : '';
      if (owner && use) {
        use.output = use.output ? `${use.output}\n${out}` : out;
        use.is_error = use.is_error || b.is_error === true;
        this.extend(owner, l, ts);
      } else {
        if (!orphan) {
          orphan = this.turn(l, 'tool', 'output', ts);
          orphan.sidechain = side;
        }
        orphan.tools.push({ id, name: '?', arguments: '', output: out, is_error: b.is_error === true });
      }
    }
    if (orphan) {
      if (this.pending.size > 0) {
        // Keep it in order behind the open reply it follows.
        this.pending.set(`orphan-${l.no}`, { t: orphan, main: false, usage: true });
      } else this.emit(orphan);
    }
  }

  /** A turn complete in one line: final unless replies before it are still open. */
  private done(t: Turn): void {
    if (this.pending.size > 0) this.pending.set(`line-${t.span.line_from}`, { t, main: false, usage: true });
    else this.emit(t);
  }

  private closeAll(): void {
    if (this.pending.size === 0) return;
    const ts = [...this.pending.values()].map((p) => p.t).sort((a, b) => a.n - b.n);
    this.pending.clear();
    this.owner.clear();
    for (const t of ts) this.emit(t);
    this.release();
  }

  protected onFinish(): void {
    this.closeAll();
  }
}

export const ccDialect: Dialect = {
  reads: (rel) => rel.endsWith('.jsonl'),
  open: (opts, emit, resume) => new CcParser(opts, emit, resume),
};
