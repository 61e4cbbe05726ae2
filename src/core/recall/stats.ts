// brain stats with its sessions and turns counted as show, search and the Sessions tree count
// them (truth.ts): from the turn index (index/turncount.ts). Tokens, models and tool calls are the
// cache's (derived.usage and derived.calls), which the agreement test holds to show's.
import type { Env } from '../home';
import { parseSince } from '../since';
import { agentByLane, registry } from '../agents';
import { cacheStats, statsRow, type ReportOptions, type StatsBy, type StatsReport } from '../cache/reports';
import { openIndex } from '../index/turnindex';
import { homeRoot } from '../index/roots';
import { bucketTurns, turnRows, type TurnRow } from '../index/turncount';

export async function statsReport(home: string, by: StatsBy, opts: ReportOptions & { env?: Env } = {}): Promise<StatsReport> {
  // DuckDB works on its own threads while this one reads the turn index: the two overlap.
  const pending = cacheStats(home, by, opts);
  let rows: TurnRow[] | undefined;
  try {
    rows = indexedTurns(home, opts.env ?? process.env);
  } finally {
    // Awaited below whatever the index did; a failure it had is the report's.
    pending.catch(() => undefined);
  }
  const r = await pending;
  // Without a usable index (no SQLite) the cache's count stays: stats still answers.
  if (!rows) return r;
  const agentOf = (lane: string) => agentByLane(lane)?.agent ?? lane;
  const f = {
    lanes: opts.agent ? registry().parse(opts.agent).map((a) => a.lane) : [],
    since: opts.since ? parseSince(opts.since) : null,
    timeZone: r.time_zone,
  };
  const per = bucketTurns(rows, by, agentOf, f);
  // Sessions and turns are counted as show and the Sessions tree count them (truth.ts): a key's
  // sessions are those with a main turn under it, so no key has turns without a session.
  const keyed = new Map(r.rows.map((x) => [x.key, x]));
  for (const [key, b] of per) {
    const row = keyed.get(key);
    if (row) {
      row.turns = b.turns;
      row.sessions = b.sessions.size;
    } else r.rows.push({ ...statsRow({ key }), turns: b.turns, sessions: b.sessions.size });
  }
  for (const row of r.rows)
    if (!per.has(row.key)) {
      row.turns = 0;
      row.sessions = 0;
    }
  // Each counted turn is under one key: the total is their sum (bucketTurns); a session over two
  // keys is one session of the total.
  r.total.turns = [...per.values()].reduce((a, b) => a + b.turns, 0);
  r.total.sessions = new Set([...per.values()].flatMap((b) => [...b.sessions])).size;
  return r;
}

/** The turn index's counts, brought up to date first; undefined without a usable index. */
function indexedTurns(home: string, env: Env): TurnRow[] | undefined {
  const o = openIndex(homeRoot(env, home));
  if (!o.ok) return undefined;
  try {
    try {
      o.index.update();
    } catch {
      /* a stale index still counts what it holds */
    }
    return turnRows(o.index.db);
  } finally {
    o.index.close();
  }
}
