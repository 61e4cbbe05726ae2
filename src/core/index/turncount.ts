// Counting turns (isTurn in turns.ts) over the turn index: the one count show, stats, the Sessions
// tree and search report. A session's turns are those of the form show reads (shownForm), over
// every generation of that form: a turn several generations hold (the same turnKey) counts once,
// as many times as the generation holding most of it has it.
import type { SqliteDatabase } from '../sqlite';

/** isTurn in the index's SQL: the rows that count as turns (a prompt 'u' or a reply 'a'). */
export const TURN_ROLES = `role IN ('u', 'a')`;
/** The same, for turns read in JavaScript. */
export const TURN_ROLES_OF: ReadonlySet<string> = new Set(['u', 'a']);

/**
 * The form a session is shown from, of its forms on one machine (the newest generation of each
 * file with its id: a copy of the conversation, an archived rollout, a settings, state or meta
 * file beside it): the largest that holds turns (the first of equals), else the largest. A form
 * with no turns never hides one that has them: it only lends the session its facts (a start time,
 * a project, tokens no reply claims). Every view picks so: show (recall/read.ts), the Sessions
 * tree (recall/floorview.ts), and the turn index's counts (shownBase, the same rule in SQL).
 * `holds` is asked in order of size, largest first, until a form holds turns.
 */
export function shownForm<F>(forms: readonly F[], size: (f: F) => number, holds: (f: F) => boolean): F | undefined {
  const bySize = [...forms].sort((a, b) => size(b) - size(a));
  return bySize.find(holds) ?? bySize[0];
}

/** shownForm in the index's SQL: the base (lake path without its generation) of the form whose
 * turns are session `sess`'s (an SQL expression), of the newest generation of each base. */
export function shownBase(sess: string): string {
  return `(SELECT f.base FROM files f WHERE f.sess_id = ${sess} AND f.live = 1
            AND f.gen = (SELECT max(g.gen) FROM files g WHERE g.machine = f.machine AND g.base = f.base AND g.live = 1)
           ORDER BY f.has_turns DESC, f.claimed DESC, f.id LIMIT 1)`;
}

/** The session whose files hold session `sess` (an SQL expression): a section's (Turn.section)
 * is the file's own session, any other session is its own. */
export function filesSess(sess: string): string {
  return `(SELECT coalesce(x.whole, x.id) FROM sessions x WHERE x.id = ${sess})`;
}

/** The turn index's rowids come in blocks of 2^BLOCK_BITS, each a session's (schema.ts). */
export const BLOCK_BITS = 8;

// A session's own count (TurnIndex.countTurns, over its packed turns) is the same rule for one
// session: per key, the most any one file of its shown base holds, summed.

export type TurnKey = 'agent' | 'day' | 'project' | 'machine' | 'all';

export interface TurnFilter {
  /** Lanes to keep (empty: all). */
  lanes?: string[];
  /** Only turns at or after this time (ms). A turn without a time counts at its session's start
   * when no turn of its session has a time, else at its file's capture (turnRows). */
  since?: number | null;
  /** For 'day': the time zone days are in. */
  timeZone?: string;
}

/** Turn counts grouped by what a report keys on: lane, machine, project, the turn's time; then
 * the count and the session (its index id) the turns are of. */
export type TurnRow = [string, string, string | null, number | string | null, number, number];

/** The turn counts bucketTurns buckets, read from the index (the part that reads every packed
 * turn): a main conversation's turns (isMainTurn in truth.ts): not a sub-agent file's, not a
 * sidechain entry's. A turn is at its own time; in a session none of whose turns has one (a
 * transcript without a clock), at the session's start, which its agent may know from elsewhere (a
 * database beside it); else at its file's capture. */
export function turnRows(db: SqliteDatabase): TurnRow[] {
  return db
    .prepare(
      // A turn's session is its block's (a section of a file is a session of its own).
      `WITH sb AS (SELECT s.id AS sess_id, ${shownBase('coalesce(s.whole, s.id)')} AS base FROM sessions s WHERE s.subagent = 0),
       c AS (SELECT sb.sess_id, t.key, t.file_id, count(*) AS n, min(t.ts) AS own, min(unixepoch(fl.first_seen, 'subsec') * 1000) AS cap
             FROM turns t JOIN blocks b ON b.id = t.id >> ${BLOCK_BITS} JOIN files fl ON fl.id = t.file_id JOIN sb ON sb.sess_id = b.sess_id AND sb.base = fl.base
             WHERE t.${TURN_ROLES} AND t.side = 0 AND fl.live = 1
             GROUP BY 1, 2, 3),
       k AS (SELECT sess_id, key, max(n) AS n, min(own) AS own, min(cap) AS cap, max(min(own)) OVER (PARTITION BY sess_id) AS timed FROM c GROUP BY 1, 2)
       SELECT s.lane, s.machine, s.project,
              coalesce(k.own, CASE WHEN k.timed IS NULL THEN unixepoch(s.started, 'subsec') * 1000 END, k.cap) AS at, sum(k.n) AS n, s.id
       FROM k JOIN sessions s ON s.id = k.sess_id
       GROUP BY 1, 2, 3, 4, 6`,
    )
    .raw()
    .all() as TurnRow[];
}

/** Turns per key ('all' gives one key, 'total'). `agentOf` names a lane as the report does. */
export function turnsBy(db: SqliteDatabase, by: TurnKey, agentOf: (lane: string) => string, f: TurnFilter = {}): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of bucketTurns(turnRows(db), by, agentOf, f)) out.set(k, v.turns);
  return out;
}

/** turnRows' rows per key, filtered: every row counts under one key at most, so the total of a
 * report is the sum of its keys' turns. A session counts in each key it has a turn under
 * (isCountedSession: a session with no main turn is in no key). */
export function bucketTurns(rows: TurnRow[], by: TurnKey, agentOf: (lane: string) => string, f: TurnFilter = {}): Map<string, { turns: number; sessions: Set<number> }> {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: f.timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const out = new Map<string, { turns: number; sessions: Set<number> }>();
  for (const [lane, machine, project, at, n, sess] of rows) {
    if (f.lanes?.length && !f.lanes.includes(lane)) continue;
    // A number (the index keeps times as ms), or a turn's time no parser reads.
    const ms = typeof at === 'number' ? at : at ? Date.parse(at) : Number.NaN;
    if (f.since != null && !(ms >= f.since)) continue;
    const key =
      by === 'agent' ? agentOf(lane) : by === 'machine' ? machine : by === 'project' ? (project ?? '(unknown)') : by === 'day' ? (Number.isNaN(ms) ? '(no time)' : day.format(ms)) : 'total';
    let b = out.get(key);
    if (!b) out.set(key, (b = { turns: 0, sessions: new Set() }));
    b.turns += n;
    b.sessions.add(sess);
  }
  return out;
}
