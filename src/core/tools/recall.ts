// The recall tools of the front door that read the floor: search, read_session, cite and
// verify_citation. Each validates its input against the core's declared schema, sends another
// machine's request to the store, and fits its answer to the caller's budget, each fact still
// carrying its citation. They load no cache: `brain search` (its own small bundle) enters here.
import { BrainError } from '../errors';
import {
  CITE_INPUT_SCHEMA,
  READ_INPUT_SCHEMA,
  RECALL_TOOLS,
  SEARCH_INPUT_SCHEMA,
  VERIFY_INPUT_SCHEMA,
  validateInput,
  type CiteInput,
  type ReadInput,
  type ReadOutput,
  type SearchInput,
  type SearchOutput,
  type ToolName,
  type TurnView,
  type VerifyInput,
} from '../recall';
import { searchAllWords } from '../recall/words-search';
import { callerSession } from '../harness/caller';
import { citeEverywhere, readEverywhere, searchEverywhere, verifyEverywhere } from '../remote/everywhere';
import { enter, size, withStore, type ToolContext, type ToolDef } from './door';

export function core(name: ToolName): { title: string; description: string } {
  const t = RECALL_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`the recall core declares no ${name}`);
  return { title: t.title, description: t.description };
}

// ---------------------------------------------------------------- search

export interface McpSearchOutput extends SearchOutput {
  /** The session left out as the caller's own, and how it was known. */
  skipped: { session: string; source: string } | null;
  /** Set when hits were dropped to fit the answer in a model's context. */
  note?: string;
}

/** The query with the caller's own session left out: an explicit skip wins (an empty one leaves
 * nothing out); else the session the front end, the request's _meta or the environment names. */
function leaveOutCaller(i: SearchInput, ctx: ToolContext): { q: SearchInput; skipped: McpSearchOutput['skipped'] } {
  const q: SearchInput = withStore({ ...i }, ctx);
  if (i.skip !== undefined) {
    if (i.skip.trim()) return { q, skipped: { session: i.skip.trim(), source: 'argument skip' } };
    delete q.skip;
    return { q, skipped: null };
  }
  const c = ctx.caller !== undefined ? ctx.caller : callerSession(ctx.callerEnv ?? {}, ctx.meta);
  if (c) q.skip = c.session;
  return { q, skipped: c };
}

async function runSearch(input: unknown, ctx: ToolContext): Promise<McpSearchOutput> {
  const i = validateInput<SearchInput>(input, SEARCH_INPUT_SCHEMA);
  const { q, skipped } = leaveOutCaller(i, ctx);
  const one = (x: SearchInput) => searchEverywhere(x, ctx.env, { index: ctx.index, keepOpen: ctx.keepOpen });
  const words = ctx.words && ctx.words.length > 1 ? ctx.words : null;
  const r: McpSearchOutput = { ...(await (words ? searchAllWords(words, q, one) : one(q))), skipped };
  if (size(r) > ctx.budget) {
    // Keep the best hits whole; a model asks again with filters or a narrower term.
    const all = r.hits.length;
    while (r.hits.length > 1 && size(r) > ctx.budget) r.hits.pop();
    r.note = `showing ${r.hits.length} of ${all} listed sessions to fit the answer; narrow the term, or filter by agent, project, machine or since`;
  }
  return r;
}

// ---------------------------------------------------------------- read_session

export interface McpReadOutput extends ReadOutput {
  /** The turns in this answer ("A..B"), or null when the range held none. */
  range: string | null;
  /** Pass as `turns` to read on; null when the asked range is done. */
  next: string | null;
  note?: string;
}

function cutText(t: TurnView, keep: number): TurnView {
  if (t.text.length <= keep) return t;
  return { ...t, text: `${t.text.slice(0, keep)}… (${t.text.length - keep} more characters; the citation covers the whole turn)` };
}

/** Whole turns, in order, while they fit; the first one always goes in (cut if it alone is too big). */
function fitTurns(out: McpReadOutput, asked: TurnView[], budget: number): void {
  // No budget (the CLI, the editor's own views): every turn, none measured.
  if (budget >= Number.MAX_SAFE_INTEGER) {
    out.turns = [...asked];
    return;
  }
  let used = size(out) + 200;
  for (const t of asked) {
    const s = size(t) + 1;
    if (out.turns.length > 0 && used + s > budget) break;
    if (out.turns.length === 0 && used + s > budget) {
      const cut = cutText(t, Math.max(1000, budget - used - (s - t.text.length) - 200));
      out.turns.push(cut);
      used += size(cut) + 1;
      if (cut !== t) out.note = `turn ${t.n}'s text was cut to fit; read the cited lines for all of it`;
      continue;
    }
    out.turns.push(t);
    used += s;
  }
}

async function runRead(input: unknown, ctx: ToolContext): Promise<McpReadOutput> {
  const i = validateInput<ReadInput>(input, READ_INPUT_SCHEMA);
  const r = await readEverywhere(withStore(i, ctx), ctx.env, { index: ctx.index, keepOpen: ctx.keepOpen });
  const asked = r.turns;
  const out: McpReadOutput = { ...r, turns: [], range: null, next: null };
  fitTurns(out, asked, ctx.budget);
  if (out.turns.length > 0) {
    // Ranges count the newest generation's turns: an entry rewritten away goes with the one it follows.
    const at = (t: TurnView) => (t.rewritten_away ? Math.max(1, t.rewritten_away.after) : t.n);
    const first = at(out.turns[0]);
    const last = at(out.turns[out.turns.length - 1]);
    out.range = `${first}..${last}`;
    const rest = asked.slice(out.turns.length);
    if (rest.length > 0) {
      const end = at(asked[asked.length - 1]);
      out.next = end >= r.total ? `${at(rest[0])}..` : `${at(rest[0])}..${end}`;
    }
  } else out.note = `no turns in that range: the session has ${r.total} turns`;
  return out;
}

// ---------------------------------------------------------------- the table

export const RECALL_DEFS: ToolDef[] = [
  {
    name: 'search',
    ...core('search'),
    description: `${core('search').description} The calling session is left out when the harness names it (or pass skip).`,
    inputSchema: SEARCH_INPUT_SCHEMA,
    run: runSearch,
  },
  {
    name: 'read_session',
    ...core('read_session'),
    description: `${core('read_session').description} Long sessions come in pages: pass the answer's "next" as turns to read on.`,
    inputSchema: READ_INPUT_SCHEMA,
    run: runRead,
  },
  {
    name: 'cite',
    ...core('cite'),
    inputSchema: CITE_INPUT_SCHEMA,
    run: async (input, ctx) => citeEverywhere(withStore(validateInput<CiteInput>(input, CITE_INPUT_SCHEMA), ctx), ctx.env),
  },
  {
    name: 'verify_citation',
    ...core('verify_citation'),
    inputSchema: VERIFY_INPUT_SCHEMA,
    run: async (input, ctx) => verifyEverywhere(withStore(validateInput<VerifyInput>(input, VERIFY_INPUT_SCHEMA), ctx), ctx.env),
  },
];

export type RecallToolName = 'search' | 'read_session' | 'cite' | 'verify_citation';

/** A floor-reading tool through the front door (enter): what `brain search/show/cite` call, and
 * what callTool does for these names. */
export async function callRecall(name: RecallToolName, input: unknown, ctx: ToolContext): Promise<unknown> {
  const tool = RECALL_DEFS.find((t) => t.name === name);
  if (!tool) throw new BrainError('usage', `unknown tool "${name}"`);
  return enter(tool, input, ctx);
}
