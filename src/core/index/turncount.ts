// Counting turns (isTurn in turns.ts) over the turn index: the one count show, stats, the Sessions
// tree and search report. A session's turns are those of the file show reads, its largest live
// one: an archived copy of a rollout, or the second form a session is written in, holds the
// same conversation and is not counted twice.
import type { SqliteDatabase } from '../sqlite';

/** isTurn in the index's SQL: the rows that count as turns (a prompt 'u' or a reply 'a'). */
export const TURN_ROLES = `role IN ('u', 'a')`;

/** The file of session `sess` (an SQL expression) whose turns are the session's. */
export function shownFile(sess: string): string {
  return `(SELECT id FROM files WHERE sess_id = ${sess} AND live = 1 ORDER BY claimed DESC, id LIMIT 1)`;
}

export type TurnKey = 'agent' | 'day' | 'project' | 'machine' | 'all';

export interface TurnFilter {
  /** Lanes to keep (empty: all). */
  lanes?: string[];
  /** Only turns at or after this time (ms). A turn without a time counts at its file's capture. */
  since?: number | null;
  /** For 'day': the time zone days are in. */
  timeZone?: string;
}

/** Turns per key ('all' gives one key, 'total'). `agentOf` names a lane as the report does. */
export function turnsBy(db: SqliteDatabase, by: TurnKey, agentOf: (lane: string) => string, f: TurnFilter = {}): Map<string, number> {
  const rows = db
    .prepare(
      `SELECT s.lane, s.machine, s.project, coalesce(t.ts, fl.first_seen) AS at, count(*) AS n
       FROM turns t JOIN sessions s ON s.id = t.sess_id JOIN files fl ON fl.id = t.file_id
       WHERE t.${TURN_ROLES} AND t.file_id = ${shownFile('t.sess_id')}
       GROUP BY 1, 2, 3, 4`,
    )
    .raw()
    .all() as [string, string, string | null, string | null, number][];
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: f.timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const out = new Map<string, number>();
  for (const [lane, machine, project, at, n] of rows) {
    if (f.lanes?.length && !f.lanes.includes(lane)) continue;
    const ms = at ? Date.parse(at) : Number.NaN;
    if (f.since != null && !(ms >= f.since)) continue;
    const key =
      by === 'agent' ? agentOf(lane) : by === 'machine' ? machine : by === 'project' ? (project ?? '(unknown)') : by === 'day' ? (Number.isNaN(ms) ? '(no time)' : day.format(ms)) : 'total';
    out.set(key, (out.get(key) ?? 0) + n);
  }
  return out;
}
