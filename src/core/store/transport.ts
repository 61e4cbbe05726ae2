// The store, as the rest of the sync sees it: one narrow interface (StoreTransport) with two
// implementations, a local folder (local.ts) and an ssh host:path (ssh.ts). rsync.ts holds what
// both share (the push runner, rsync flags and how rsync's and ssh's failures read). Retry is not
// inside either: withRetry wraps a transport with a policy.
//
// The contract every implementation keeps (test/store/transport.test.ts runs it against both):
// no method rejects; a failure comes back as a value with a short label, a message naming the
// cause and a hint, the same labels for both (classifyFailure in rsync.ts):
//   'store folder missing'   the configured store folder does not exist (never created by brain)
//   'store unreachable', 'store refused login', 'store timed out'   (ssh) the host did not let us in
import type { Config } from '../config';
import type { Env } from '../home';
import { type PushOptions, type RsyncRun } from './rsync';
import { LocalFolder } from './local';
import { SshHost } from './ssh';
import { setting } from '../settings';

export type Failure = NonNullable<RsyncRun['failure']>;
export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

/** One entry under the store root (a listing is recursive; paths relative to the root). */
export interface StoreEntry {
  rel: string;
  isDir: boolean;
  size: number;
  /** ms since the epoch (whole seconds over ssh). */
  mtime: number;
}

/** What a push needs beyond the transport's own config: see PushOptions in rsync.ts. */
export type PushRequest = Omit<PushOptions, 'cfg' | 'env'>;

export interface StoreTransport {
  /** `host:path` or `path`, for messages. */
  readonly label: string;
  /** Can a connection be made now without a prompt? True for a local folder and for ssh unless
   * ssh_mux_only is set and no master runs (asked with `ssh -O check`, never connecting). */
  ready(): Promise<boolean>;
  /** Everything under the store root, recursively. Fails with 'store folder missing' when the
   * root is not there, over ssh with the connection's failure. */
  list(): Promise<Result<StoreEntry[]>>;
  /** A small file under the store root (e.g. `<machine>/.brain/floor-id`): its text, or null when
   * it is not there. Fails as list does. */
  readFile(rel: string): Promise<Result<string | null>>;
  /** Copies these files of <store>/<machine>/ into the local folder `into` (reading only); a file
   * not at the store is left out, for the caller to find missing. Fails as list does. */
  fetch(rels: string[], into: string): Promise<Result<void>>;
  /** The store-side step (script.ts) then rsync, in one connection. Never rejects: a failure is
   * in run.failure ('store folder missing', 'machine name taken', connection failures...). */
  push(o: PushRequest): Promise<RsyncRun>;
}

/** The transport the config names. */
export function openTransport(cfg: Config, env: Env): StoreTransport {
  if (!cfg.store) throw new Error(`${cfg.file} has no [store]`);
  return cfg.store.host ? new SshHost(cfg, env) : new LocalFolder(cfg, env);
}

export interface RetryPolicy {
  /** Further tries after a failed push. */
  retries: number;
  delayMs: number;
  /** Whether a failed run is worth another try. */
  retryable(run: RsyncRun): boolean;
}

/** A push that failed for the connection's sake is not what a refusal (machine name taken) or a
 * stop by signal is: only the first is retried. */
export function connectionFailed(run: RsyncRun): boolean {
  return !!run.failure && !run.interrupted && run.failure.label !== 'machine name taken';
}

/** ssh_mux_only: over a live master a retry costs no prompt and no touch; one, after a delay. */
export function muxRetryPolicy(env: Env): RetryPolicy {
  return { retries: 1, delayMs: setting(env, 'BRAIN_RETRY_DELAY') * 1000, retryable: connectionFailed };
}

/** The same transport with push retried by `policy`, each try only while the transport is ready
 * (checked before the wait and again after it). The run returned is the last try's; the tries it
 * replaced are in its `earlier`, since their store-side checks ran and count. */
export function withRetry(t: StoreTransport, policy: RetryPolicy): StoreTransport {
  return {
    label: t.label,
    ready: () => t.ready(),
    list: () => t.list(),
    readFile: (rel) => t.readFile(rel),
    fetch: (rels, into) => t.fetch(rels, into),
    async push(o) {
      let run = await t.push(o);
      for (let i = 0; i < policy.retries && policy.retryable(run); i++) {
        if (!(await t.ready())) break;
        await new Promise((res) => setTimeout(res, policy.delayMs));
        if (!(await t.ready())) break;
        // The checks run again: a store copy moved aside is now missing, one half-sent is checked anew.
        const next = await t.push(o);
        run = { ...next, earlier: [...(run.earlier ?? []), run, ...(next.earlier ?? [])] };
      }
      return run;
    },
  };
}
