// Aider's chat history (.aider.chat.history.md) -> turns. Aider appends Markdown as it goes
// (aider/io.py, append_chat_history), and one file gathers every session run in its folder:
//
//   # aider chat started at 2025-05-04 17:02:36      a session starts (local time, no zone)
//   > Aider v0.82.2  /  > Main model: X with …       what Aider said (tool_output, warnings,
//                                                    questions with their answer): quoted lines
//   #### the prompt, line by line  (user_input)      what the person typed, each line ending in
//                                                    two spaces (a Markdown break)
//   <the reply, as the model wrote it>               ai_output: plain Markdown
//   > Tokens: 5.4k sent, 1.1k received. Cost: …      the reply's usage, then its edits, commits
//   > Applied edit to src/App.js                     and the shell commands run for it
//
// Plain lines are not always a reply: a message of Aider's that spans lines is quoted on its first
// line only (a --verbose dump, a test run's output, the cost after the usage line), and the model
// may answer with no prompt before it (a lint or test failure sent back to it). So a run of plain
// lines (blank lines inside it included) is a reply when the next quoted line is Aider's usage line
// (`> Tokens:`, written after every response), or when it follows a prompt that went to the model
// (not an in-chat command such as `/run` or `!ls`; `/ask`, `/code`, `/architect`, `/help` and
// `/context` with a message do go to the model) with only blank lines between: a reply cut short
// before its usage line. Any other run is Aider's words, like its quoted lines.
//
// Turns: a run of `####` lines is a prompt (a blank line ends it); each reply is one; Aider's words
// after a reply belong to it (its span) and give its tokens, its edits, commits and shell commands
// (tool calls); Aider's words after a prompt are that command's output (a tool turn); the header
// and Aider's words after it are a notice. Each header starts a session of its own: every entry
// after it carries the header's time as its section (Turn.section; paths.ts names the session).
// Aider writes no time but the session's start: every turn of a session has that time. Its tokens are the counts it shows ("5.4k", "5,244"): input = sent −
// cache write − cache hit, output = received. views.sql reads the file by the same rules.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser } from '../kit/parser';
import { isBlank, lineText } from '../kit/jsonl';
import { INPUT_HISTORY } from './paths';

interface St {
  /** The line before was a prompt line (a blank one ends a prompt). */
  lastPrompt: boolean;
  /** The last line that was neither plain nor blank: a header, a prompt line, a quoted line. */
  anchor: 'none' | 'header' | 'prompt' | 'quote';
  /** The last prompt was an in-chat command that does not go to the model. */
  command: boolean;
  /** The open reply has had Aider's words after its text. */
  replyOut: boolean;
  /** The session's start, as an ISO local time. */
  ts: string | null;
  model: string | null;
  /** The section (the session inside the file) lines are of: the last header's time as digits
   * (0: no header yet). */
  section: number;
}

export const HEADER = /^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/;
const PROMPT = /^####(?: .*)?  $/;
const QUOTE = /^>/;
export const TOKENS = /^> Tokens: ([\d.,]+k?) sent(?:, ([\d.,]+k?) cache write)?(?:, ([\d.,]+k?) cache hit)?, ([\d.,]+k?) received/;
const MODEL = /^> (?:Main model|Model|Models): (\S+?)(?: with |,|\s*$)/;
const EDIT = /^> Applied edit to (.+?)\s*$/;
const COMMIT = /^> Commit ([0-9a-f]{7,40}) (.*?)\s*$/;
const RUN = /^> Running (.+?)\s*$/;
/** In-chat commands whose message goes to the model (aider/commands.py). */
const ASKS = /^\/(ask|code|architect|help|context)\s+\S/;

/** A count as Aider shows it: "612", "5,244", "5.4k", "13k". */
export function aiderCount(s: string | undefined): number {
  if (!s) return 0;
  const k = s.endsWith('k');
  const n = Number((k ? s.slice(0, -1) : s).replace(/,/g, ''));
  if (!Number.isFinite(n)) return 0;
  return Math.round(k ? n * 1000 : n);
}

