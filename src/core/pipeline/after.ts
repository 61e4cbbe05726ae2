// After a capture pass: which caches follow the floor, when, and whether the tick syncs. Each front
// end states it once as a policy (record, watch, the timer's tick, the editor's worker) and hands
// the passes' reports to one AfterCapture; nothing else decides it, and the capture engine knows
// none of it (watch takes it as a callback). Each cache is deletable and rebuilt from the floor, so
// a failing step is reported and never undoes or blocks capture.
import * as fs from 'node:fs';
import { describe } from '../errors';
import { layout, type Env } from '../home';
import type { CaptureReport } from '../floor/capture';
import type { SyncOutcome } from '../store/sync';

export interface StepResult {
  step: 'secrets' | 'index' | 'duckdb';
  ok: boolean;
  ms: number;
  detail: string;
  /** Something the user should act on: new secrets were found. */
  alert?: boolean;
}

/** A step the front end runs its own way (the editor's worker updates DuckDB in a child process,
 * and its Sessions view holds the turn index open); resolves to what it did. */
export type StepRunner = () => Promise<string> | string;

export interface DuckdbPolicy {
  /** Update only a cache that exists: the first build (about a minute of CPU per GB of lake) is
   * left to the first query, out of capture's way. */
  onlyIfBuilt: boolean;
  /** One update starts at most this often; the passes in between are caught up by one update. */
  minGapMs?: number;
  /** An update waits this long after its pass, so that a burst of passes makes one update (the
   * first pass's update does not wait). */
  delayMs?: number;
  /** Runs the update another way than in this process (a child process). */
  run?: StepRunner;
  /** Never awaited by the pass that asked for it (each update is then put off, if only a little). */
  background?: boolean;
}

export interface AfterCapturePolicy {
  /** Which passes the caches follow: every one, or one that captured something. The first pass is
   * always followed: it brings up what an earlier capture (record --no-caches, a hook) left. */
  follow: 'every-pass' | 'captured';
  /** Scan the new chunks for secrets. */
  secrets: boolean;
  /** Bring this machine's turn index up to the floor (here, or by the front end's runner). */
  index: boolean | StepRunner;
  /** Update the index here in slices of this many ms: the pass waits for the first only, and
   * the rest run one by one between passes (brain watch: capture never waits behind a large
   * session's index). */
  indexSliceMs?: number;
  /** Bring the DuckDB cache up to the floor. */
  duckdb: false | DuckdbPolicy;
  /** After a tick's pass, sync to the store when a floor file changed since the last sync that
   * worked (an idle machine opens no connection). */
  sync: boolean;
}

/** One slice of the turn index's update under `brain watch`: a capture pass waits this long at
 * most behind it. */
export const WATCH_INDEX_SLICE_MS = 1000;

/** DuckDB updates at most this often while sessions keep growing under `brain watch`. */
export const WATCH_DUCKDB_GAP_MS = 30_000;

/** The command line's policies. The editor's worker states its own (extension/worker/recorder.ts). */
export const POLICY = {
  /** brain record: every cache, each step reported; DuckDB's update handed to a follower process
   * where the CLI is its own process (withFollower), else waited for. */
  record: { follow: 'every-pass', secrets: true, index: true, duckdb: { onlyIfBuilt: true }, sync: false },
  /** brain record --no-caches. */
  captureOnly: { follow: 'every-pass', secrets: false, index: false, duckdb: false, sync: false },
  /** brain watch: every cache after each pass that captured; DuckDB, the heaviest, less often. */
  watch: { follow: 'captured', secrets: true, index: true, indexSliceMs: WATCH_INDEX_SLICE_MS, duckdb: { onlyIfBuilt: true, minGapMs: WATCH_DUCKDB_GAP_MS }, sync: false },
  /** brain tick (the timer): capture, then sync if anything changed; the caches are brought up by
   * whoever reads them next. */
  tick: { follow: 'captured', secrets: false, index: false, duckdb: false, sync: true },
} as const satisfies Record<string, AfterCapturePolicy>;

/** `policy` with its DuckDB update handed to a follower process (src/core/cache/follow.ts), which
 * `self` ([node, script]: this CLI again) starts; the step then returns at once. For the CLI's own
 * process: verbs run inside another program (tests, the editor) keep the policy as it is. */
