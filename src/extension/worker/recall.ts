// The recall tools as the worker answers them (LM tools, Search Sessions, Verify/Copy Citation):
// the core's front door (core/tools) under the core's names, with what only the editor knows (the
// chat that asks, the store its Sessions view reads). All read-only.
import type { Env } from '../../core/home';
import type { ToolName } from '../../core/recall';
import type { SqlResult } from '../../core/cache';
import type { FloorView } from '../../core/recall/floorview';
import { callTool, type ToolContext } from '../../core/tools';
import type { RecallResults } from '../protocol';
import { MAX_OUTPUT } from '../recall';

export interface RecallCtx {
  home: string;
  view: FloorView;
  env: Env;
  /** Runs one read-only query over the DuckDB cache (the worker runs `brain sql` in a child
   * process, so DuckDB never runs inside the editor's process). */
  sql: (query: string, limit: number) => Promise<SqlResult>;
}

/** Who asks: a chat (a language-model tool call, with the chat session the editor names, left out
 * of its own search and its answer fitted to a model's context), or one of the editor's views. */
export interface RecallAsker {
  chat?: { session?: string };
}

/** One recall tool's answer, through the core's front door (core/tools): validated, the caller's
 * session left out, another machine's request sent to the store, masked, fitted to the budget.
 * The editor offers no way to reveal; the user's own terminal does (`brain show --reveal`). */
export async function recall<T extends ToolName>(tool: T, input: unknown, ctx: RecallCtx, asker: RecallAsker = {}): Promise<RecallResults[T]> {
  const chat = asker.chat;
  const tctx: ToolContext = {
    env: ctx.env,
    home: ctx.home,
    // The worker lives as long as the window: its turn index stays open between searches.
    index: 'live',
    keepOpen: true,
    caller: chat?.session ? { session: chat.session, source: 'the chat that called the tool' } : null,
    budget: chat ? MAX_OUTPUT : Number.MAX_SAFE_INTEGER,
    sql: ctx.sql,
    localMachine: ctx.view?.machine,
    storeDir: () => ctx.view?.storeDir(),
  };
  return (await callTool(tool, input, tctx)) as RecallResults[T];
}

