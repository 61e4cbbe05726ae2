// The recall front door: every way an agent or the editor calls a recall tool (brain mcp, the
// editor's language-model tools and views) comes through callTool, which does, once: validate the
// input against the core's declared schema, leave the caller's own session out of search, send
// another machine's request to the store, run, mask secrets in what goes out, and fit the answer to
// the caller's budget, each fact still carrying its citation. Everything here reads.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { layout, type Env } from '../home';
import { BrainError } from '../errors';
import {
  CITE_INPUT_SCHEMA,
  READ_INPUT_SCHEMA,
  RECALL_TOOLS,
  SEARCH_INPUT_SCHEMA,
  VERIFY_INPUT_SCHEMA,
  validateInput,
  type CiteInput,
  type JsonSchema,
  type ReadInput,
  type ReadOutput,
  type SearchInput,
  type SearchOutput,
  type ToolName,
  type TurnView,
  type VerifyInput,
} from '../recall';
import { SQL_INPUT_SCHEMA, rowsByColumn, type IndexUse } from '../recall/types';
import { callerSession } from '../harness/caller';
import { citeEverywhere, readEverywhere, searchEverywhere, verifyEverywhere } from '../remote/everywhere';
import type * as CacheModule from '../cache';
import type * as ReadonlyModule from '../cache/readonly';
import { sqlLimits } from '../sqllimits';
import type { Caller } from '../harness/caller';
import type { SqlResult } from '../cache';
import { TEXT_TOOLS, maskAnswer } from '../secrets/redact';
import { registry } from '../agents';

/** About 10k tokens of JSON: well under what harnesses accept from one tool (25k tokens at the strictest). */
export const DEFAULT_BUDGET = 40_000;

export interface ToolContext {
  /** The environment the core reads with (BRAIN_HOME). */
  env: Env;
  /** How search and read_session use the turn index ('snapshot' in brain mcp, so nothing is written). */
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
  /** BRAIN_HOME, for the SQL cache. */
  home: string;
  /** Largest result text, in characters. */
  budget: number;
  /** The request's _meta (some harnesses send the calling thread there). */
  meta?: Record<string, unknown>;
  /** Aborted when the client cancels the call or goes away. */
  signal?: AbortSignal;
}

export interface ToolDef {
  /** The core's name for the tool (TOOL_NAMES), offered as it is. */
  name: ToolName;
  title: string;
  description: string;
  inputSchema: JsonSchema | typeof SQL_INPUT_SCHEMA;
  run(input: unknown, ctx: ToolContext): Promise<unknown>;
}

/** Every tool only reads, touches nothing outside the floor and its caches, and returns the same
 * answer for the same floor. Some harnesses run tools marked so without asking. */
export const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function core(name: ToolName): { title: string; description: string } {
  const t = RECALL_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`the recall core declares no ${name}`);
  return { title: t.title, description: t.description };
}

/** The store a call reads: its own, else the server's --store, else (for another machine's session
 * or citation) the store the editor knows. */
