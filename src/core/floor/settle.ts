// The floor as it is copied out (brain sync, brain backup): rsync copies whole lake files, so any
// byte past the manifest's claims would reach the copy as if it were floor. Such bytes exist only
// while a pass writes (its journal accounts for them) or after one was killed (until the next pass
// claims or cuts them). So a copy starts under the floor lock, after the recovery a pass would run
// first: what a killed pass left is claimed or cut. `brain backup` keeps the lock while it copies;
// `brain sync` lets go before its push (a pass then claims what it writes; see sync.ts).
import { mkdirPrivate, layout } from '../home';
import { Applier } from './apply';
import { waitLock, type HeldLock } from './lock';

/** How long a sync or backup waits for a capture pass to end. */
export const SETTLE_WAIT_MS = 60_000;

/** The floor lock, taken once the floor holds no unclaimed byte; null when a pass held it for
 * `waitMs`. The caller releases it when its copy is done. */
export async function settledFloor(home: string, waitMs = SETTLE_WAIT_MS): Promise<HeldLock | null> {
  const l = layout(home);
  mkdirPrivate(l.locks);
  const lock = await waitLock(l.locks, 'floor', waitMs);
  if (!lock) return null;
  const a = new Applier(l);
  try {
    a.recover();
  } catch (e) {
    lock.release();
    throw e;
  } finally {
    a.close();
  }
  return lock;
}
