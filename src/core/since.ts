// "since" as every filter takes it (search, stats, calls, the MCP and LM tools): one reading.
import { BrainError } from './errors';

/** "2026-08-01", an ISO time, or 30m / 12h / 7d / 2w before `now`. */
export function parseSince(s: string, now = Date.now()): number {
  const rel = /^(\d+)\s*([mhdw])$/.exec(s.trim());
  if (rel) {
    const unit = { m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[rel[2] as 'm' | 'h' | 'd' | 'w'];
    return now - Number(rel[1]) * unit;
  }
  // A date alone is midnight where the user is, as a date and time without a zone already is;
  // Date.parse alone would take it as UTC midnight, and stats (DuckDB, local zone) would disagree
  // with search by the zone's offset.
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s.trim());
  const t = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime() : Date.parse(s);
  if (Number.isNaN(t)) throw new BrainError('usage', `since: cannot read "${s}" as a date`, 'use an ISO date (2026-08-01), a time, or 30m, 12h, 7d, 2w');
  return t;
}

/** `since` for a DuckDB filter: the instant parseSince reads, so SQL and the file-walking filters
 * cut at the same moment whatever the connection's time zone. */
export function sinceForSql(s: string, now = Date.now()): string {
  return new Date(parseSince(s, now)).toISOString();
}