function withStore<T extends { store?: string }>(i: T, ctx: ToolContext): T {
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

const size = (v: unknown) => JSON.stringify(v).length;

// ---------------------------------------------------------------- search

export interface McpSearchOutput extends SearchOutput {
  /** The session left out as the caller's own, and how it was known. */
  skipped: { session: string; source: string } | null;
  /** Set when hits were dropped to fit the answer in a model's context. */
  note?: string;
}

async function runSearch(input: unknown, ctx: ToolContext): Promise<McpSearchOutput> {
  const i = validateInput<SearchInput>(input, SEARCH_INPUT_SCHEMA);
  let skipped: McpSearchOutput['skipped'] = null;
  const q: SearchInput = withStore({ ...i }, ctx);
  if (i.skip !== undefined) {
    // An explicit skip wins; an empty one asks to leave nothing out.
    if (i.skip.trim()) skipped = { session: i.skip.trim(), source: 'argument skip' };
    else delete q.skip;
  } else {
    const c = ctx.caller !== undefined ? ctx.caller : callerSession(ctx.callerEnv ?? {}, ctx.meta);
    if (c) {
      q.skip = c.session;
      skipped = c;
    }
  }
  const r: McpSearchOutput = { ...(await searchEverywhere(q, ctx.env, { index: ctx.index, keepOpen: ctx.keepOpen })), skipped };
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

async function runRead(input: unknown, ctx: ToolContext): Promise<McpReadOutput> {
  const i = validateInput<ReadInput>(input, READ_INPUT_SCHEMA);
  const r = await readEverywhere(withStore(i, ctx), ctx.env, { index: ctx.index, keepOpen: ctx.keepOpen });
  const asked = r.turns;
  const out: McpReadOutput = { ...r, turns: [], range: null, next: null };
  // Whole turns, in order, while they fit; the first one always goes in (cut if it alone is too big).
  let used = size(out) + 200;
  for (const t of asked) {
    const s = size(t) + 1;
    if (out.turns.length > 0 && used + s > ctx.budget) break;
    if (out.turns.length === 0 && used + s > ctx.budget) {
      const cut = cutText(t, Math.max(1000, ctx.budget - used - (s - t.text.length) - 200));
      out.turns.push(cut);
      used += size(cut) + 1;
      if (cut !== t) out.note = `turn ${t.n}'s text was cut to fit; read the cited lines for all of it`;
      continue;
    }
    out.turns.push(t);
    used += s;
  }
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

// ---------------------------------------------------------------- sql

export interface McpSqlOutput {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  limit: number;
  /** The answer's byte cap ([sql] max_bytes, BRAIN_SQL_MAX_BYTES). */
  max_bytes: number;
  /** Values cut short to fit; each ends with "…[cut <size>]". */
  cut_values: number;
  /** The cache that answered (this machine's BRAIN_HOME, also with --store). */
  cache: string;
  note?: string;
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

async function runSql(input: unknown, ctx: ToolContext): Promise<McpSqlOutput> {
  const q = validateInput<{ query: string; limit?: number }>(input, SQL_INPUT_SCHEMA);
  if (ctx.sql) {
    const r = await ctx.sql(q.query, q.limit ?? 100);
    return fitRows({ ...rowsByColumn(r), cache: 'brain sql', ...(r.note ? { note: r.note } : {}) }, Math.min(ctx.budget, r.max_bytes || ctx.budget));
  }
  // Loaded on first use: DuckDB is a native module, and only this tool needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cache = require('../cache') as typeof CacheModule;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { precheck } = require('../cache/readonly') as typeof ReadonlyModule;
  precheck(q.query);
  const lim = sqlLimits(ctx.home, ctx.env);
  const limit = q.limit ?? 100;
  // The statement runs in a `brain sql` child: one that DuckDB cannot interrupt (a scalar function
  // building one huge value) would otherwise hold this server, and its memory, until it is done.
  // Where the CLI is not beside this bundle (the server run from source), it runs here.
  const cli = path.join(__dirname, 'cli.js');
  let r: Awaited<ReturnType<typeof cache.readOnlyQuery>>;
  let dbPath: string;
  if (fs.existsSync(cli)) {
    r = await sqlInChild(cli, q.query, { limit, maxBytes: lim.maxBytes, timeoutMs: lim.timeoutMs }, ctx);
    dbPath = layout(ctx.home).duckdb;
  } else {
    // ensure: false — bringing the cache up to date would write it; a recall tool writes nothing.
    const h = await cache.openCache(ctx.home, { readOnly: true, ensure: false, queryMemory: cache.QUERY_MEMORY });
    try {
      // The reader stops at the cap and cuts long values as it reads: the answer is never built
      // whole first, whatever the table holds.
      r = await cache.readOnlyQuery(h.conn, q.query, { limit, maxBytes: lim.maxBytes, timeoutMs: lim.timeoutMs, signal: ctx.signal });
    } finally {
      h.close();
    }
    dbPath = h.path;
  }
  const out: McpSqlOutput = { ...rowsByColumn(r), cache: dbPath };
  const notes: string[] = r.note ? [r.note] : [];
  // The cache is not brought up to date here (that writes); say when the floor has grown since.
  const mtime = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (mtime(layout(ctx.home).manifest) > mtime(dbPath) + 1000) notes.push('the floor has grown since the cache was last updated, so the newest sessions may be missing: `brain sql` or `brain rebuild` updates it');
  if (ctx.store) notes.push('SQL reads this machine\'s cache; search and read_session read the store');
  if (notes.length) out.note = notes.join('; ');
  return fitRows(out, lim.maxBytes);
}

/** The reader left room for the answer's own fields; should they still overflow, the last rows go
 * (each measured once). */
function fitRows(out: McpSqlOutput, max: number): McpSqlOutput {
  let total = bytes(out);
  const all = out.rows.length;
  while (out.rows.length > 1 && total > max) total -= bytes(out.rows.pop()) + 1;
  if (out.rows.length < all) {
    out.truncated = true;
    out.note = `${out.note ? `${out.note}; ` : ''}showing ${out.rows.length} of ${all} rows to fit the answer; select fewer columns, aggregate, or lower limit`;
  }
  return out;
}

/** `brain sql --json --as-is` in a child with an IPC channel (it runs the query and says there
 * when its watchdog gave up), ended when it gives up, when the call is cancelled, or long past its
 * timeout. Its error comes back as the BrainError it printed. */
const running = new Set<ReturnType<typeof spawn>>();
let endsWithServer = false;

function sqlInChild(cli: string, query: string, o: { limit: number; maxBytes: number; timeoutMs: number }, ctx: ToolContext): Promise<Awaited<ReturnType<typeof CacheModule.readOnlyQuery>>> {
  const args = [cli, 'sql', '--json', '--as-is', '--limit', String(o.limit), '--max-bytes', String(o.maxBytes), '--timeout', `${o.timeoutMs}ms`, '--', query];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...ctx.env, BRAIN_HOME: ctx.home } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    // A query outlives nothing: when the server ends (its client went away), so do its children.
    running.add(child);
    if (!endsWithServer) {
      endsWithServer = true;
      process.once('exit', () => {
        for (const c of running) c.kill('SIGKILL');
      });
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let said: string | undefined;
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      // The child holds to its cap; far past it, something is wrong: not read further.
      if (outBytes > o.maxBytes * 4 + (1 << 20)) child.kill('SIGKILL');
      else out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < 64 << 10) err += d.toString('utf8');
    });
    let failed: { code: string; message: string; hint?: string } | undefined;
    child.on('message', (m: { gaveUp?: string; error?: { code: string; message: string; hint?: string } }) => {
      if (m?.error && typeof m.error.code === 'string') failed = m.error;
      if (typeof m?.gaveUp !== 'string') return;
      said = m.gaveUp;
      child.kill('SIGKILL');
    });
    const stop = () => child.kill('SIGKILL');
    ctx.signal?.addEventListener('abort', stop, { once: true });
    const backstop = o.timeoutMs > 0 ? setTimeout(stop, o.timeoutMs + 30_000) : undefined;
    child.on('error', (e) => reject(new BrainError('sql-error', `could not start the query process: ${e.message}`, undefined, { cause: e })));
    child.on('close', (code, signal) => {
      running.delete(child);
      if (backstop) clearTimeout(backstop);
      ctx.signal?.removeEventListener('abort', stop);
      if (code === 0 && !said) {
        try {
          const j = JSON.parse(Buffer.concat(out).toString('utf8')) as Awaited<ReturnType<typeof CacheModule.readOnlyQuery>> & { masked?: number };
          delete j.masked;
          resolve(j);
        } catch (e) {
          reject(new BrainError('sql-error', 'the query process gave an answer that is not JSON', undefined, { cause: e }));
        }
        return;
      }
      if (ctx.signal?.aborted) return reject(new BrainError('sql-cancelled', 'the statement was cancelled before it finished (the caller went away or cancelled it)', 'Ask again.'));
      if (failed && !said) return reject(new BrainError(failed.code, failed.message, failed.hint));
      const text = (said ?? err).replace(/^brain sql:\s*/, '').trim();
      const [msg, ...hint] = text.split('\n');
      const why = msg || (signal ? `the query process ended by ${signal}` : `the query process exited ${code}`);
      reject(new BrainError(code === 2 ? 'usage' : /longer than/.test(why) ? 'sql-timeout' : /more memory|a query may use/.test(why) ? 'sql-memory' : 'sql-error', why, hint.join(' ').trim() || undefined));
    });
  });
}

