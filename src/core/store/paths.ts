// Where the sync keeps its own bookkeeping under BRAIN_HOME. None of it is synced: the store gets
// the floor (lake/, manifest/, meta/) and the .brain/<version>.json stamp only.
import * as path from 'node:path';
import { layout } from '../home';

export interface SyncPaths {
  dir: string;
  /** What the store holds of each floor file, as of the last sync that worked. */
  ledger: string;
  /** mtime = start of the last sync that worked. */
  lastOk: string;
  /** mtime = the last time `brain tick` walked the floor. */
  lastTick: string;
  /** mtime = when a change was first seen waiting for a sync (for "backup stale"). */
  unsyncedSince: string;
  /** The rsync --exclude-from list of this sync (kept for doctor and debugging). */
  excludes: string;
  /** Staging folder for `.brain/<version>.json`, rsynced with the floor. */
  stage: string;
  state: string;
  locks: string;
  /** A `brain sync --now` that found the lock held leaves this; the holder syncs again. */
  pending: string;
  /** A sync cleared a problem and wants the next sync to push the file again. */
  recheck: string;
}

export const SYNCED_DIRS = ['lake', 'manifest', 'meta'] as const;

export function syncPaths(home: string): SyncPaths {
  const l = layout(home);
  const dir = path.join(home, 'sync');
  return {
    dir,
    ledger: path.join(dir, 'ledger.json'),
    lastOk: path.join(dir, 'last-ok'),
    lastTick: path.join(dir, 'last-tick'),
    unsyncedSince: path.join(dir, 'unsynced-since'),
    excludes: path.join(dir, 'excludes'),
    stage: path.join(dir, 'stage'),
    state: l.state,
    locks: l.locks,
    pending: path.join(l.locks, 'sync.pending'),
    recheck: path.join(dir, 'recheck'),
  };
}
