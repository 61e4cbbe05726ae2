// Aider's chat history (.aider.chat.history.md) -> turns. Aider appends Markdown as it goes
// (aider/io.py, append_chat_history), and one file gathers every session run in its folder:
//
//   # aider chat started at 2025-05-04 17:02:36      a session starts (local time, no zone)
//   > Aider v0.82.2  /  > Main model: X with …       what Aider said (tool_output, warnings,
//                                                    questions with their answer): quoted lines,
//                                                    each ending in two spaces (a Markdown break)
//   #### the prompt, line by line  (user_input)      what the person typed, a line per line
//   <the reply, as the model wrote it>               ai_output: plain Markdown after a blank line
//   > Tokens: 5.4k sent, 1.1k received. Cost: …      the reply's usage, then its edits, commits
//   > Applied edit to src/App.js                     and the shell commands run for it
//
// Turns: a run of `####` lines is a prompt; a run of plain lines is one reply (one response: plain
// lines after Aider's own quoted lines, with no prompt between, are the next response, as when
// Aider sends a lint or edit error back to the model). Quoted lines after a reply belong to it (its
// span), and give its tokens, its edits and commits, and its shell commands (tool calls); quoted
// lines after a prompt are the output of the user's command (a tool turn); the header and the
// quoted lines that follow it are a notice. A quoted line that does not end in two spaces is part of
// a reply (a Markdown quote in it), except the usage line, which Aider writes with its cost on the
// next, unquoted line; and an unquoted line right after a quoted one continues it (a multi-line
// message). A `####` line is a prompt only when it ends in two spaces, so a heading inside a reply
// stays the reply's.
//
// Aider writes no time but the session's start: every turn of a session has that time. It writes
// tokens as it shows them ("5.4k", "5,244"), so they are read at that precision: input = sent −
// cache write − cache hit (what was sent and not served from or written to the cache), output =
// received.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../turns';
import { BaseParser } from '../kit/parser';
import { isBlank, lineText } from '../kit/jsonl';
import { INPUT_HISTORY } from './paths';

type Kind = 'blank' | 'header' | 'prompt' | 'quote' | 'text';
/** What a line looks like on its own: a quoted line Aider surely wrote (two trailing spaces, or
 * its usage line), a quoted line that may be a reply's Markdown quote, or plain text. */
type Base = 'blank' | 'header' | 'prompt' | 'q' | 'q?' | 't';

interface St {
  /** The kind of the line before (a blank one included). */
  last: Kind | 'none';
  /** The look of the last line that was not blank. */
  lastBase: Base | 'none';
  /** Since the last header no prompt came: Aider's startup words, whatever their lines look like. */
  notice: boolean;
  /** The last line that was not blank answered one of Aider's questions with yes (a reply may
   * follow). */
  yes: boolean;
  /** The last prompt was an in-chat command that does not ask the model (`/run`, `/add`, `!ls`). */
  command: boolean;
  /** The open reply has had Aider's quoted lines after its text. */
  replyOut: boolean;
  /** The session's start, as an ISO local time. */
  ts: string | null;
  model: string | null;
  /** Sessions started so far in this file. */
  sessions: number;
}

export const HEADER = /^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/;
const PROMPT = /^####(?: .*)?  $/;
const QUOTE = /^>(?: |$)/;
const TOKENS = /^> Tokens: ([\d.,]+k?) sent(?:, ([\d.,]+k?) cache write)?(?:, ([\d.,]+k?) cache hit)?, ([\d.,]+k?) received/;
const MODEL = /^> (?:Main model|Model|Models): (\S+?)(?: with |,|\s*$)/;
const EDIT = /^> Applied edit to (.+?)\s*$/;
const COMMIT = /^> Commit ([0-9a-f]{7,40}) (.*?)\s*$/;
const RUN = /^> Running (.+?)\s*$/;
/** In-chat commands whose message goes to the model (aider/commands.py): their prompts get replies. */
const ASKS = /^\/(ask|code|architect|help|context)\s+\S/;
/** A question of Aider's answered yes ("Attempt to fix lint errors? y", "[Yes]: y"). */
export const YES = /[?:)\]] ?(y|yes|a|all)  $/i;

/** A count as Aider shows it: "612", "5,244", "5.4k", "13k". */
export function aiderCount(s: string | undefined): number {
  if (!s) return 0;
  const k = s.endsWith('k');
  const n = Number((k ? s.slice(0, -1) : s).replace(/,/g, ''));
  if (!Number.isFinite(n)) return 0;
  return Math.round(k ? n * 1000 : n);
}

