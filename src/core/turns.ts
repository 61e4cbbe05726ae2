// The normalised turn and the citation: declared once, reused by the index, search, the CLI's
// --json, the MCP tools and the VS Code LM tools.

/** A checkable pointer into the floor: `sed -n 'A,Bp' <home>/<lake_path> | sha256sum` equals sha256. */
export interface Citation {
  machine: string;
  lake_path: string;
  gen: number;
  line_from: number;
  line_to: number;
  byte_from: number;
  byte_to: number;
  sha256: string;
}

/** Where a turn sits in its lake file: lines A..B (1-based, inclusive) and bytes [from, to). The
 * sha256 that makes it a Citation is computed when a citation is handed out (see recall/cite). */
export interface Span {
  line_from: number;
  line_to: number;
  byte_from: number;
  byte_to: number;
}

/**
 * user      what a person typed (a prompt, a slash command, a `!` shell command line)
 * assistant one model reply (one API response): text, thinking, tool calls and their results
 * system    what neither a person nor the model said: instructions the harness injected (system
 *           prompt additions, instruction files, environment context), compaction and branch
 *           summaries, harness notices, session names. Never counted as a turn (see isTurn).
 * tool      tool or command output that no reply in the file claims (a user-run command's output,
 *           an orphaned tool result)
 */
export type Role = 'user' | 'assistant' | 'system' | 'tool';

export type TurnKind =
  | 'prompt' // user
  | 'reply' // assistant
  | 'instructions' // system: system prompt / context the harness injected
  | 'summary' // system: compaction / branch summary
  | 'notice' // system: a harness notice ("[Request interrupted by user]", command caveats)
  | 'name' // system: a session name the user or the agent gave (a session-info entry, a thread name)
  | 'output'; // tool: output nobody claimed

export interface ToolUse {
  id: string | null;
  name: string;
  /** Arguments as the agent wrote them (JSON text for structured ones). '' when not read. */
  arguments: string;
  /** The result's text, '' when none was recorded (or not read: see Turn.full). */
  output: string;
  is_error: boolean;
}

/** Tokens of one reply, counted once per reply (the agents repeat usage across a reply's lines). */
export interface Tokens {
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
}

export interface Turn {
  /** 1-based position among the turns of its lake file. */
  n: number;
  role: Role;
  kind: TurnKind;
  /** What the person or model said: the only text the turn index holds. */
  text: string;
  thinking: string;
  tools: ToolUse[];
  model: string | null;
  /** Timestamps of the turn's first and last line (ISO-8601, as the agent wrote them). */
  ts: string | null;
  ts_last: string | null;
  tokens: Tokens | null;
  /** Inside a sub-agent's conversation (sidechain lines or a sub-agent file). */
  sidechain: boolean;
  /** Working directory the agent reported at this turn (null when the format has none). */
  cwd: string | null;
  /** Tree-shaped transcripts: this entry's parent is not the entry before it, so it opens a branch. */
  branch: boolean;
  span: Span;
  /** A file that gathers several sessions (a chat history where a header line starts each): the key of the section of the file that is the session this entry is of
   * (AgentFiles.sectionId names it), the same in every generation of the file (e.g. the
   * header's time as digits, 20240805193332). Absent (or 0): the file's own session. */
  section?: number;
  /** False when parsed for the index: thinking, tool arguments and tool output were not read. */
  full: boolean;
}

/**
 * What counts as a turn, the one definition every count uses (show, stats, the Sessions tree, the
 * turn index): a user prompt, or one assistant reply (one API response, whatever it holds: a reply
 * with only tool calls is a turn too). Summaries, notices, names, injected instructions and
 * unclaimed tool output are entries of the session but not turns.
 */
export function isTurn(t: Pick<Turn, 'role'>): boolean {
  return t.role === 'user' || t.role === 'assistant';
}

/** The turns of a list, counted as everything counts them. */
export function countTurns(turns: readonly Pick<Turn, 'role'>[]): number {
  let n = 0;
  for (const t of turns) if (isTurn(t)) n++;
  return n;
}

/** Entries shown as part of the conversation, whose text the turn tier of search finds: turns,
 * plus summaries, harness notices and session names. Injected instructions are not: the tool tier
 * (a scan of the files) finds those. */
export function isSaid(t: Pick<Turn, 'role' | 'kind'>): boolean {
  return isTurn(t) || t.kind === 'summary' || t.kind === 'notice' || t.kind === 'name';
}

