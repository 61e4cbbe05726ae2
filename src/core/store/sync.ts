// One sync: check what is about to be pushed, push it in one rsync, record the result.
//
// Under a non-blocking kernel lock (locks/sync.lock, released when the holder dies): a second sync
// exits at once; `--now` first leaves a pending mark, and the holder syncs again before it lets go
// (and re-checks after unlocking, for a mark left in between).
//
// Corruption, the careful part. rsync --append-verify appends to a store file shorter than ours and
// then checks the whole file; when that check fails it re-sends the whole file, silently replacing
// the store's copy, and it skips store files as long as ours or longer without looking at them. So
// no store copy reaches rsync unless it has been shown to be a prefix of ours:
//   1. Before the push, every changed local file is checked (plan.ts): lake files against every
//      manifest range, manifest/meta files against the sha256 of what was already backed up
//      (ledger). A file that fails is excluded from the push (--exclude-from) and reported; the
//      store's copy, the backup of record, is never overwritten by it.
//   2. On the store side, before rsync runs and in the same connection (script.ts), each file about
//      to be pushed whose store copy may exist, and a rotating slice of the unchanged ones, is
//      checked: the store's first N bytes must hash to what we sent. A store copy that differs while
//      ours verifies is moved aside to .brain/replaced/<stamp>/ (kept, never deleted) and rsync
//      sends ours whole: that is the repair, and it is reported. A store copy holding bytes nobody
//      compared with ours (longer than what we sent, or than our whole file) stops the step before
//      rsync runs; the next round checks it against our own bytes at its length (a prefix of ours:
//      appended to; not: moved aside) or, while it is longer than ours, keeps ours out of the push.
//   3. rsync's own "failed verification" warnings are still read, for what the checks cannot
//      foresee (the store changing between the check and rsync).
import * as fs from 'node:fs';
import { readConfig, type Config } from '../config';
import { tryLock } from '../floor/lock';
import { settledFloor } from '../floor/settle';
import { mkdirPrivate, type Env } from '../home';
import { walkFloor, type FloorFile } from './floorfiles';
import { readLedger, type Ledger } from './ledger';
import type { Finding } from './findings';
import { syncPaths } from './paths';
import { commit, preparePush, pushRounds, reconcile, stateBase } from './phases';
import { mtimeOf, noteUnsynced, touch, writeState, type SyncState } from './state';
import type { RsyncRun } from './rsync';
import { muxRetryPolicy, openTransport, withRetry } from './transport';

export { noteUnsynced } from './state';

export type SyncOutcome =
  /** `floor`: a capture pass held the floor for as long as a sync waits (settle.ts). */
  | { kind: 'busy'; pendingMarked: boolean; floor?: true }
  | { kind: 'not-configured'; message: string; hint?: string }
  | { kind: 'nothing' }
  | { kind: 'done'; state: SyncState; run?: RsyncRun };

export interface SyncOptions {
  /** Sync even if nothing changed; if another sync holds the lock, leave a pending mark. */
  now?: boolean;
  env?: Env;
  /** Extra rsync arguments (tests and bench). */
  extraRsync?: string[];
  /** Take <store>/<machine>/ over even if it is recorded for another floor (floorid.ts). */
  adopt?: boolean;
}

/** Is there anything to sync? A floor file newer than last-ok whose stat differs from the ledger.
 * A last-ok in the future (the clock went back) makes everything due. */
export function isDue(home: string, now = Date.now()): boolean {
  const p = syncPaths(home);
  if (fs.existsSync(p.recheck)) return true;
  const lastOk = mtimeOf(p.lastOk);
  if (lastOk === null || lastOk > now) {
    let any = false;
    walkFloor(home, () => (any = true));
    return any;
  }
  const newer: FloorFile[] = [];
  walkFloor(home, (f) => {
    if (f.mtimeMs >= lastOk) newer.push(f);
  });
  if (newer.length === 0) return false;
  const ledger = readLedger(p.ledger);
  return newer.some((f) => {
    const e = ledger.files[f.rel];
    return !e || e.seen_size !== f.size || e.seen_mtime !== f.mtimeMs;
  });
}