export function lineBase(text: string): Base {
  if (!text.trim()) return 'blank';
  if (HEADER.test(text)) return 'header';
  if (PROMPT.test(text)) return 'prompt';
  if (QUOTE.test(text)) return text.endsWith('  ') || text.startsWith('> Tokens: ') ? 'q' : 'q?';
  return 't';
}

/** The kind of a line (views.sql follows the same rules):
 *  - a quoted line that may be Markdown is a reply's when the line before (blanks aside) was
 *    plain text or such a line too, Aider's otherwise;
 *  - plain text after a header and before any prompt is Aider's (its startup words, a --verbose
 *    dump with blank lines in it); elsewhere plain text right after a line of Aider's (no blank
 *    between) continues it, unless that line answered a question with yes (the reply it allowed
 *    may follow at once); after an in-chat command that does not ask the model (`/run`, `!cmd`)
 *    it is that command's output until a question is answered yes; else it is a reply's. */
export function lineKind(base: Base, st: Pick<St, 'last' | 'lastBase' | 'notice' | 'yes' | 'command'>): Kind {
  switch (base) {
    case 'blank':
    case 'header':
    case 'prompt':
      return base;
    case 'q':
      return 'quote';
    case 'q?':
      if (st.notice || (st.command && !st.yes)) return 'quote';
      return st.lastBase === 't' || st.lastBase === 'q?' ? 'text' : 'quote';
    default:
      if (st.notice || (st.last === 'quote' && !st.yes)) return 'quote';
      // After a command that does not ask the model, what follows is its output (a test run's,
      // with blank lines in it), until a question of Aider's is answered yes.
      if (st.command && !st.yes) return 'quote';
      return 'text';
  }
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

class AiderParser extends BaseParser<St> {
  private blk: Block | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, { last: 'none', lastBase: 'none', notice: false, yes: false, command: false, replyOut: false, ts: null, model: null, sessions: 0 }, resume);
  }

  // The base parser passes no blank line on, and blank lines matter here: they end a prompt and
  // are part of a reply (a code block's, a paragraph's).
  override line(l: RawLine): void {
    super.line(l);
    if (!isBlank(l)) return;
    this.st.last = 'blank';
    if (this.blk?.kind === 'reply' && !this.st.replyOut) this.blk.lines.push('');
  }

  protected onLine(l: RawLine): void {
    const text = lineText(l);
    const base = lineBase(text);
    const kind = lineKind(base, this.st);
    const last = this.st.last;
    this.st.last = kind;
    this.st.lastBase = base;
    this.st.yes = (base === 'q' || base === 'q?' || base === 't') && YES.test(text);
    if (kind === 'header') {
      this.st.notice = true;
      this.st.command = false;
    } else if (kind === 'prompt') {
      this.st.notice = false;
      // The first line of a prompt says whether it is a command.
      if (last !== 'prompt') {
        const said = text.replace(/^#### ?/, '');
        this.st.command = /^[/!]/.test(said) && !ASKS.test(said);
      }
    }
    switch (kind) {
      case 'blank':
        return;
      case 'header': {
        this.close();
        const m = HEADER.exec(text) as RegExpExecArray;
        this.st.ts = `${m[1]}T${m[2]}`;
        this.st.sessions++;
        this.seen(this.st.ts);
        const b = this.start(l, 'notice');
        b.lines.push(text.replace(/^#\s*/, '').trim());
        return;
      }
      case 'prompt': {
        if (this.blk?.kind !== 'prompt' || last !== 'prompt') this.start(l, 'prompt');
        const b = this.blk as Block;
        const said = text.replace(/^#### ?/, '').replace(/ {2}$/, '');
        b.lines.push(said === '<blank>' ? '' : said);
        this.extend(b.t, l, null);
        return;
      }
      case 'quote':
        return this.quote(l, text, last);
      case 'text': {
        if (this.blk?.kind !== 'reply' || this.st.replyOut) {
          this.start(l, 'reply');
          this.st.replyOut = false;
        }
        const b = this.blk as Block;
        b.lines.push(text);
        this.extend(b.t, l, null);
        return;
      }
    }
  }

  private quote(l: RawLine, text: string, last: Kind | 'none'): void {
    const said = QUOTE.test(text) ? unquote(text) : text;
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
    this.release();
  }

  protected onFinish(): void {
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
