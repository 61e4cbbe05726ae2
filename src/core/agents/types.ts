// What every agent folder declares (src/core/agents/<lane>/index.ts): who it is (lane, names),
// where its session files live (with the agent's own env override), how a file becomes turns (its
// dialect), its SQL views (views.sql beside it), how a project is named from a path, and, for an
// agent brain can set up, its harness (hooks, MCP, skill). The registry (./index.ts) lists them.
import type { Env } from '../home';
import type { Dialect } from '../turns';
import type { AgentHarness } from './harness';
import type { DbOrigin } from './kit/sqlite';

export interface OriginRoot {
  /** Absolute directory that is walked. */
  dir: string;
  /** Prefix inside lake/<lane>/ for files under this root ('' for none), so two roots never collide. */
  lakePrefix: string;
  /** The prefix this root's files had before it had its own (a floor written then keeps an origin
   * it already holds under that name, so nothing is recorded again). */
  legacyPrefix?: string;
  /** Relative path (with '/' separators, relative to dir) of a file: is it a session file? */
  include(rel: string): boolean;
  /** Only the files directly in `dir` are looked at, never its folders (a project folder that
   * holds an agent's file beside the user's own tree: walking or watching it all would cost a
   * repository's worth of files). */
  flat?: boolean;
}

/** Where an agent's session files are: what each paths.ts declares. */
export interface AgentFiles {
  roots(env: Env): OriginRoot[];
  /** Session id from a path relative to the lane (lake-relative, without the generation suffix). */
  sessionOf(rel: string): string;
  /** Files the agent rewrites whole on every update (a legacy .json): their versions are captured
   * as generations at most once per rewrite-quiet period while they keep changing. */
  rewritesWhole?(rel: string): boolean;
  /** SQLite databases holding sessions (see kit/sqlite.ts): each is recorded as row records, one
   * lake file per (database, session), lake/<lane>/<lakePrefix><session>.rows.jsonl. An agent with
   * only databases returns [] from roots(). */
  databases?(env: Env): DbOrigin[];
  /** Files that are parts of one conversation (an agent that writes one file per event): the key
   * they share (lane-relative, like a path). Parts are counted, shown and searched as the one file
   * they make up: their turns together are the session's, in the order of their numbers. Null (or
   * no function) for a file that is a whole conversation on its own. */
  partOf?(rel: string): string | null;
  /** A file that gathers several sessions, one per section (Turn.section): the id of the section
   * keyed `section` of the file whose own session is `session`. A section keeps its key as the
   * file grows and in every generation of it, so its id never changes. */
  sectionId?(session: string, section: number): string;
  /** The inverse of sectionId: the file's session and the section an id names (null: none). */
  sectionOfId?(id: string): { session: string; section: number } | null;
  /** A session can be written whole in more than one file (a second form, an archived copy): show
   * reads the largest, and the cache counts that one alone (dialects.other_forms in
   * sql/10_dialects.sql), re-deriving every form of a session when one of them changes. */
  forms?: boolean;
}

export interface AgentDef<L extends string = string> extends AgentFiles {
  /** Short code: the lake folder (lake/<lane>/), the manifest's lane, the dialect view
   * dialects.v_<lane>. Lowercase letters, digits and '_'. */
  lane: L;
  /** Long name: the manifest's `agent` field and the agent column of derived.*. */
  agent: string;
  /** Display name (status, the sessions view, help texts). */
  label: string;
  /** More names that --agent and the tools' agent filter accept (lane, agent and label always are). */
  aliases: readonly string[];
  /** Environment variables that move its folders (listed in help, pinned into the timer unit). */
  env: readonly string[];
  /** How its lake files become turns. */
  dialect: Dialect;
  /** Its views.sql: relative to src/core/agents (dist/agents in a bundle), or absolute. It defines
   * dialects.v_<lane>, derived.v_messages_<lane> and, when the agent has them, derived.v_sessions_,
   * v_tool_calls_ and v_usage_lines_<lane> (see sql/20_derived.sql for their columns). */
  views: string;
  /** A project label from a lane-relative path when the transcript names no cwd (agents that fold
   * the cwd into a folder name, lossily: a label, not a path to open). */
  projectFromPath?(rel: string): string | null;
  /** brain init / doctor: hooks, MCP registration and the skill, for an agent brain can set up. */
  harness?: AgentHarness;
  /** The agent's own CLI, when it installs from npm and can run against a model stand-in: a live
   * test (test/agents/<lane>.test.ts) runs the pinned version (scripts/setup/40-agents.mjs) and
   * `npm run test:agents-latest` the newest, so a format change is caught before users meet it. */
  cli?: { npm: string; bin: string };
  /** An agent that deletes its own sessions after a while: the retention guard warns about those
   * due soon that are not yet safe in the store. */
  retention?: AgentRetention;
}

export interface AgentRetention {
  /** The agent's own name for the setting, as messages quote it (e.g. a settings key). */
  setting: string;
  /** Days a session file is kept after its last change, where that is read from, and what was
   * wrong with the setting when it could not be used (the agent's default is assumed then). */
  period(env: Env): { days: number; file: string; problem?: string };
  /** The session a lane-relative file belongs to (a sub-agent's files belong to their parent's). */
  sessionKey(rel: string): string;
}

/** Keeps the literal lane type, so the registry can derive the Lane union from its list. */
export function defineAgent<const L extends string>(a: AgentDef<L>): AgentDef<L> {
  return a;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Session id = the last UUID in the file name, else the file name without its extensions. */
export function sessionFromName(rel: string): string {
  const base = rel.split('/').pop() ?? rel;
  const all = base.match(new RegExp(UUID.source, 'gi'));
  if (all && all.length > 0) return all[all.length - 1].toLowerCase();
  return base.replace(/(\.meta)?\.(jsonl|json|txt)$/i, '');
}

/** The first folder of a lane-relative path, or null for a file at the top. */
export function firstFolder(rel: string): string | null {
  const i = rel.indexOf('/');
  return i > 0 ? rel.slice(0, i) : null;
}
