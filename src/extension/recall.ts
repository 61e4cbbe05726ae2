// The recall tools as the worker answers them (LM tools, Search Sessions, Verify/Copy Citation):
// each is the core's function under the core's name (TOOL_NAMES), called with the input as the
// model or the view gave it. All read-only; the inputs are the core's declared schemas, unchanged.
import { BrainError } from '../core/errors';
import type { Env } from '../core/home';
import { SQL_INPUT_SCHEMA, validateInput, TOOL_NAMES, type ToolName } from '../core/recall';
import type { SqlResult } from '../core/cache';
import { rowsByColumn } from '../core/recall/types';
import { sqlLimits } from '../core/sqllimits';
import type { FloorView } from '../core/recall/floorview';
import type { RecallResults } from './protocol';
import { TEXT_TOOLS, maskAnswer } from '../core/secrets/redact';
import { citeEverywhere, readEverywhere, searchEverywhere, verifyEverywhere } from '../core/remote/everywhere';

export interface RecallCtx {
  home: string;
  view: FloorView;
  env: Env;
  /** Runs one read-only query over the DuckDB cache (the worker runs `brain sql` in a child
   * process, so DuckDB never runs inside the editor's process). */
  sql: (query: string, limit: number) => Promise<SqlResult>;
}

/** One recall tool's answer, typed by its name (protocol.ts, RecallResults). */
export async function recall<T extends ToolName>(tool: T, input: unknown, ctx: RecallCtx): Promise<RecallResults[T]> {
  // Masked always: the answer goes to a model provider (LM tools) or the editor's views. The editor
  // offers no way to reveal; the user's own terminal does (`brain show --reveal`).
  const out = await answer(tool, input, ctx);
  return (TEXT_TOOLS.has(tool) ? await maskAnswer(ctx.home, out) : out) as unknown as RecallResults[T];
}

/** Characters of JSON an editor tool returns at most: about 8k tokens. */
export const MAX_OUTPUT = 32_000;

/** Trims a result to MAX_OUTPUT, dropping whole list items from the end and saying so. */
export function sized(result: unknown): string {
  let text = JSON.stringify(result, null, 1);
  if (text.length <= MAX_OUTPUT) return text;
  const r = result as Record<string, unknown>;
  for (const key of ['hits', 'turns', 'rows']) {
    const list = r?.[key];
    if (!Array.isArray(list)) continue;
    let n = list.length;
    while (n > 1 && text.length > MAX_OUTPUT) {
      n = Math.max(1, Math.floor(n * 0.7));
      text = JSON.stringify({ ...r, [key]: list.slice(0, n), truncated: `${list.length - n} more ${key} left out to fit; narrow the request` }, null, 1);
    }
  }
  return text.length <= MAX_OUTPUT ? text : `${text.slice(0, MAX_OUTPUT)}\n… (cut to ${MAX_OUTPUT} characters; narrow the request)`;
}

/** The most bytes brain_sql asks of `brain sql`: the editor's tool answers are MAX_OUTPUT
 * characters, pretty-printed, so a bigger answer would only be cut again (and mid-JSON). */
export const LM_SQL_MAX_BYTES = 24_000;

/** The `brain sql` command line brain_sql runs, and how long to let it run: the statement's own
 * limit ([sql] timeout, BRAIN_SQL_TIMEOUT; the child stops it) plus time to bring the cache up to
 * date first. */
export function sqlCommand(query: string, limit: number, home: string, env: Env): { args: string[]; killAfterMs: number } {
  const lim = sqlLimits(home, env);
  const maxBytes = Math.min(lim.maxBytes, LM_SQL_MAX_BYTES);
  return {
    args: ['sql', '--json', '--limit', String(limit), '--max-bytes', String(maxBytes), '--timeout', `${lim.timeoutMs}ms`, '--', query],
    killAfterMs: lim.timeoutMs === 0 ? 24 * 3600_000 : lim.timeoutMs + 10 * 60_000,
  };
}

async function answer(tool: ToolName, input: unknown, ctx: RecallCtx): Promise<RecallResults[ToolName]> {
  let i = (input ?? {}) as never;
  // Another machine's session or citation is read from the store (a local store folder) unless the
  // caller named a store: what the Sessions view shows can then always be read and verified.
  const o = (input ?? {}) as { machine?: string; store?: string; citation?: { machine?: string } };
  const other = o.machine ?? o.citation?.machine;
  if (other && other !== ctx.view.machine && !o.store && tool !== 'sql') {
    const store = ctx.view.storeDir();
    if (store) i = { ...o, store } as never;
  }
  switch (tool) {
    case 'search':
      // The worker lives as long as the window: its turn index stays open between searches.
      return searchEverywhere(i, ctx.env, { index: 'live', keepOpen: true });
    case 'read_session':
      return readEverywhere(i, ctx.env);
    case 'cite':
      return citeEverywhere(i, ctx.env);
    case 'verify_citation':
      return verifyEverywhere(i, ctx.env);
    case 'sql': {
      const q = validateInput<{ query: string; limit?: number }>(input, SQL_INPUT_SCHEMA);
      const r = await ctx.sql(q.query, q.limit ?? 100);
      return { ...rowsByColumn(r), ...(r.note ? { note: r.note } : {}) };
    }
    default:
      throw new BrainError('no-tool', `unknown tool ${tool}`, `use one of ${TOOL_NAMES.join(', ')}`);
  }
}
