// The recall front door: every way an agent, the editor or a person calls a recall tool (brain mcp,
// the editor's language-model tools and views, brain search/show/cite) comes through here, which
// does, once: validate the input against the core's declared schema, leave the caller's own session
// out of search, send another machine's request to the store, run, mask secrets in what goes out,
// and fit the answer to the caller's budget, each fact still carrying its citation. Everything
// here reads. The shared part is door.ts; the tools are recall.ts and sql.ts.
import { BrainError } from '../errors';
import { enter, type ToolContext, type ToolDef } from './door';
import { RECALL_DEFS } from './recall';
import { SQL_TOOL } from './sql';

export { enter, withStore, type ToolContext, type ToolDef } from './door';
export { callRecall, type McpReadOutput, type McpSearchOutput, type RecallToolName } from './recall';
export type { McpSqlOutput } from './sql';

/** About 10k tokens of JSON: well under what harnesses accept from one tool (25k tokens at the strictest). */
export const DEFAULT_BUDGET = 40_000;

/** Every tool only reads, touches nothing outside the floor and its caches, and returns the same
 * answer for the same floor. Some harnesses run tools marked so without asking. */
export const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const TOOLS: ToolDef[] = [...RECALL_DEFS, SQL_TOOL];

export function toolByName(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The one way in: the tool by its core name, its input checked by the tool, the answer masked
 * (it goes on to a model provider or a view; only the CLI's --reveal on a terminal leaves it in
 * clear) and fitted to ctx.budget. */
export async function callTool(name: string, input: unknown, ctx: ToolContext): Promise<unknown> {
  const tool = toolByName(name);
  if (!tool) throw new BrainError('usage', `unknown tool "${name}"`, `the tools are ${TOOLS.map((t) => t.name).join(', ')}`);
  return enter(tool, input, ctx);
}

/** A BrainError of the 'usage' kind is the caller's mistake (a bad argument), not the tool's. */
export function isUsage(e: unknown): e is BrainError {
  return e instanceof BrainError && e.code === 'usage';
}