export function withFollower(policy: AfterCapturePolicy, home: string, self: string[], env: Env): AfterCapturePolicy {
  if (!policy.duckdb) return policy;
  return { ...policy, duckdb: { ...policy.duckdb, run: async () => (await import('../cache/follow')).startFollower(home, self, env) } };
}

/** Whether a pass put anything on the floor. */
export function captured(r: CaptureReport): boolean {
  return r.applied > 0 || Object.values(r.lanes).some((c) => c.chunks > 0);
}

async function step(name: StepResult['step'], fn: () => Promise<string | { detail: string; alert: boolean }> | string): Promise<StepResult> {
  const t0 = performance.now();
  try {
    const got = await fn();
    const r: StepResult = { step: name, ok: true, ms: performance.now() - t0, detail: typeof got === 'string' ? got : got.detail };
    if (typeof got !== 'string' && got.alert) r.alert = true;
    return r;
  } catch (e) {
    return { step: name, ok: false, ms: performance.now() - t0, detail: describe(e) };
  }
}

// Each step loads its module only when it runs: the native modules (better-sqlite3, DuckDB) stay
// out of processes that never need them.
async function scanSecrets(home: string): Promise<{ detail: string; alert: boolean }> {
  const { scanPending } = await import('../secrets/index');
  const r = await scanPending(home, { waitMs: 0 });
  if (!r.ran) return { detail: 'another scan is running', alert: false };
  return r.added.length > 0
    ? { detail: `${r.added.length} new secret(s) found in captured sessions: run \`brain secrets\` and rotate them`, alert: true }
    : { detail: `${r.chunks} new chunk(s) scanned, no new secrets`, alert: false };
}

async function updateIndex(home: string, env: Env, budgetMs?: number): Promise<{ detail: string; more: boolean }> {
  const { openIndex } = await import('../index/turnindex');
  const { homeRoot } = await import('../index/roots');
  const o = openIndex(homeRoot(env, home));
  if (!o.ok) return { detail: `not updated: ${o.reason} (search falls back to a scan)`, more: false };
  try {
    const r = o.index.update({ budgetMs });
    const said = `${r.turns} turns from ${r.files} files${r.thread_failed ? ` (${r.thread_failed}; parsed in this thread instead)` : ''}`;
    return { detail: r.more ? `${said} so far; the rest between capture passes` : said, more: !!r.more };
  } finally {
    o.index.close();
  }
}

async function updateDuckdb(home: string): Promise<string> {
  // Before DuckDB is loaded (about half a second): a cache noted current needs nothing.
  const { cacheKnownCurrent } = await import('../cache/fresh');
  if (cacheKnownCurrent(home)) return 'current';
  const { updateCache } = await import('../cache/index');
  const r = await updateCache(home);
  return r.mode === 'current' ? 'current' : `${r.mode}: ${r.manifestLines} manifest line(s)${r.problems.length ? `, ${r.problems.length} problem(s)` : ''}`;
}

export interface AfterCaptureHooks {
  /** Every step that ran: each followed pass's, and later each update that was put off (DuckDB's,
   * by minGapMs, delayMs or a runner), whoever asked for it. */
  onSteps?: (steps: StepResult[]) => void;
}

