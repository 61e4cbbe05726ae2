// brain stats with its turns counted as show, search and the Sessions tree count them: from the
// turn index (index/turncount.ts), not from the cache's messages, whose per-agent views tell a
// turn apart in ways of their own. Tokens, sessions, models and tool calls stay the cache's.
import type { Env } from '../home';
import { parseSince } from '../since';
import { agentByLane, registry } from '../agents';
import { cacheStats, statsRow, type ReportOptions, type StatsBy, type StatsReport } from '../cache/reports';
import { openIndex } from '../index/turnindex';
import { homeRoot } from '../index/roots';
import { turnsBy } from '../index/turncount';

export async function statsReport(home: string, by: StatsBy, opts: ReportOptions & { env?: Env } = {}): Promise<StatsReport> {
  const r = await cacheStats(home, by, opts);
  const o = openIndex(homeRoot(opts.env ?? process.env, home));
  // Without a usable index (no SQLite) the cache's count stays: stats still answers.
  if (!o.ok) return r;
  try {
    try {
      o.index.update();
    } catch {
      /* a stale index still counts what it holds */
    }
    const agentOf = (lane: string) => agentByLane(lane)?.agent ?? lane;
    const f = {
      lanes: opts.agent ? registry().parse(opts.agent).map((a) => a.lane) : [],
      since: opts.since ? parseSince(opts.since) : null,
      timeZone: r.time_zone,
    };
    const per = turnsBy(o.index.db, by, agentOf, f);
    for (const row of r.rows) row.turns = per.get(row.key) ?? 0;
    for (const [key, n] of per) if (!r.rows.some((x) => x.key === key)) r.rows.push({ ...statsRow({ key }), turns: n });
    r.total.turns = turnsBy(o.index.db, 'all', agentOf, f).get('total') ?? 0;
    return r;
  } finally {
    o.index.close();
  }
}
