// The recall front door's shared part: what a caller hands it (ToolContext), what a tool is
// (ToolDef), and the one way a tool's answer goes out (enter): run (the tool validates its input,
// leaves the caller's session out, picks the store and fits the budget), then mask secrets.
// The tools live beside it: recall.ts (search, read_session, cite, verify_citation) and sql.ts.
import type { Env } from '../home';
import type { JsonSchema, ToolName } from '../recall';
import type { IndexUse, SQL_INPUT_SCHEMA } from '../recall/types';
import type { Caller } from '../harness/caller';
import type { SqlResult } from '../cache';
import { TEXT_TOOLS, maskAnswer } from '../secrets/redact';
import { scanPending } from '../secrets/scan';

export interface ToolContext {
  /** The environment the core reads with (BRAIN_HOME). */
  env: Env;
  /** How search and read_session use the turn index ('snapshot' in brain mcp, so nothing is
   * written: neither the index nor the secret guard's pass over new bytes). */
  index: IndexUse;
  /** The environment the server was started with (where the harness names its session). */
  callerEnv?: Env;
  /** Who is calling, when the front end knows it itself (the editor's chat session); null: nobody
   * to leave out (the editor's own views). Unset: from meta and callerEnv. */
  caller?: Caller | null;
  /** Keep the turn index open between calls (a long-lived worker). */
  keepOpen?: boolean;
  /** Runs the SQL tool elsewhere (the editor runs `brain sql` in a child process, so DuckDB never
   * loads in its own); by default the cache is opened here, read-only. */
  sql?: (query: string, limit: number) => Promise<SqlResult>;
  /** This machine's name and the store folder a request for another machine is read from (the
   * editor: what its Sessions view lists can always be read and verified). */
  localMachine?: string;
  storeDir?: () => string | null | undefined;
  /** --store: the default store folder for every call that names none. */
  store?: string;
  /** BRAIN_HOME, for the SQL cache and the secret guard. */
  home: string;
  /** Largest result text, in characters. */
  budget: number;
  /** The request's _meta (some harnesses send the calling thread there). */
  meta?: Record<string, unknown>;
  /** Aborted when the client cancels the call or goes away. */
  signal?: AbortSignal;
  /** Several words of a command line (`brain search a b`): search finds the sessions holding each
   * of them, the term being the words joined. MCP and the editor pass one term, a phrase. */
  words?: string[];
  /** The answer in clear: the CLI's --reveal, which it allows only to its user's own terminal.
   * No agent-facing front end sets it. */
  reveal?: boolean;
}

export interface ToolDef {
  /** The core's name for the tool (TOOL_NAMES), offered as it is. */
  name: ToolName;
  title: string;
  description: string;
  inputSchema: JsonSchema | typeof SQL_INPUT_SCHEMA;
  run(input: unknown, ctx: ToolContext): Promise<unknown>;
}

/** The store a call reads: its own, else the server's --store, else (for another machine's session
 * or citation) the store the editor knows. */
export function withStore<T extends { store?: string }>(i: T, ctx: ToolContext): T {
  if (i.store !== undefined) return i;
  if (ctx.store) return { ...i, store: ctx.store };
  const o = i as { machine?: string; citation?: { machine?: string } };
  const other = o.machine ?? o.citation?.machine;
  if (other && ctx.localMachine && other !== ctx.localMachine) {
    const store = ctx.storeDir?.();
    if (store) return { ...i, store };
  }
  return i;
}

export const size = (v: unknown) => JSON.stringify(v).length;

/** One tool's call: its input checked by the tool, the answer masked (it goes on to a model
 * provider, a view or a pipe; only ctx.reveal leaves it in clear) with "masked": N beside its
 * fields, and fitted to ctx.budget by the tool. */
export async function enter(tool: ToolDef, input: unknown, ctx: ToolContext): Promise<unknown> {
  const out = await tool.run(input ?? {}, ctx);
  if (!TEXT_TOOLS.has(tool.name)) return out;
  if (ctx.reveal) return { ...(out as object), masked: 0 };
  // A caller that writes nothing (brain mcp) leaves the guard's pass to the recorder; the detector
  // still runs over the answer.
  if (ctx.index !== 'snapshot') await guardPass(ctx.home);
  return maskAnswer(ctx.home, out);
}

/** Bytes captured since the secret guard's last pass, scanned before an answer is masked (cheap
 * when nothing is new; a scan already running is not waited for): a secret cut short in a title or
 * snippet is only recognised from the guard's findings on the whole line. */
export async function guardPass(home: string): Promise<void> {
  await scanPending(home, { waitMs: 0 }).catch(() => undefined);
}
