// The reports over the cache (brain stats, brain calls), typed once for the CLI's --json, the MCP
// and the VS Code tools. The SQL is in sql/reports/.
import type { DuckDBConnection } from '@duckdb/node-api';
import { registry } from '../agents';
import { BrainError } from '../errors';
import { sinceForSql } from '../since';
import { openCache, type CacheOptions } from './index';
import { loadSql } from './sqlfiles';

export type StatsBy = 'agent' | 'day' | 'project' | 'machine';
export const STATS_BY: StatsBy[] = ['agent', 'day', 'project', 'machine'];

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

/** The SQL parameters of the filters, read as search reads them: agents by any of their names
 * (comma-separated), since as a date, a time or 30m / 12h / 7d / 2w. */
function filters(o: ReportOptions): { agent: string; since: string } {
  return {
    agent: o.agent ? registry().parse(o.agent).map((a) => a.agent).join(',') : '',
    since: o.since ? sinceForSql(o.since) : '',
  };
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : Number(v ?? 0));

async function rowsOf(conn: DuckDBConnection, sql: string, params: Record<string, string>): Promise<Record<string, unknown>[]> {
  const r = await conn.runAndReadAll(sql, params);
  return r.getRowObjectsJson() as Record<string, unknown>[];
}

export function statsRow(o: Record<string, unknown>): StatsRow {
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
  const p = filters(opts);
  const h = await openCache(home, { ...opts, readOnly: true });
  try {
    // One query gives the groups and, keyed chr(0), the total over them (see stats.sql).
    const all = (await rowsOf(h.conn, loadSql('reports', 'stats'), { ...p, by })).map(statsRow);
    const rows = all.filter((r) => r.key !== '\0');
    const tot = { ...(all.find((r) => r.key === '\0') ?? statsRow({})), key: 'total' };
    const tz = await h.conn.runAndReadAll(`SELECT current_setting('TimeZone')`);
    return {
      by,
      agent: p.agent || null,
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
  const p = filters(opts);
  const h = await openCache(home, { ...opts, readOnly: true });
  try {
    const rows = (await rowsOf(h.conn, loadSql('reports', 'calls'), p)).map(
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
    return { agent: p.agent || null, since: opts.since ?? null, rows, total };
  } finally {
    h.close();
  }
}
