// The recorder: one window per machine writes the floor (the `recorder` lock; the others follow
// and take over when it goes). The writer runs the catch-up with progress, the watcher and the
// tick; what follows each pass is the core's after-capture pipeline, with this worker's policy.
import { BrainError, describe } from '../../core/errors';
import { layout } from '../../core/home';
import { capture, type CaptureReport } from '../../core/floor/capture';
import { tryLock, type HeldLock } from '../../core/floor/lock';
import { startWatch, type Watcher } from '../../core/floor/watch';
import { AfterCapture, type AfterCapturePolicy, type StepResult } from '../../core/pipeline/after';
import { tick } from '../../core/pipeline/tick';
import type { Role } from '../protocol';
import type { WorkerCtx } from './context';
import type { DuckdbFollower } from './duckdb';

/** How long DuckDB's update waits after a pass, so that a burst of passes makes one update. */
const DUCKDB_DELAY_MS = 10_000;

export class Recorder {
  role: Role = 'off';
  private lock: HeldLock | null = null;
  private watcher: Watcher | undefined;
  private catchUpStop = false;
  private electing = false;
  private lastProblem: string | null = null;
  private timers: NodeJS.Timeout[] = [];
  private after: AfterCapture;

  constructor(
    private ctx: WorkerCtx,
    duck: DuckdbFollower,
    /** Called after each tick (the backup state may have changed). */
    private afterTick: () => void,
  ) {
    // The caches after each pass that captured something, each its own way here: the secret scan
    // in this thread; the turn index by the Sessions view's refresh (FloorView holds it open);
    // DuckDB in a child process a little later (never in the editor's process). The tick syncs.
    const policy: AfterCapturePolicy = {
      follow: 'captured',
      secrets: true,
      index: () => {
        ctx.refreshSoon(0);
        return 'by the Sessions view';
      },
      duckdb: { onlyIfBuilt: false, delayMs: DUCKDB_DELAY_MS, run: duck.update, background: true },
      sync: true,
    };
    this.after = new AfterCapture(ctx.home, ctx.params.env, policy, { onSteps: (s) => this.report(s) });
  }

  private setRole(r: Role, reason?: string): void {
    if (r === this.role) return;
    this.role = r;
    this.ctx.emit('role', { role: r, reason });
  }

  /** Takes the recorder lock if it is free, now and every few seconds (a follower takes over when
   * the writer's window closes: its lock dies with its process). */
  start(): void {
    if (!this.ctx.params.record) {
      this.setRole('off', 'agentBrain.record is off');
      return;
    }
    void this.elect();
    this.timers.push(setInterval(() => void this.elect(), 5000));
  }

  cancelCatchUp(): void {
    this.catchUpStop = true;
  }

  private async elect(): Promise<void> {
    // One attempt at a time: a second one while the first holds the lock would see it taken.
    if (this.electing || this.ctx.closing() || this.role === 'writer' || !this.ctx.params.record) return;
    this.electing = true;
    try {
      this.lock = await tryLock(layout(this.ctx.home).locks, 'recorder');
    } catch (e) {
      this.ctx.log('error', `cannot take the recorder lock: ${describe(e)}`);
      return;
    } finally {
      this.electing = false;
    }
    if (this.lock) await this.becomeWriter();
    else this.setRole('follower', 'another window or process records this machine');
  }

  private cancelled(): boolean {
    const c = this.ctx.cancel;
    return c !== undefined && Atomics.load(c, 0) === 1;
  }

  private async catchUp(): Promise<CaptureReport | null> {
    const { ctx } = this;
    this.catchUpStop = false;
    if (ctx.cancel) Atomics.store(ctx.cancel, 0, 0);
    let files = 0;
    let bytes = 0;
    let lastSent = 0;
    ctx.emit('progress', { phase: 'catch-up', files, bytes, done: false });
    let r: CaptureReport;
    try {
      r = await capture({
        home: ctx.home,
        env: ctx.params.env,
        source: 'record',
        lockWaitMs: 30_000,
        onProgress: (p) => {
          files = p.files;
          bytes = p.bytes;
          // Called per file: the main thread hears of it at most ten times a second.
          const now = Date.now();
          if (now - lastSent < 100) return;
          lastSent = now;
          ctx.emit('progress', { phase: 'catch-up', files, bytes, done: false });
        },
        shouldStop: () => this.catchUpStop || ctx.closing() || this.cancelled(),
      });
    } catch (e) {
      ctx.emit('progress', { phase: 'catch-up', files, bytes, done: true, cancelled: true });
      this.captureProblem(e);
      return null;
    }
    this.captureProblem(null);
    const chunks = Object.values(r.lanes).reduce((n, c) => n + c.chunks, 0);
    const cancelled = this.catchUpStop || this.cancelled();
    ctx.emit('progress', { phase: 'catch-up', files, bytes, done: true, cancelled });
    if (r.busy) ctx.log('info', 'another process was writing the floor; catch-up will run again on the next change');
    else ctx.log('info', `catch-up: ${chunks} chunk(s) from ${files} file(s), ${bytes} bytes${cancelled ? ' (cancelled; resumes on the next start)' : ''}`);
    ctx.refreshSoon(0);
    return r;
  }

