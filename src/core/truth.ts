// What a session, a turn, a tool call and a token are: the one definition every view reads (show
// and its --json, the Sessions tree, search, brain stats, brain calls, brain record's counts, the
// DuckDB cache's derived.* views, brain export and the MCP / LM tools). The dialects (turns.ts)
// make the entries; this module says what of them counts, and in which unit. The SQL views read
// the same rules: a {{truth NAME}} in a views.sql or sql/*.sql file is replaced, when the schema
// is assembled, by SQL_RULES[NAME] as an SQL string (see cache/sqlfiles.ts), so the patterns below
// are written once.
//
// Session   one conversation: what an agent records under one session id on one machine, in one
//           origin file or several (its generations are one session; an archived or second-form
//           copy, a task folder's several files, a file per event are not others), that is
//           not a sub-agent's and holds at least one turn. A sub-agent's file is listed under its
//           parent, never counted as a session of its own. A file that gathers several sessions
//           (a history appended to by every run) is a session per section (Turn.section, AgentFiles.sectionId).
// Turn      a user prompt or one assistant reply (one API response, whatever it holds: a reply with
//           only tool calls is a turn too), not inside a sub-agent (a sidechain entry or a
//           sub-agent's file). Injected instructions, summaries, notices (an interrupt), names and
//           unclaimed output are entries, not turns (isTurn).
// Tool call one call a reply made (an unclaimed output is not a call).
// Tokens    counted once per reply, from the reply's final usage (a reply streamed over several
//           lines reports its usage so far on each: the last line's is the whole), in one unit:
//           input not served from cache, output (with thinking), cache write, cache read. Usage a
//           file reports that no reply claims (an agent that writes it once per session: a
//           settings or state file, a session row) is the session's (FileFacts.unclaimed_tokens,
//           added by show as the SQL views add it).
import { countTurns, isSaid, isTurn, titleOf, type FileFacts, type Tokens, type Turn } from './turns';

export { countTurns, isSaid, isTurn };

/** A turn as brain stats counts it: a turn (isTurn) of a main conversation. */
export function isMainTurn(t: Pick<Turn, 'role' | 'sidechain'>, session: { subagent: boolean | number }): boolean {
  return isTurn(t) && !t.sidechain && !session.subagent;
}

/** A session as every count counts it: not a sub-agent's, with at least one turn. */
export function isCountedSession(s: { subagent: boolean | number; turns: number }): boolean {
  return !s.subagent && s.turns > 0;
}

/** The tool calls of an entry: those a reply made (unclaimed output is not a call). */
export function toolCallsOf(t: { role: Turn['role']; tools: readonly unknown[] }): number {
  return t.role === 'assistant' ? t.tools.length : 0;
}

/**
 * A session's facts from its generations' (oldest first): a rewrite can cut the newest generation's
 * first line (the session's id, working folder and start), so those are the oldest generation that
 * has them; the start is the earliest, the end the latest; the title the newest generation's.
 */
export function sessionFacts(gens: readonly FileFacts[]): FileFacts | null {
  if (gens.length === 0) return null;
  const newest = gens[gens.length - 1];
  const first = <K extends 'native_session' | 'parent_session' | 'cwd'>(k: K): string | null => gens.find((g) => g[k])?.[k] ?? null;
  const times = (k: 'started' | 'ended') => gens.map((g) => g[k]).filter((x): x is string => !!x).sort();
  const ends = times('ended');
  return {
    ...newest,
    native_session: first('native_session'),
    parent_session: first('parent_session'),
    cwd: first('cwd'),
    started: times('started')[0] ?? null,
    ended: ends[ends.length - 1] ?? null,
    subagent: gens.some((g) => g.subagent),
  };
}

/** A prompt that is only a slash command ("/mode", "/model opus"): a turn, but no title while a
 * real prompt follows (the session is titled by what the person asked). */
export function isCommandPrompt(text: string): boolean {
  const t = titleOf(text, 200);
  return /^\/[A-Za-z][\w:.-]*(\s|$)/.test(t) && t.split(' ').length <= 4;
}

/** The prompt a session is titled by: the first real one of the main conversation, else the first
 * command, else a sub-agent's (the index keeps the least key: sub-agent, command, position). */
export function titleKey(t: { n: number; sidechain: boolean; text: string }): number {
  return (t.sidechain ? 2 ** 31 : 0) + (isCommandPrompt(t.text) ? 2 ** 30 : 0) + t.n;
}

/** The usage figures an agent writes, as they are written; `tokens` turns them into the one unit. */
export interface RawUsage {
  /** Input tokens as written. */
  input?: number;
  /** Whether `input` includes the cached part (some agents write it so) or not. */
  inputIncludesCached?: boolean;
  /** Input served from cache. */
  cached?: number;
  /** Input written to the cache. */
  cacheWrite?: number;
  output?: number;
  /** Thinking tokens written apart from output. */
  thoughts?: number;
  /** Tool-prompt tokens written apart from input. */
  tool?: number;
}

const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** One reply's tokens in the one unit. */
export function tokens(u: RawUsage): Tokens {
  const cached = n(u.cached);
  return {
    input: n(u.input) - (u.inputIncludesCached ? cached : 0) + n(u.tool),
    output: n(u.output) + n(u.thoughts),
    cache_creation: n(u.cacheWrite),
    cache_read: cached,
  };
}

/** The sum of two usages (a reply whose usage is written in steps). */
export function addTokens(a: Tokens | null, b: Tokens): Tokens {
  if (!a) return { ...b };
  return { input: a.input + b.input, output: a.output + b.output, cache_creation: a.cache_creation + b.cache_creation, cache_read: a.cache_read + b.cache_read };
}

/**
 * Context a harness writes as a user message (instruction files, environment, session context,
 * skills, permissions): instructions, never a prompt, a title or a turn. One pattern for every
 * agent: none of these is how a person starts a message. Anchored at the message's start.
 */
export const INJECTED_CONTEXT_SOURCE =
  '^\\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\\.md instructions|<permissions instructions>|<collaboration_mode>|<personality|<skills?[\\s>_]|<user_shell_command>|<turn_aborted>|<subagent_notification>|<apps_instructions>|<session_context>)';
export const INJECTED_CONTEXT = new RegExp(INJECTED_CONTEXT_SOURCE);

/** A harness notice written as a user message (an interrupt, a command caveat): an entry, not a turn. */
export const NOTICE_SOURCE = '^\\s*(\\[Request interrupted by user[^\\]]*\\]|<local-command-caveat>)';
export const NOTICE = new RegExp(NOTICE_SOURCE);

/** Output of a command the user ran, written as a user message: unclaimed tool output, not a turn. */
export const COMMAND_OUTPUT_SOURCE = '^\\s*<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>';
export const COMMAND_OUTPUT = new RegExp(COMMAND_OUTPUT_SOURCE);

/** The rules the SQL views read ({{truth NAME}}), as regular expressions DuckDB's RE2 takes. */
export const SQL_RULES: Record<string, string> = {
  injected_context: INJECTED_CONTEXT_SOURCE,
  notice: NOTICE_SOURCE,
  command_output: COMMAND_OUTPUT_SOURCE,
};

/** {{truth NAME}} -> SQL_RULES[NAME] as an SQL string literal. */
export function expandTruth(sql: string, where: string): string {
  return sql.replace(/\{\{truth ([a-z_]+)\}\}/g, (_m, name: string) => {
    const v = SQL_RULES[name];
    if (v === undefined) throw new Error(`${where}: {{truth ${name}}} names no rule of src/core/truth.ts`);
    return `'${v.replace(/'/g, "''")}'`;
  });
}
