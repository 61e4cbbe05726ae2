// `brain tick`: the one trigger, run by the timer every 5 minutes (and by anything else that likes,
// e.g. a status line). It keeps its own stamp, so however often it is called it walks the floor at
// most once per interval; inside the interval it costs one stat. It syncs only when a floor file
// changed since the last sync that worked, so an idle machine opens no connection at all. Hooks do
// not sync (they may run in a sandbox that refuses ssh); the tick runs outside every sandbox.
// What follows its pass, the sync included, is the after-capture pipeline's (after.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_INTERVAL, readConfig } from '../config';
import type { CaptureReport } from '../floor/capture';
import { mkdirPrivate, type Env } from '../home';
import { syncPaths } from '../store/paths';
import { mtimeOf } from '../store/state';
import type { SyncOutcome } from '../store/sync';
import { AfterCapture, POLICY } from './after';

export type TickOutcome =
  | { kind: 'not-due'; nextInMs: number }
  | { kind: 'not-configured'; message: string; hint?: string }
  | { kind: 'unchanged' }
  | { kind: 'captured-error'; message: string; sync: SyncOutcome | null }
  | { kind: 'synced'; sync: SyncOutcome };

export interface TickOptions {
  env?: Env;
  /** Brings the floor up to date from the agents' session folders first (the capture engine). */
  capture?: () => Promise<CaptureReport | null | void>;
  /** What follows the pass: POLICY.tick (sync only) unless the caller keeps its own follower, as
   * the editor's worker does. */
  after?: AfterCapture;
  now?: number;
}

export async function tick(home: string, opts: TickOptions = {}): Promise<TickOutcome> {
  const env = opts.env ?? process.env;
  const p = syncPaths(home);
  const now = opts.now ?? Date.now();
  const cfg = readConfig(home, env);
  const interval = cfg.kind === 'ok' ? cfg.config.interval : DEFAULT_INTERVAL;
  const stamp = mtimeOf(p.lastTick);
  // A stamp in the future means the clock went back: treat it as expired rather than wait it out.
  if (stamp !== null && stamp <= now && now - stamp < interval * 1000) {
    return { kind: 'not-due', nextInMs: interval * 1000 - (now - stamp) };
  }
  // Stamp first, so a tick that cannot start (no config) is not retried on every call.
  mkdirPrivate(p.dir);
  fs.closeSync(fs.openSync(p.lastTick, 'a', 0o600));
  fs.utimesSync(p.lastTick, new Date(now), new Date(now));
  if (cfg.kind === 'missing') return { kind: 'not-configured', message: `no config at ${cfg.file}`, hint: 'run `brain init --store PATH`' };
  if (cfg.kind === 'invalid') return { kind: 'not-configured', message: cfg.error.message, hint: cfg.error.hint };
  if (!cfg.config.store) return { kind: 'not-configured', message: `${cfg.config.file} has no [store]`, hint: 'run `brain init --store PATH`' };
  let captureError: string | undefined;
  let report: CaptureReport | null = null;
  if (opts.capture) {
    try {
      report = (await opts.capture()) ?? null;
    } catch (e) {
      // A capture problem must not stop the backup of what is already on the floor.
      captureError = (e as Error).message;
    }
  }
  const after = opts.after ?? new AfterCapture(home, env, POLICY.tick);
  if (report) await after.follow(report);
  const sync = await after.sync();
  if (!opts.after) await after.close();
  if (!sync) return captureError ? { kind: 'captured-error', message: captureError, sync: null } : { kind: 'unchanged' };
  return captureError ? { kind: 'captured-error', message: captureError, sync } : { kind: 'synced', sync };
}

/** For tests and doctor: when the last tick walked the floor. */
export function lastTickAt(home: string): number | null {
  return mtimeOf(path.join(syncPaths(home).lastTick));
}
