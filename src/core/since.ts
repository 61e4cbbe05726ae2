// "since" as every filter takes it (search, stats, calls, the MCP and LM tools): one reading.
import { BrainError } from './errors';

/** "2026-08-01", an ISO time, or 30m / 12h / 7d / 2w before `now`. */
export function parseSince(s: string, now = Date.now()): number {
  const rel = /^(\d+)\s*([mhdw])$/.exec(s.trim());
  if (rel) {
    const unit = { m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[rel[2] as 'm' | 'h' | 'd' | 'w'];
    return now - Number(rel[1]) * unit;
  }
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new BrainError('usage', `since: cannot read "${s}" as a date`, 'use an ISO date (2026-08-01), a time, or 30m, 12h, 7d, 2w');
  return t;
}

/** `since` for a DuckDB filter, checked as parseSince checks it: a relative form (7d) as the
 * instant it names, a date or time as written (DuckDB reads it in the connection's time zone, the
 * one stats counts days in). */
export function sinceForSql(s: string, now = Date.now()): string {
  const t = parseSince(s, now);
  return /^\d+\s*[mhdw]$/.test(s.trim()) ? new Date(t).toISOString() : s.trim();
}