export async function runSync(home: string, opts: SyncOptions = {}, depth = 0): Promise<SyncOutcome> {
  const env = opts.env ?? process.env;
  const p = syncPaths(home);
  const r = readConfig(home, env);
  if (r.kind === 'missing') return { kind: 'not-configured', message: `no config at ${r.file}`, hint: 'run `brain init --store PATH` (or HOST:PATH)' };
  if (r.kind === 'invalid') return { kind: 'not-configured', message: r.error.message, hint: r.error.hint };
  const cfg = r.config;
  if (!cfg.store) return { kind: 'not-configured', message: `${cfg.file} has no [store]`, hint: 'run `brain init --store PATH` (or HOST:PATH)' };
  mkdirPrivate(p.locks);
  const lock = await tryLock(p.locks, 'sync');
  if (!lock) {
    if (opts.now) touch(p.pending, Date.now());
    return { kind: 'busy', pendingMarked: !!opts.now };
  }
  let outcome: SyncOutcome = { kind: 'nothing' };
  try {
    let force = !!opts.now;
    for (let round = 0; round < 10; round++) {
      fs.rmSync(p.pending, { force: true });
      if (!force && !isDue(home)) break;
      outcome = await syncOnce(home, cfg, env, opts);
      // Stopped by a signal: the caller is going away, nothing more is started.
      if (outcome.kind === 'done' && outcome.run?.interrupted) return outcome;
      if (!fs.existsSync(p.pending)) break;
      force = true;
    }
  } finally {
    lock.release();
  }
  // A --now that arrived after our last look but before the release found the lock held: honour it.
  if (fs.existsSync(p.pending) && depth < 3) {
    const again = await runSync(home, { ...opts, now: true }, depth + 1);
    if (again.kind === 'done') return again;
  }
  return outcome;
}

/** One sync, its phases in order (phases.ts): plan, push, reconcile, commit. */
async function syncOnce(home: string, cfg: Config, env: Env, opts: SyncOptions): Promise<SyncOutcome> {
  const start = Date.now();
  const transport = openTransport(cfg, env);
  if (!(await transport.ready())) return { kind: 'done', state: skipped(home, cfg, start) };
  // What a killed pass left past the claims is claimed or cut before the push (settle.ts). The lock is
  // not kept for the copy: a first sync can take minutes and recording must not wait on it. A pass
  // running meanwhile claims what it writes unless it dies mid-write, and a store copy that came out
  // longer than ours is reported and moved aside, never trusted (the store-longer finding).
  const floor = await settledFloor(home);
  if (!floor) return { kind: 'busy', pendingMarked: false, floor: true };
  floor.release();
  const prep = preparePush(home, cfg, env, start, !!opts.adopt);
  // Over a live ssh master a failed connection is retried once; otherwise the next sync retries.
  const t = cfg.store!.ssh_mux_only ? withRetry(transport, muxRetryPolicy(env)) : transport;
  const pushed = await pushRounds(home, cfg, prep, t, opts.extraRsync);
  const recheck = reconcile(prep, pushed);
  return { kind: 'done', state: commit(home, cfg, prep, pushed, recheck), run: pushed.run };
}

/** ssh_mux_only and no master: nothing is planned or pushed; the problems already known stay shown. */
function skipped(home: string, cfg: Config, start: number): SyncState {
  const host = cfg.store!.host;
  const state: SyncState = {
    ...stateBase(home, cfg, new Date(start).toISOString()),
    status: 'skipped',
    message: `no ssh master for ${host}: sync skipped (ssh_mux_only)`,
    warning: `no ssh master for ${host}`,
    hint: `open one (ssh -fN ${host} with ControlMaster and ControlPath set in ~/.ssh/config), then run \`brain sync --now\``,
    findings: carriedProblems(readLedger(syncPaths(home).ledger)),
  };
  noteUnsynced(home);
  writeState(home, state);
  return state;
}

function carriedProblems(ledger: Ledger): Finding[] {
  return Object.values(ledger.files)
    .map((e) => e.problem)
    .filter((x): x is Finding => !!x);
}
