// The front door's sql tool: one read-only DuckDB statement over this machine's cache, in a
// `brain sql` child where the CLI is beside this bundle, its answer fitted to the byte cap. Only
// this tool loads the cache (a native module), so it lives apart from the floor-reading tools.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { layout } from '../home';
import { BrainError } from '../errors';
import { validateInput } from '../recall';
import { SQL_INPUT_SCHEMA, rowsByColumn } from '../recall/types';
import type * as CacheModule from '../cache';
import type * as ReadonlyModule from '../cache/readonly';
import { sqlLimits } from '../sqllimits';
import { registry } from '../agents';
import type { ToolContext, ToolDef } from './door';

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

export const SQL_TOOL: ToolDef = {
  name: 'sql',
  title: 'Query the session cache (SQL)',
  description:
    `Run one read-only DuckDB SELECT over this machine's session cache: derived.messages (msg_id, agent, session_id, role, model, text, event_time, is_sidechain: a sub-agent message, parent_session, …), derived.sessions (one row per session: machine_id, agent, session_id, project, first_event, …), derived.files (each recorded file of a session, with its file_id, abs_path and lake_path), derived.tool_calls, derived.usage, the dialect views ${registry().dialectViews()}, and floor.* (raw lines with their citation columns). Rows and bytes are capped (a long value is cut and ends with "…[cut <size>]"; read it in parts with substr), a statement is stopped after 30 s (config.toml [sql] timeout), and one that writes is refused. Use it for counts per day, project, model or machine.`,
  inputSchema: SQL_INPUT_SCHEMA,
  run: runSql,
};
