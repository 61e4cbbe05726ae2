// The watcher's passes (watch.ts): which files changed since the last pass, whether the next one
// must be full, and the timers that ask for one. One pass runs at a time, in the order asked.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Env } from '../home';
import { setting } from '../settings';
import { walkTree } from '../walk';
import { capture, quietFromEnv, rewriteQuietFromEnv, type CaptureReport } from './capture';

/** The longest a change waits for its pass while more changes keep coming. */
const MAX_WAIT_MS = 1_000;
/** A new folder is walked again this long after it appeared. */
const NEW_DIR_AGAIN_MS = 2_000;
/** A new folder with more files than this (a folder of sessions moved in) gets a full pass instead. */
const NEW_DIR_MAX_FILES = 2_000;

export interface PassOptions {
  home: string;
  debounceMs?: number;
  onPass?: (r: CaptureReport) => void | Promise<void>;
  onError?: (e: unknown) => void;
}

export class Passes {
  /** Set by close(): no pass starts and no timer is set from then on. */
  closed = false;
  /** The report of the latest pass. */
  lastReport: CaptureReport = undefined as unknown as CaptureReport;
  private readonly changed = new Set<string>();
  private fullNext = false;
  private running: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private waitingSince = 0;
  private readonly newDirs = new Set<string>();
  private readonly dirTimers = new Set<NodeJS.Timeout>();
  private readonly debounce: number;
  private readonly quietMs: number;
  private readonly rewriteQuietMs: number;
  /** How long a pass waits for another writer (BRAIN_WATCH_LOCK_WAIT_SECONDS, for tests). */
  private readonly lockWaitMs: number;
  /** A full pass (which runs the prefix check, check.ts) comes this long after a pass that left
   * checks waiting. */
  private readonly checkMs: number;

  constructor(
    private readonly opts: PassOptions,
    private readonly env: Env,
  ) {
    this.debounce = opts.debounceMs ?? 300;
    this.quietMs = quietFromEnv(env);
    this.rewriteQuietMs = rewriteQuietFromEnv(env);
    this.lockWaitMs = setting(env, 'BRAIN_WATCH_LOCK_WAIT_SECONDS') * 1000;
    this.checkMs = setting(env, 'BRAIN_WATCH_CHECK_SECONDS') * 1000;
  }

  /** A file changed: it is captured with the next pass. */
  change(p: string): void {
    this.changed.add(p);
    this.kick();
  }

  /** The next pass goes over every session file. */
  full(): void {
    this.fullNext = true;
    this.kick();
  }

  /** A new folder (an agent opening a dated folder each day, or a project folder, and
   * <session>/subagents/): chokidar lists it and only then watches it, so a file written in between
   * is never reported (chokidar issues #1112, #1471). Its files are looked for by walking it, once
   * with the next pass and once more a little later, when the watch on it is surely in place. */
  newDir(p: string): void {
    this.newDirs.add(p);
    this.kick();
    const t = setTimeout(() => {
      this.dirTimers.delete(t);
      if (this.closed) return;
      this.newDirs.add(p);
      this.kick();
    }, NEW_DIR_AGAIN_MS);
    t.unref?.();
    this.dirTimers.add(t);
  }

  /** Changes that keep coming (an agent streaming a long run) are taken in at least every
   * MAX_WAIT_MS: each one puts the pass off by the debounce, but never past that. */
  private kick(): void {
    const now = Date.now();
    if (this.timer) {
      if (now - this.waitingSince >= MAX_WAIT_MS) return;
      clearTimeout(this.timer);
    } else this.waitingSince = now;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const d of this.newDirs) if (!filesUnder(d, this.changed)) this.fullNext = true;
      this.newDirs.clear();
      const only = this.fullNext ? undefined : new Set(this.changed);
      this.fullNext = false;
      this.changed.clear();
      void this.run(only);
    }, this.debounce);
  }

  /** Queues a pass over `only` (every file when undefined); resolves when it and its onPass are done. */
  run(only: Set<string> | undefined): Promise<void> {
    this.running = this.running.then(async () => {
      if (this.closed) return;
      try {
        // Another writer may hold the floor (a second window, the timer): wait for it.
        // Ctrl-C stops a long pass (a first catch-up) between two files.
        const r = await capture({ home: this.opts.home, env: this.env, source: 'watch', only, lockWaitMs: this.lockWaitMs, shouldStop: () => this.closed });
        if (r.busy) {
          // Another writer kept the floor past the wait: this pass's changes go with the next one,
          // which is asked for now (it waits for the lock again), not left for a later change.
          if (only) for (const p of only) this.changed.add(p);
          else this.fullNext = true;
          this.kick();
        }
        this.lastReport = r;
        const after = this.opts.onPass?.(r);
        this.scheduleQuiet(r, only === undefined);
        this.scheduleCheck(r, only === undefined);
        await after;
      } catch (e) {
        this.opts.onError?.(e);
      }
    });
    return this.running;
  }

  /** A full pass once an unterminated line's file, or a session rewritten whole, has gone quiet. */
  private scheduleQuiet(r: CaptureReport, full: boolean): void {
    const deferred = Object.values(r.lanes).some((c) => c.deferred > 0);
    const waiting = Object.values(r.lanes).some((c) => c.pending > 0) || hasPending(this.opts.home);
    // A pass over a few changed files says nothing of the others: a rewrite an earlier pass put
    // off (another file of the same session, rewritten whole) keeps its timer.
    if (!full && !waiting && !deferred) return;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    if ((waiting || deferred) && !this.closed) {
      const wait = Math.min(waiting ? this.quietMs : Infinity, deferred ? this.rewriteQuietMs : Infinity);
      this.quietTimer = setTimeout(() => this.full(), Math.max(250, wait + 250));
      this.quietTimer.unref?.();
    }
  }

  /** Sessions that grew past bytes already on the floor are checked whole by full passes only. */
  private scheduleCheck(r: CaptureReport, full: boolean): void {
    if (full && this.checkTimer) {
      clearTimeout(this.checkTimer);
      this.checkTimer = undefined;
    }
    if (r.prefix_check.waiting === 0 || this.checkTimer || this.closed) return;
    this.checkTimer = setTimeout(() => {
      this.checkTimer = undefined;
      this.full();
    }, this.checkMs);
    this.checkTimer.unref?.();
  }

  /** No more passes: the timers are cleared; settled() is the pass still running. */
  close(): void {
    this.closed = true;
    for (const t of this.dirTimers) clearTimeout(t);
    if (this.timer) clearTimeout(this.timer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    if (this.checkTimer) clearTimeout(this.checkTimer);
  }

  settled(): Promise<void> {
    return this.running;
  }
}

/** Adds the files below `dir` (symlinks not followed) to `out`; false when there are too many to
 * list one by one. A folder that vanished adds nothing. */
function filesUnder(dir: string, out: Set<string>): boolean {
  let whole = true;
  walkTree(
    dir,
    (e) => {
      if (!e.dir) out.add(e.abs);
      if (out.size <= NEW_DIR_MAX_FILES) return false;
      whole = false;
      return true;
    },
    { skip: (n) => n === '.git' },
  );
  return whole;
}

function hasPending(home: string): boolean {
  try {
    for (const lane of fs.readdirSync(path.join(home, 'spool'))) {
      try {
        if (fs.readdirSync(path.join(home, 'spool', lane, 'pending')).some((n) => n.endsWith('.json'))) return true;
      } catch {
        /* no pending folder */
      }
    }
  } catch {
    /* no spool yet */
  }
  return false;
}