/** A prompt's first line: an in-chat command that does not go to the model? */
export function isCommand(said: string): boolean {
  return /^[/!]/.test(said) && !ASKS.test(said);
}

/** A quoted line's text: without the quote and the two spaces of the Markdown break. */
function unquote(text: string): string {
  return text.replace(/^> ?/, '').replace(/ {2}$/, '');
}

interface Block {
  t: Turn;
  lines: string[];
  kind: 'notice' | 'prompt' | 'reply' | 'output';
}

interface Run {
  first: { no: number; from: number; to: number };
  last: { no: number; to: number };
  lines: string[];
  /** It follows a prompt that went to the model with only blank lines between. */
  afterAsk: boolean;
}

class AiderParser extends BaseParser<St> {
  private blk: Block | null = null;
  private run: Run | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { lastPrompt: false, anchor: 'none', command: false, replyOut: false, ts: null, model: null, section: 0 }, resume);
  }

  // The base parser passes no blank line on, and blank lines matter here: they end a prompt and
  // are part of a reply (a code block's, a paragraph's).
  override line(l: RawLine): void {
    super.line(l);
    if (!isBlank(l)) return;
    this.st.lastPrompt = false;
    this.run?.lines.push('');
  }

  protected onLine(l: RawLine): void {
    const text = lineText(l);
    if (!QUOTE.test(text) && !PROMPT.test(text) && !HEADER.test(text)) return this.plain(l, text);
    const tokens = TOKENS.test(text);
    this.settle(tokens);
    const wasPrompt = this.st.lastPrompt;
    this.st.lastPrompt = false;
    const h = HEADER.exec(text);
    if (h) {
      this.st.anchor = 'header';
      this.st.command = false;
      this.st.ts = `${h[1]}T${h[2]}`;
      this.st.section = Number(`${h[1]}${h[2]}`.replace(/\D/g, ''));
      this.seen(this.st.ts);
      this.start(l, 'notice').lines.push(text.replace(/^#\s*/, '').trim());
      return;
    }
    if (PROMPT.test(text)) {
      this.st.anchor = 'prompt';
      this.st.lastPrompt = true;
      const said = text.replace(/^#### ?/, '').replace(/ {2}$/, '');
      if (this.blk?.kind !== 'prompt' || !wasPrompt) {
        this.start(l, 'prompt');
        this.st.command = isCommand(said);
      }
      const b = this.blk as Block;
      b.lines.push(said === '<blank>' ? '' : said);
      this.extend(b.t, l, null);
      return;
    }
    this.st.anchor = 'quote';
    this.quote(l, text, unquote(text));
  }

  /** A plain line: held in the run it belongs to until the next quoted line says what it is. */
  private plain(l: RawLine, text: string): void {
    this.st.lastPrompt = false;
    if (!this.run) {
      // The run's lines are read again on resume until it is settled.
      this.hold();
      this.run = {
        first: { no: l.no, from: l.from, to: l.to },
        last: { no: l.no, to: l.to },
        lines: [],
        afterAsk: this.st.anchor === 'prompt' && !this.st.command,
      };
    }
    this.run.lines.push(text);
    this.run.last = { no: l.no, to: l.to };
  }

  /** Settles the open run: a reply when Aider's usage line comes next (`usageNext`) or it follows
   * a prompt that went to the model, else Aider's words. */
  private settle(usageNext: boolean): void {
    const r = this.run;
    if (!r) return;
    while (r.lines.length && r.lines[r.lines.length - 1] === '') r.lines.pop();
    // The run stays open while the block before it closes, so the checkpoint stays before both.
    if (usageNext || r.afterAsk) {
      this.close();
      this.run = null;
      const b = this.start(r.first as RawLine, 'reply');
      b.lines.push(...r.lines);
      b.t.span.line_to = r.last.no;
      b.t.span.byte_to = r.last.to;
      this.st.replyOut = false;
      return;
    }
    // Aider's words over several lines: its quoted first line's, the command's output, the notice's.
    let b = this.blk;
    if (!b || b.kind === 'prompt') b = this.start(r.first as RawLine, 'output');
    this.run = null;
    b.t.span.line_to = r.last.no;
    b.t.span.byte_to = r.last.to;
    if (b.kind === 'reply') this.st.replyOut = true;
    else b.lines.push(...r.lines);
  }

  private quote(l: RawLine, text: string, said: string): void {
    const mm = MODEL.exec(text);
    if (mm) this.st.model = mm[1];
    let b = this.blk;
    if (!b || b.kind === 'prompt') b = this.start(l, 'output');
    this.extend(b.t, l, null);
    if (b.kind !== 'reply') {
      b.lines.push(said);
      return;
    }
    this.st.replyOut = true;
    const t = b.t;
    const tk = TOKENS.exec(text);
    if (tk) {
      const sent = aiderCount(tk[1]);
      const write = aiderCount(tk[2]);
      const hit = aiderCount(tk[3]);
      t.tokens = { input: Math.max(0, sent - write - hit), output: aiderCount(tk[4]), cache_creation: write, cache_read: hit };
      return;
    }
    const e = EDIT.exec(text);
    if (e) {
      t.tools.push({ id: null, name: 'edit', arguments: this.opts.full ? e[1] : '', output: '', is_error: false });
      return;
    }
    const c = COMMIT.exec(text);
    if (c) {
      t.tools.push({ id: c[1], name: 'commit', arguments: this.opts.full ? c[2] : '', output: '', is_error: false });
      return;
    }
    const r = RUN.exec(text);
    if (r) {
      t.tools.push({ id: null, name: 'shell', arguments: this.opts.full ? r[1] : '', output: '', is_error: false });
      return;
    }
    // What a shell command printed goes with it; Aider's other words about the reply (questions,
    // warnings) stay in its span only.
    const run = t.tools[t.tools.length - 1];
    if (this.opts.full && run?.name === 'shell') run.output = run.output ? `${run.output}\n${said}` : said;
  }

  /** Closes the open block and opens one of `kind` at line `l`. */
  private start(l: RawLine, kind: Block['kind']): Block {
    this.close();
    this.hold();
    const role = kind === 'prompt' ? 'user' : kind === 'reply' ? 'assistant' : kind === 'output' ? 'tool' : 'system';
    const tk = kind === 'prompt' ? 'prompt' : kind === 'reply' ? 'reply' : kind === 'output' ? 'output' : 'notice';
    const t = this.turn(l, role, tk, this.st.ts);
    if (this.st.section) t.section = this.st.section;
    if (kind === 'reply') t.model = this.st.model;
    this.blk = { t, lines: [], kind };
    return this.blk;
  }

  private close(): void {
    const b = this.blk;
    if (!b) return;
    this.blk = null;
    const text = b.kind === 'reply' ? b.lines.join('\n').trim() : b.lines.join('\n').replace(/^\n+|\s+$/g, '');
    b.t.text = text;
    if (b.kind === 'prompt' && text && !this.facts.title_hint) this.facts.title_hint = text.split('\n')[0].trim() || null;
    this.emit(b.t);
    // A run being settled reaches back before this line: the checkpoint stays where it is (a
    // resume reads this block again, and the index replaces what it held of it).
    if (!this.run) this.release();
  }

  protected onFinish(): void {
    this.settle(false);
    this.close();
  }
}

/** A lake path of the lane without its generation suffix (`name.g2`). */
function baseName(rel: string): string {
  return (rel.split('/').pop() ?? rel).replace(/\.g\d+$/, '');
}

export const aiderDialect: Dialect = {
  // Every file of the lane but the input history (a companion: the prompts again, with times).
  reads: (rel) => baseName(rel) !== INPUT_HISTORY,
  open: (opts, emit, resume) => new AiderParser(opts, emit, resume),
};