/** One front end's follower of the floor: it takes each pass's report, in order, one at a time. */
export class AfterCapture {
  private chain: Promise<unknown> = Promise.resolve();
  private followed = false;
  private closed = false;
  // DuckDB's updates run one at a time, in this chain, whoever asked for them.
  private duckChain: Promise<unknown> = Promise.resolve();
  private duckBusy = false;
  private duckTimer: NodeJS.Timeout | undefined;
  private duckLast = 0;
  private indexTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly home: string,
    readonly env: Env,
    readonly policy: AfterCapturePolicy,
    private hooks: AfterCaptureHooks = {},
  ) {}

  /** Follows one pass (null: it failed). Resolves with the steps that ran for it; an update put
   * off is reported to onSteps once it has run. */
  follow(r: CaptureReport | null): Promise<StepResult[]> {
    const p = this.chain.then(async () => {
      const steps = await this.run(r);
      if (steps.length > 0) this.hooks.onSteps?.(steps);
      return steps;
    });
    this.chain = p.catch(() => undefined);
    return p;
  }

  private async run(r: CaptureReport | null): Promise<StepResult[]> {
    const first = !this.followed;
    if (this.closed || !(first || this.policy.follow === 'every-pass' || (r !== null && captured(r)))) return [];
    this.followed = true;
    const out: StepResult[] = [];
    const { secrets, index, duckdb } = this.policy;
    if (secrets) out.push(await step('secrets', () => scanSecrets(this.home)));
    if (typeof index === 'function') out.push(await step('index', index));
    else if (index) out.push(await this.indexNow());
    if (duckdb && !(duckdb.onlyIfBuilt && !fs.existsSync(layout(this.home).duckdb))) {
      const wait = Math.max(first ? 0 : (duckdb.delayMs ?? 0), this.duckLast + (duckdb.minGapMs ?? 0) - Date.now());
      // In this process and due: the pass waits for it, and reports it with its other steps.
      if (wait <= 0 && !duckdb.background && !this.duckBusy && !this.duckTimer) out.push(await this.duckNow());
      else this.duckSoon(Math.max(0, wait));
    }
    return out;
  }

  /** One update of the index (a slice of it, with indexSliceMs, the rest then put off). */
  private async indexNow(): Promise<StepResult> {
    let more = false;
    const r = await step('index', async () => {
      const u = await updateIndex(this.home, this.env, this.policy.indexSliceMs);
      more = u.more;
      return u.detail;
    });
    if (more) this.indexSoon();
    return r;
  }

  /** The next slice, after the event loop has had its turn (a capture pass that is due runs
   * first); asking again while one is waiting adds nothing. */
  private indexSoon(): void {
    if (this.indexTimer || this.closed) return;
    this.indexTimer = setTimeout(() => {
      this.indexTimer = undefined;
      if (this.closed) return;
      // In the passes' chain: a slice and a pass's own update never run at once.
      this.chain = this.chain.then(async () => {
        if (this.closed) return;
        const s = await this.indexNow();
        if (!this.indexTimer) this.hooks.onSteps?.([s]);
      });
    }, 0);
    this.indexTimer.unref?.();
  }

  private duckNow(): Promise<StepResult> {
    const d = this.policy.duckdb as DuckdbPolicy;
    const p = this.duckChain.then(async (): Promise<StepResult> => {
      // Waiting behind a running update when the front end closed: it is not started.
      if (this.closed) return { step: 'duckdb', ok: true, ms: 0, detail: 'not run: closing' };
      this.duckBusy = true;
      this.duckLast = Date.now();
      try {
        return await step('duckdb', d.run ?? (() => updateDuckdb(this.home)));
      } finally {
        this.duckBusy = false;
      }
    });
    this.duckChain = p.catch(() => undefined);
    return p;
  }

  /** One update later; asking again while one is waiting adds nothing. */
  private duckSoon(wait: number): void {
    if (this.duckTimer || this.closed) return;
    this.duckTimer = setTimeout(() => {
      this.duckTimer = undefined;
      if (this.closed) return;
      void this.duckNow().then((s) => this.hooks.onSteps?.([s]));
    }, wait);
    this.duckTimer.unref?.();
  }

  /** After a tick's pass: sync when the policy says so and a floor file changed since the last sync
   * that worked. Null when it did not sync. */
  async sync(): Promise<SyncOutcome | null> {
    if (!this.policy.sync) return null;
    // Loaded only here: the lock, the transport and the checks are not needed before.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { isDue, noteUnsynced, runSync } = require('../store/sync') as typeof import('../store/sync');
    if (!isDue(this.home)) return null;
    noteUnsynced(this.home);
    return runSync(this.home, { env: this.env });
  }

  /** Stops what was put off and waits for what is running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.duckTimer) clearTimeout(this.duckTimer);
    if (this.indexTimer) clearTimeout(this.indexTimer);
    this.indexTimer = undefined;
    this.duckTimer = undefined;
    await this.chain;
    await this.duckChain;
  }
}

/** One pass followed at once, nothing left running (brain record). */
export async function afterCapture(home: string, env: Env, policy: AfterCapturePolicy, r: CaptureReport | null): Promise<StepResult[]> {
  const a = new AfterCapture(home, env, policy);
  try {
    return await a.follow(r);
  } finally {
    await a.close();
  }
}
