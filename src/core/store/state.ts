// state.json: the last sync's result and the `warning` label every front end shows (empty while
// backups work). The sync decides the label, in one place under test; front ends only show it,
// plus "backup stale", which no sync can write because it is about syncs that did not happen.
// Written atomically (tmp + fsync + rename), so a reader never sees half a file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readConfig } from '../config';
import { writeFileAtomic } from '../floor/durable';
import { mkdirPrivate, type Env } from '../home';
import { isProblem, type Finding } from './findings';
import { walkFloor } from './floorfiles';
import { readLedger } from './ledger';
import { syncPaths } from './paths';
import type { TransferStats } from './rsync';

export type SyncStatus = 'ok' | 'failed' | 'skipped' | 'never';

export interface SyncState {
  v: 1;
  status: SyncStatus;
  /** When this result was recorded (ISO). */
  time: string;
  message: string;
  /** Short label for status bars; '' while backups work. */
  warning: string;
  /** What the fix is, when there is one. */
  hint?: string;
  store?: string;
  machine?: string;
  /** Start of the last sync that worked (ISO). */
  last_ok?: string;
  findings: Finding[];
  stats?: TransferStats & { ms: number };
}

export function readState(home: string): SyncState | null {
  try {
    const j = JSON.parse(fs.readFileSync(syncPaths(home).state, 'utf8')) as SyncState;
    return j && typeof j.status === 'string' ? { ...j, findings: j.findings ?? [] } : null;
  } catch {
    return null;
  }
}

export function writeState(home: string, s: SyncState): void {
  writeFileAtomic(syncPaths(home).state, JSON.stringify(s, null, 1) + '\n');
}

/** The label for a set of findings after a sync that otherwise worked ('' if none matter). */
export function findingsLabel(findings: Finding[]): string {
  const count = (code: Finding['code']) => findings.filter((f) => f.code === code).length;
  const parts: string[] = [];
  const n = (k: number, what: string) => `${k} ${what}${k > 1 ? 's' : ''}`;
  if (count('local-corrupt')) parts.push(`local floor corrupt: ${n(count('local-corrupt'), 'file')} (store copy kept)`);
  if (count('store-differs')) parts.push(`store copy differs: ${n(count('store-differs'), 'file')}`);
  if (count('store-longer')) parts.push(`store copy longer than ours: ${n(count('store-longer'), 'file')}`);
  const repaired = count('store-repaired') + count('store-replaced');
  if (repaired) parts.push(`store copy repaired: ${n(repaired, 'file')}`);
  return parts.join('; ');
}

export function problems(s: SyncState | null): Finding[] {
  return (s?.findings ?? []).filter(isProblem);
}

/** How long a change may wait for a sync that worked before the backup counts as stale. */
export function staleAfterMs(intervalSec: number): number {
  return Math.max(30 * 60, intervalSec + 10 * 60) * 1000;
}

export interface Pending {
  /** Floor files changed since the last sync that worked. */
  files: number;
  /** When the oldest of those changes started waiting (ms), or null if nothing waits. */
  since: number | null;
}

/**
 * What waits for a sync: files whose stat differs from the ledger (so a file whose mtime only looks
 * new after a clock change does not count). A change waits from the earlier of when a tick first saw
 * it unsynced and the file's mtime, but never from before the last sync that worked.
 */
export function pendingChanges(home: string, now = Date.now()): Pending {
  const p = syncPaths(home);
  const lastOk = mtimeOf(p.lastOk);
  const ledger = readLedger(p.ledger);
  let files = 0;
  let oldest: number | null = null;
  walkFloor(home, (f) => {
    const e = ledger.files[f.rel];
    if (e && e.seen_size === f.size && e.seen_mtime === f.mtimeMs) return;
    files++;
    let t = Math.min(f.mtimeMs, now);
    if (lastOk !== null && lastOk <= now) t = Math.max(t, lastOk);
    if (oldest === null || t < oldest) oldest = t;
  });
  if (files === 0) return { files: 0, since: null };
  const seen = mtimeOf(p.unsyncedSince);
  if (seen !== null && oldest !== null && seen < oldest && seen <= now) oldest = seen;
  return { files, since: oldest };
}

export function mtimeOf(file: string): number | null {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

export interface Effective {
  warning: string;
  message: string;
  hint?: string;
  state: SyncState | null;
  pending?: Pending;
}

/**
 * The label a front end shows: the sync's own label, else "backup stale" when a change has waited
 * too long for a sync that worked, else "no backup yet" before the first sync. Walks the floor only
 * when state alone cannot decide (cheap enough for a status bar refreshing every few seconds).
 */
export function effectiveWarning(home: string, env: Env = process.env, now = Date.now()): Effective {
  const state = readState(home);
  const cfg = readConfig(home, env);
  if (cfg.kind === 'missing') return { warning: 'backup not set up', message: 'no config.toml', hint: 'run `brain init --store PATH` or `--store HOST:PATH`', state };
  if (cfg.kind === 'invalid') {
    // An unmounted store disk reads as a config error (the folder must exist), but to the user it is
    // a backup that is failing.
    const label = cfg.error.code === 'config-store-missing' ? 'backup failing: store folder missing' : 'config invalid';
    return { warning: label, message: cfg.error.message, hint: cfg.error.hint, state };
  }
  if (!cfg.config.store) return { warning: 'backup not set up', message: 'config.toml has no [store]', hint: 'run `brain init --store PATH` or `--store HOST:PATH`', state };
  if (state && state.warning) return { warning: state.warning, message: state.message, hint: state.hint, state };
  const pending = pendingChanges(home, now);
  if (pending.since !== null && now - pending.since > staleAfterMs(cfg.config.interval)) {
    const mins = Math.round((now - pending.since) / 60_000);
    return {
      warning: 'backup stale',
      message: `${pending.files} floor file${pending.files > 1 ? 's have' : ' has'} waited ${mins} minutes for a sync that worked`,
      hint: 'check that the timer runs (`brain doctor`), or run `brain sync --now`',
      state,
      pending,
    };
  }
  if (!state) {
    return pending.files > 0
      ? { warning: 'no backup yet', message: 'the floor has not been synced yet', hint: 'run `brain sync --now`', state, pending }
      : { warning: '', message: 'nothing recorded yet', state, pending };
  }
  return { warning: '', message: state.message, state, pending };
}

/** Creates `file` if needed and sets its mtime: the sync's marks (last-ok, pending, recheck) are
 * empty files whose mtime is the fact. */
export function touch(file: string, atMs: number): void {
  mkdirPrivate(path.dirname(file));
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  const t = new Date(atMs);
  fs.utimesSync(file, t, t);
}

/** Marks when a change first started waiting (for "backup stale"). */
export function noteUnsynced(home: string): void {
  const p = syncPaths(home);
  if (!fs.existsSync(p.unsyncedSince)) touch(p.unsyncedSince, Date.now());
}