/**
 * Which entry of one generation is "the same" as an entry of another generation of the same
 * session file (a rewrite keeps most of what it held): the one definition the turn index, the
 * scan, show's timeline and the DuckDB cache's messages use. Two entries are the same when role,
 * kind, first timestamp and text are equal (a reply with a timestamp: role, kind and timestamp); the agent's ids are not used, since a user who edits a
 * prompt in place keeps its id, and Gemini's and Copilot's documents are rewritten whole (no line
 * survives a rewrite as it was). Entries with equal keys are told apart by count: a session's
 * entries are, per key, as many as the generation holding most of them has (see uniqueCount).
 * A 48-bit hash (exact as a JavaScript number and an SQLite integer) of the fields' UTF-16 code
 * units: two 32-bit multiply-xorshift lanes, 32 bits of one and 16 of the other. Not a sha256: the
 * index computes one per turn, and a hash object per call cost more than the parse of the turn.
 * Only equal keys are compared, within one session's generations, so 48 bits keep collisions out.
 */
export function turnKey(t: Pick<Turn, 'role' | 'kind' | 'ts' | 'text'>): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  const mix = (s: string) => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // A separator no code unit equals, so ('ab', 'c') and ('a', 'bc') differ.
    a = Math.imul(a ^ 0x10000, 0x01000193);
    b = Math.imul(b ^ 0x10000, 0x5bd1e995);
  };
  mix(t.role);
  mix(t.kind);
  mix(t.ts ?? '');
  // A reply is known by when it started: a rewrite that cut a reply in half (or wrote the rest of
  // it) keeps the same reply, with less or more text, so its text is no part of its key.
  if (!(t.role === 'assistant' && t.ts)) mix(t.text);
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  return (a >>> 0) * 0x10000 + (b & 0xffff);
}

/** One line of a lake file as the dialects see it: bytes [from, to) incl. its newline, and the
 * content bytes buf[s, e) without the newline (or \r\n). */
export interface RawLine {
  no: number;
  from: number;
  to: number;
  buf: Buffer;
  s: number;
  e: number;
}

/** What a dialect learns about its file's session as it reads (all optional: formats differ). */
export interface FileFacts {
  /** The session id the agent itself wrote (may differ from the lake's file-name id). */
  native_session: string | null;
  /** The parent session of a sub-agent file. */
  parent_session: string | null;
  cwd: string | null;
  /** First and last timestamp seen on any line. */
  started: string | null;
  ended: string | null;
  /** A title the agent wrote (a summary or ai-title line, a session-info entry, a thread name). */
  title_hint: string | null;
  /** Sub-agent file (a sub-agent transcript or rollout). */
  subagent: boolean;
  /** Usage the file reports that no reply claims (a token count written before any reply): the
   * session's all the same (truth.ts). Absent: none. */
  unclaimed_tokens?: Tokens | null;
}

export interface DialectCounts {
  /** Non-empty lines fed. */
  lines: number;
  /** Lines that did not parse: not turns, still on the floor and searched by the scan tier. */
  bad: number;
}

/** Where a parser can resume: everything before `line`/`byte` is final; `state` is the parser's
 * own small context at that point (JSON). */
export interface Checkpoint {
  line: number;
  byte: number;
  n: number;
  state: unknown;
}

export interface ParseOptions {
  /** Read thinking, tool arguments and tool output too (show, the scan tier). The index does not. */
  full: boolean;
  /** Relative path of the file inside its lane (after lake/<lane>/), for formats that need it. */
  rel: string;
  /** Called with each line that does not parse (valid only during the call). */
  onBad?: (l: RawLine) => void;
}

export interface DialectParser {
  line(l: RawLine): void;
  /** Emits what is still open (the data ends here for now). The parser is done after this. */
  finish(): void;
  /** Where to resume next time (taken before finish()). */
  checkpoint(): Checkpoint;
  facts: FileFacts;
  counts: DialectCounts;
}

export interface Dialect {
  /** Does this lake file (path inside the lane) hold a conversation this dialect reads? */
  reads(rel: string): boolean;
  open(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint): DialectParser;
  /** Every turn of this file cites the same span (a document rewritten whole, a replayed change
   * log): a turn is told from its siblings by its number, and a parse of its span reads them all. */
  sharedSpans?(rel: string): boolean;
}

export function emptyFacts(): FileFacts {
  return {
    native_session: null,
    parent_session: null,
    cwd: null,
    started: null,
    ended: null,
    title_hint: null,
    subagent: false,
  };
}

/** A title from a first prompt: tags and whitespace folded, one line, at most `max` characters. */
export function titleOf(text: string, max = 100): string {
  const t = text
    .replace(/<\/?(user_query|command-message|command-name|command-args|bash-input)>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}
