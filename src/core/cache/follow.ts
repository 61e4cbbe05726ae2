// `brain record` hands the DuckDB cache's update to a process of its own and returns: loading
// DuckDB, opening the cache, re-deriving the touched sessions and the checkpoint on close cost
// one to two seconds at a GB of lake even for one new line, and nothing a search needs waits for
// them (search reads the turn index, which record brings up itself). Whoever reads the cache next
// (`brain sql`, stats, the tools) still brings it up to the manifest first, waiting for this
// update's lock if it is still running, so no answer is older than the floor.
//
// One follower at a time (a lock in locks/). A follower that finds the lock held leaves: the
// holder looks at the manifest again after letting go of the lock, so lines captured while it ran
// are taken by it, not lost until the next query. What the last follower did is kept in
// health/duckdb-follow.json, and the next `brain record` reports a failure from it.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../floor/durable';
import { tryLock } from '../floor/lock';
import { layout } from '../home';
import { setting } from '../settings';
import { cacheKnownCurrent, freshNotePath } from './fresh';

export interface FollowOutcome {
  ok: boolean;
  /** ISO time the follower ended. */
  at: string;
  detail: string;
  pid: number;
}

/** An update, as updateCache does it: resolves to what it did ('current' when nothing was new). */
export type CacheUpdate = (home: string) => Promise<{ mode: 'rebuild' | 'update' | 'current'; manifestLines: number }>;

// Updates one follower makes before it leaves (the manifest grew under each of them); what is
// left then is taken by the next follower or the next query.
const MAX_UPDATES = 20;

function outcomePath(home: string): string {
  return path.join(layout(home).health, 'duckdb-follow.json');
}

/** What the last background update did, if one ran. */
export function lastFollow(home: string): FollowOutcome | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(outcomePath(home), 'utf8')) as FollowOutcome;
    return typeof o?.ok === 'boolean' ? o : undefined;
  } catch {
    return undefined;
  }
}

function noteOutcome(home: string, ok: boolean, detail: string): void {
  try {
    // Into the floor's own health folder only: a floor removed meanwhile is not made again.
    if (!fs.existsSync(layout(home).health)) return;
    const o: FollowOutcome = { ok, at: new Date().toISOString(), detail, pid: process.pid };
    writeFileAtomic(outcomePath(home), JSON.stringify(o) + '\n', { sync: false });
  } catch {
    /* a floor that cannot take the note is reported by capture itself */
  }
}

/** The follower (`brain rebuild --update --follow`): updates until the cache is current with the
 * manifest, unless another follower is at it. Resolves to what it did. */
export async function follow(home: string, update: CacheUpdate): Promise<string> {
  // Nothing to follow (the cache was deleted, or the whole floor, since the follower was started):
  // the next query builds it, and no folder of a removed floor is made again for a lock.
  if (!fs.existsSync(layout(home).duckdb)) return 'no cache to update';
  let updates = 0;
  let lines = 0;
  // Each round holds the lock while it updates; after letting go, a look at the manifest catches
  // lines whose own follower found this one holding the lock and left.
  for (let round = 0; updates < MAX_UPDATES; round++) {
    if (round > 0 && cacheKnownCurrent(home)) break;
    const lock = await tryLock(layout(home).locks, 'duckdb-follow');
    const before = updates;
    if (!lock) return round === 0 ? 'another update is running' : `${updates} update(s), ${lines} manifest line(s)`;
    try {
      while (updates < MAX_UPDATES) {
        let r: Awaited<ReturnType<CacheUpdate>>;
        try {
          r = await update(home);
        } catch (e) {
          noteOutcome(home, false, (e as Error).message.split('\n')[0]);
          throw e;
        }
        if (r.mode === 'current') break;
        updates++;
        lines += r.manifestLines;
      }
    } finally {
      lock.release();
    }
    // A round that found nothing to do ends it (the cache is current, whatever the note says).
    if (updates === before) break;
  }
  const detail = `${updates} update(s), ${lines} manifest line(s)`;
  noteOutcome(home, true, detail);
  return detail;
}

/** Whether the cache was brought up to the manifest after `last` failed: a query, or a
 * `brain rebuild`, did it in the foreground (each success notes where the cache stands, fresh.ts),
 * so that failure is over and is not reported again. */
function healedSince(home: string, last: FollowOutcome): boolean {
  const at = Date.parse(last.at);
  const noted = fs.statSync(freshNotePath(layout(home).duckdb), { throwIfNoEntry: false })?.mtimeMs;
  return noted !== undefined && Number.isFinite(at) && noted > at;
}

/** Starts a follower, detached from this process (it outlives it), at low priority and on one
 * DuckDB thread so that what the user runs next keeps the cores. `self` is the command that runs
 * this program's CLI ([node, script]). Returns what to report; throws when the last follower
 * failed (the new one is started first, so a passing problem heals by itself). */
export function startFollower(home: string, self: string[], env: NodeJS.ProcessEnv): string {
  if (!fs.existsSync(layout(home).duckdb)) return 'not built yet (the first query builds it)';
  if (cacheKnownCurrent(home)) return 'current';
  const last = lastFollow(home);
  const [cmd, ...args] = self;
  const child = spawn(cmd, [...args, 'rebuild', '--update', '--follow', '--json'], {
    detached: true,
    stdio: 'ignore',
    env: { ...env, BRAIN_HOME: home, BRAIN_DUCKDB_THREADS: String(setting(env, 'BRAIN_DUCKDB_THREADS') ?? 1) },
  });
  child.on('error', () => undefined);
  child.unref();
  if (child.pid) {
    try {
      os.setPriority(child.pid, 10);
    } catch {
      /* not permitted here: it runs at normal priority */
    }
  }
  if (last && !last.ok && !healedSince(home, last)) {
    throw new Error(`the last background update failed (${last.at}): ${last.detail}; updating again in the background (\`brain rebuild --update\` shows it)`);
  }
  return `updating in the background (pid ${child.pid ?? '?'}); \`brain sql\` waits for it`;
}
