// The reports over the cache (brain stats, brain calls), typed once for the CLI's --json, the MCP
// and the VS Code tools. The SQL is in sql/reports/.
import type { DuckDBConnection } from '@duckdb/node-api';
import { BrainError } from '../errors';
import { openCache, type CacheOptions } from './index';
import { loadSql } from './sqlfiles';

export type StatsBy = 'agent' | 'day' | 'project' | 'machine';
export const STATS_BY: StatsBy[] = ['agent', 'day', 'project', 'machine'];
export const AGENT_NAMES = ['claude-code', 'codex', 'pi', 'cursor-agent'];

export interface Tokens {
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  total: number;
}

export interface StatsRow {
  /** The agent, day (YYYY-MM-DD), project (cwd) or machine; 'total' in the totals row. */
  key: string;
  sessions: number;
  turns: number;
  /** Replies that reported token usage. */
  replies: number;
  tokens: Tokens;
  models: string[];
  tool_calls: number;
  tool_failures: number;
  top_tools: { tool: string; calls: number }[];
}

export interface StatsReport {
  by: StatsBy;
  agent: string | null;
  since: string | null;
  time_zone: string;
  rows: StatsRow[];
  total: StatsRow;
}

export interface ReportOptions extends CacheOptions {
  agent?: string;
  since?: string;
}

function checkFilters(o: ReportOptions): void {
  if (o.agent && !AGENT_NAMES.includes(o.agent)) {
    throw new BrainError('usage', `unknown agent "${o.agent}"`, `agents: ${AGENT_NAMES.join(', ')}`);
  }
  if (o.since && Number.isNaN(Date.parse(o.since))) {
    throw new BrainError('usage', `--since expects a date or time (e.g. 2026-08-01), got "${o.since}"`);
  }
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : Number(v ?? 0));

async function rowsOf(conn: DuckDBConnection, sql: string, params: Record<string, string>): Promise<Record<string, unknown>[]> {
  const r = await conn.runAndReadAll(sql, params);
  return r.getRowObjectsJson() as Record<string, unknown>[];
}

function statsRow(o: Record<string, unknown>): StatsRow {
  const t = {
    input: num(o.input_tokens),
    output: num(o.output_tokens),
    cache_creation: num(o.cache_creation_tokens),
    cache_read: num(o.cache_read_tokens),
    total: 0,
  };
  t.total = t.input + t.output + t.cache_creation + t.cache_read;
  return {
    key: String(o.key),
    sessions: num(o.sessions),
    turns: num(o.turns),
    replies: num(o.replies),
    tokens: t,
    models: (o.models as string[]) ?? [],
    tool_calls: num(o.tool_calls),
    tool_failures: num(o.tool_failures),
    top_tools: ((o.top_tools as { tool: string; calls: unknown }[]) ?? []).map((x) => ({ tool: x.tool, calls: num(x.calls) })),
  };
}

/** Sessions, turns, tokens, models and tool calls per agent, day, project or machine. */
export async function cacheStats(home: string, by: StatsBy, opts: ReportOptions = {}): Promise<StatsReport> {
  if (!STATS_BY.includes(by)) throw new BrainError('usage', `--by expects one of ${STATS_BY.join(', ')}, got "${by}"`);
  checkFilters(opts);
  const h = await openCache(home, { ...opts, readOnly: true });
  try {
    const sql = loadSql('reports', 'stats');
    const p = { agent: opts.agent ?? '', since: opts.since ?? '' };
    const rows = (await rowsOf(h.conn, sql, { ...p, by })).map(statsRow);
    const tot = (await rowsOf(h.conn, sql, { ...p, by: 'all' })).map(statsRow)[0] ?? statsRow({ key: 'total' });
    const tz = await h.conn.runAndReadAll(`SELECT current_setting('TimeZone')`);
    return {
      by,
      agent: opts.agent ?? null,
      since: opts.since ?? null,
      time_zone: String(tz.getRows()[0][0]),
      rows,
      total: tot,
    };
  } finally {
    h.close();
  }
}

export interface CallsRow {
  agent: string;
  tool: string;
  calls: number;
  failures: number;
  unanswered: number;
  failure_pct: number;
}

export interface CallsReport {
  agent: string | null;
  since: string | null;
  rows: CallsRow[];
  total: { calls: number; failures: number; unanswered: number };
}

/** Tool-call counts and failures per agent and tool. */
export async function toolCalls(home: string, opts: ReportOptions = {}): Promise<CallsReport> {
  checkFilters(opts);
  const h = await openCache(home, { ...opts, readOnly: true });
  try {
    const rows = (await rowsOf(h.conn, loadSql('reports', 'calls'), { agent: opts.agent ?? '', since: opts.since ?? '' })).map(
      (o): CallsRow => ({
        agent: String(o.agent),
        tool: String(o.tool),
        calls: num(o.calls),
        failures: num(o.failures),
        unanswered: num(o.unanswered),
        failure_pct: num(o.failure_pct),
      }),
    );
    const total = rows.reduce(
      (a, r) => ({ calls: a.calls + r.calls, failures: a.failures + r.failures, unanswered: a.unanswered + r.unanswered }),
      { calls: 0, failures: 0, unanswered: 0 },
    );
    return { agent: opts.agent ?? null, since: opts.since ?? null, rows, total };
  } finally {
    h.close();
  }
}