  /** One full capture pass (a walk of every agent's folders), as the timer's tick does; null when
   * it did not run or failed (the failure is shown). */
  private async passNow(): Promise<CaptureReport | null> {
    if (this.ctx.closing() || this.role !== 'writer') return null;
    try {
      const r = await capture({ home: this.ctx.home, env: this.ctx.params.env, source: 'watch', lockWaitMs: 30_000, shouldStop: () => this.ctx.closing() });
      this.captureProblem(null);
      return r;
    } catch (e) {
      this.captureProblem(e);
      return null;
    }
  }

  /** The pipeline follows in the background: the next pass does not wait for the caches. */
  private follow(r: CaptureReport | null): void {
    void this.after.follow(r);
  }

  private report(steps: StepResult[]): void {
    if (this.ctx.closing()) return;
    const { log } = this.ctx;
    for (const s of steps) {
      if (s.step === 'secrets' && !s.ok) log('warn', `secret scan: ${s.detail}`);
      else if (s.step === 'secrets' && s.alert) log('warn', s.detail);
      else if (s.step === 'duckdb' && !s.ok) log('warn', `DuckDB cache: ${s.detail} (brain_sql and the activity picture may be out of date; Rebuild Caches)`);
      else if (s.step === 'duckdb' && s.detail !== 'current') log('info', `DuckDB cache ${s.detail}`);
    }
  }

  /** A failed pass is shown (status bar, one notification) until a pass works again; the same
   * problem is said once, not on every pass. */
  private captureProblem(e: unknown): void {
    const problem = e === null ? null : e instanceof BrainError ? e.message : describe(e);
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    if (problem !== null) this.ctx.log('warn', `capture: ${describe(e)}`);
    this.ctx.emit('capture', { problem, hint: e instanceof BrainError ? e.hint : undefined });
  }

  private async becomeWriter(): Promise<void> {
    const { ctx } = this;
    this.setRole('writer');
    // The catch-up is the first pass: followed whatever it found (or if it failed), which brings
    // up the caches an earlier capture left behind.
    this.follow(await this.catchUp());
    if (ctx.closing()) return;
    this.watcher = startWatch({
      home: ctx.home,
      env: ctx.params.env,
      onPass: (r) => {
        this.captureProblem(null);
        this.follow(r);
      },
      // A pass that failed (a full disk) is shown until one works; running out of watches is said
      // once (recording goes on, by walking the folders); other trouble of the watcher is logged.
      onError: (e) => {
        if (e instanceof BrainError && e.code === 'watch-limit') {
          ctx.log('warn', `recorder: ${describe(e)}`);
          ctx.emit('notice', { message: e.message, hint: e.hint });
        } else if (e instanceof BrainError) this.captureProblem(e);
        else ctx.log('warn', `recorder: ${describe(e)}`);
      },
    });
    await this.watcher.ready;
    // The watcher's own scan of the folders finishes after its first pass; a file written in
    // between is seen by this second pass (and by every tick's pass after that).
    this.timers.push(setTimeout(() => void this.passNow().then((r) => r && this.follow(r)), 5000));
    // The same tick the timer runs: it walks at most once per interval, and the pipeline syncs
    // only when something changed since the last sync that worked.
    const onTick = async () => {
      if (ctx.closing() || this.role !== 'writer') return;
      try {
        const r = await tick(ctx.home, { env: ctx.params.env, capture: () => this.passNow(), after: this.after });
        if (r.kind === 'synced' || r.kind === 'captured-error') ctx.refreshSoon(0);
      } catch (e) {
        ctx.log('warn', `tick: ${describe(e)}`);
      }
      this.afterTick();
    };
    this.timers.push(setInterval(() => void onTick(), 60_000));
    void onTick();
  }

  /** Stops every pass and update (a DuckDB child is stopped by its owner meanwhile), then lets go
   * of the recorder lock so another window can take over at once. */
  async close(stopDuckdb: () => void): Promise<void> {
    this.catchUpStop = true;
    for (const t of this.timers) clearInterval(t);
    const after = this.after.close();
    stopDuckdb();
    await after;
    await this.watcher?.close();
    this.lock?.release();
    this.lock = null;
    this.setRole('off', 'closed');
  }
}
