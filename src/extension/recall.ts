// The recall tools as the worker answers them (LM tools, Search Sessions, Verify/Copy Citation):
// each is the core's function under the core's name (TOOL_NAMES), called with the input as the
// model or the view gave it. All read-only; the inputs are the core's declared schemas, unchanged.
import { BrainError } from '../core/errors';
import type { Env } from '../core/home';
import { SQL_INPUT_SCHEMA, cite, readSession, search, validateInput, verify, TOOL_NAMES, type ToolName } from '../core/recall';
import type { SqlResult } from '../core/cache';
import type { FloorView } from '../core/recall/floorview';
import type { RecallResults } from './protocol';

export interface RecallCtx {
  home: string;
  view: FloorView;
  env: Env;
  /** Runs one read-only query over the DuckDB cache (the worker runs `brain sql` in a child
   * process, so DuckDB never runs inside the editor's process). */
  sql: (query: string, limit: number) => Promise<SqlResult>;
}

/** One recall tool's answer, typed by its name (protocol.ts, RecallResults). */
export function recall<T extends ToolName>(tool: T, input: unknown, ctx: RecallCtx): Promise<RecallResults[T]> {
  return answer(tool, input, ctx) as Promise<RecallResults[T]>;
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
      return search(i, ctx.env);
    case 'read_session':
      return readSession(i, ctx.env);
    case 'cite':
      return cite(i, ctx.env);
    case 'verify_citation':
      return verify(i, ctx.env);
    case 'sql': {
      const q = validateInput<{ query: string; limit?: number }>(input, SQL_INPUT_SCHEMA);
      const r = await ctx.sql(q.query, q.limit ?? 100);
      // Rows as objects keyed by column: what a model reads most easily.
      return { columns: r.columns, rows: r.rows.map((row) => Object.fromEntries(r.columns.map((c, k) => [c.name, row[k]]))), truncated: r.truncated, limit: r.limit };
    }
    default:
      throw new BrainError('no-tool', `unknown tool ${tool}`, `use one of ${TOOL_NAMES.join(', ')}`);
  }
}