// ---------------------------------------------------------------- the table

export const TOOLS: ToolDef[] = [
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
  {
    name: 'sql',
    title: 'Query the session cache (SQL)',
    description:
      `Run one read-only DuckDB SELECT over this machine's session cache: derived.messages (msg_id, agent, session_id, role, model, text, event_time, is_sidechain: a sub-agent message, parent_session, …), derived.sessions (one row per session: machine_id, agent, session_id, project, first_event, …), derived.files (each recorded file of a session, with its file_id, abs_path and lake_path), derived.tool_calls, derived.usage, the dialect views ${registry().dialectViews()}, and floor.* (raw lines with their citation columns). Rows and bytes are capped (a long value is cut and ends with "…[cut <size>]"; read it in parts with substr), a statement is stopped after 30 s (config.toml [sql] timeout), and one that writes is refused. Use it for counts per day, project, model or machine.`,
    inputSchema: SQL_INPUT_SCHEMA,
    run: runSql,
  },
];

export function toolByName(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The one way in: the tool by its core name, its input checked by the tool, the answer masked
 * (it goes on to a model provider or a view; nothing here reveals) and fitted to ctx.budget. */
export async function callTool(name: string, input: unknown, ctx: ToolContext): Promise<unknown> {
  const tool = toolByName(name);
  if (!tool) throw new BrainError('usage', `unknown tool "${name}"`, `the tools are ${TOOLS.map((t) => t.name).join(', ')}`);
  const out = await tool.run(input ?? {}, ctx);
  return TEXT_TOOLS.has(tool.name) ? maskAnswer(ctx.home, out) : out;
}

/** A BrainError of the 'usage' kind is the caller's mistake (a bad argument), not the tool's. */
export function isUsage(e: unknown): e is BrainError {
  return e instanceof BrainError && e.code === 'usage';
}
