// Continuous capture: chokidar watches every agent's session folders; changes are debounced and
// captured for just the files that changed. While nothing changes no pass runs: there is only a
// stat of each agent's sessions folder every 2 s (there, gone, made again), a timer while an
// unterminated line waits for its file to go quiet, and, past the system's watch limit, a walk of
// every folder every 30 s.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { agents, type OriginRoot } from '../agents';
import { BrainError, errnoCode } from '../errors';
import type { Env } from '../home';
import { capture, quietFromEnv, rewriteQuietFromEnv, type CaptureReport } from './capture';
import { walkTree } from '../walk';
import { setting } from '../settings';

export interface Watcher {
  close(): Promise<void>;
  /** Resolves when the initial catch-up pass is done. */
  ready: Promise<CaptureReport>;
}

export interface WatchOptions {
  home: string;
  env?: Env;
  debounceMs?: number;
  /** After each pass; the next pass waits for it. What follows capture (the caches) is the
   * caller's to decide: it hands its after-capture pipeline in here. */
  onPass?: (r: CaptureReport) => void | Promise<void>;
  onError?: (e: unknown) => void;
}
/** How often every session folder is walked once the system's limit on file watches was reached
 * (BRAIN_WATCH_POLL_SECONDS, 30 s). */
export function watchPollMs(env: Env): number {
  return setting(env, 'BRAIN_WATCH_POLL_SECONDS') * 1000;
}

/** What to say when a folder or file cannot be watched for lack of watches (ENOSPC from inotify on
 * Linux) or of file descriptors (EMFILE). */
function watchLimitError(e: unknown, pollMs: number): BrainError | null {
  const code = errnoCode(e);
  if (code !== 'ENOSPC' && code !== 'EMFILE') return null;
  const linux = process.platform === 'linux' && code === 'ENOSPC';
  return new BrainError(
    'watch-limit',
    `file watching reached this system's limit (${linux ? 'fs.inotify.max_user_watches' : 'open files'}): some session files cannot be watched, so every session folder is now walked every ${Math.round(pollMs / 1000)} s instead; changes reach the floor that much later, nothing is lost`,
    linux
      ? `raise the limit: ${RAISE_WATCHES} (then restart the recorder)`
      : 'raise the open-files limit (ulimit -n) for the editor or `brain watch`, then restart it',
    { cause: e },
  );
}

/** The longest a change waits for its pass while more changes keep coming. */
const MAX_WAIT_MS = 1_000;
/** How often each agent's sessions folder is looked at: there, gone, or made again. */
const ROOT_CHECK_MS = 2_000;
/** A new folder is walked again this long after it appeared. */
const NEW_DIR_AGAIN_MS = 2_000;
/** A new folder with more files than this (a folder of sessions moved in) gets a full pass instead. */
const NEW_DIR_MAX_FILES = 2_000;

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

/** The command that raises Linux's per-user limit on file watches, for good. */
export const RAISE_WATCHES = 'echo fs.inotify.max_user_watches=524288 | sudo tee /etc/sysctl.d/60-agent-brain.conf && sudo sysctl --system';

/** Linux: how many watches recording needs (chokidar watches every file and folder under the
 * session roots) and how many this user may have. Null elsewhere or when the limit is unknown. */
export function watchBudget(env: Env): { needed: number; limit: number } | null {
  if (process.platform !== 'linux') return null;
  const read = (f: string) => {
    try {
      const n = Number(fs.readFileSync(f, 'utf8').trim());
      return n > 0 ? n : Infinity;
    } catch {
      return Infinity;
    }
  };
  // The system's limit, and the one of this user namespace (a container's may be lower).
  const limit = Math.min(read('/proc/sys/fs/inotify/max_user_watches'), read('/proc/sys/user/max_inotify_watches'));
  if (!Number.isFinite(limit)) return null;
  let needed = 0;
  for (const a of agents())
    for (const r of a.roots(env)) {
      if (!fs.existsSync(r.dir)) continue;
      needed++;
      // A flat root (a project folder) is watched for its own files only.
      if (!r.flat) walkTree(r.dir, () => void needed++, { skip: (n) => n === '.git' });
    }
  return { needed, limit };
}

export function startWatch(opts: WatchOptions): Watcher {
  const env = opts.env ?? process.env;
  const debounce = opts.debounceMs ?? 300;
  const quietMs = quietFromEnv(env);
  const rewriteQuietMs = rewriteQuietFromEnv(env);
  const defs = agents().flatMap((a) => a.roots(env));
  const roots = defs.map((r) => r.dir);
  const skip = flatSkipper(defs);
  // How long a pass waits for another writer (BRAIN_WATCH_LOCK_WAIT_SECONDS, for tests).
  const lockWaitMs = setting(env, 'BRAIN_WATCH_LOCK_WAIT_SECONDS') * 1000;
  const pollMs = watchPollMs(env);
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let quietTimer: NodeJS.Timeout | undefined;
  let checkTimer: NodeJS.Timeout | undefined;
  // A full pass (which runs the prefix check, check.ts) comes this long after a pass that left
  // checks waiting.
  const checkMs = setting(env, 'BRAIN_WATCH_CHECK_SECONDS') * 1000;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  let fullPass = false;

  const run = (only: Set<string> | undefined) => {
    running = running.then(async () => {
      if (closed) return;
      try {
        // Another writer may hold the floor (a second window, the timer): wait for it.
        // Ctrl-C stops a long pass (a first catch-up) between two files.
        const r = await capture({ home: opts.home, env, source: 'watch', only, lockWaitMs, shouldStop: () => closed });
        if (r.busy) {
          // Another writer kept the floor past the wait: this pass's changes go with the next one,
          // which is asked for now (it waits for the lock again), not left for a later change.
          if (only) for (const p of only) changed.add(p);
          else fullPass = true;
          kick();
        }
        const after = opts.onPass?.(r);
        scheduleQuiet(r, only === undefined);
        scheduleCheck(r, only === undefined);
        await after;
      } catch (e) {
        opts.onError?.(e);
      }
    });
    return running;
  };

  const scheduleQuiet = (r: CaptureReport, full: boolean) => {
    const deferred = Object.values(r.lanes).some((c) => c.deferred > 0);
    const waiting = Object.values(r.lanes).some((c) => c.pending > 0) || hasPending(opts.home);
    // A pass over a few changed files says nothing of the others: a rewrite an earlier pass put
    // off (another file of the same session, rewritten whole) keeps its timer.
    if (!full && !waiting && !deferred) return;
    if (quietTimer) clearTimeout(quietTimer);
    quietTimer = undefined;
    if ((waiting || deferred) && !closed) {
      const wait = Math.min(waiting ? quietMs : Infinity, deferred ? rewriteQuietMs : Infinity);
      quietTimer = setTimeout(() => {
        fullPass = true;
        kick();
      }, Math.max(250, wait + 250));
      quietTimer.unref?.();
    }
  };

  // Sessions that grew past bytes already on the floor are checked whole by full passes only.
  const scheduleCheck = (r: CaptureReport, full: boolean) => {
    if (full && checkTimer) {
      clearTimeout(checkTimer);
      checkTimer = undefined;
    }
    if (r.prefix_check.waiting === 0 || checkTimer || closed) return;
    checkTimer = setTimeout(() => {
      checkTimer = undefined;
      fullPass = true;
      kick();
    }, checkMs);
    checkTimer.unref?.();
  };

  // Changes that keep coming (an agent streaming a long run) are taken in at least every
  // MAX_WAIT_MS: each one puts the pass off by `debounce`, but never past that.
  let waitingSince = 0;
  const kick = () => {
    const now = Date.now();
    if (timer) {
      if (now - waitingSince >= MAX_WAIT_MS) return;
      clearTimeout(timer);
    } else waitingSince = now;
    timer = setTimeout(() => {
      timer = undefined;
      for (const d of newDirs) if (!filesUnder(d, changed)) fullPass = true;
      newDirs.clear();
      const only = fullPass ? undefined : new Set(changed);
      fullPass = false;
      changed.clear();
      void run(only);
    }, debounce);
  };

  // A new folder (an agent opening a dated folder each day, or a project folder, and
  // <session>/subagents/): chokidar lists it and only then watches it, so a file written in between
  // is never reported (chokidar issues #1112, #1471). Its files are looked for by walking it, once
  // with the next pass and once more a little later, when the watch on it is surely in place.
  const newDirs = new Set<string>();
  const dirTimers = new Set<NodeJS.Timeout>();
  const onNewDir = (p: string) => {
    newDirs.add(p);
    kick();
    const t = setTimeout(() => {
      dirTimers.delete(t);
      if (closed) return;
      newDirs.add(p);
      kick();
    }, NEW_DIR_AGAIN_MS);
    t.unref?.();
    dirTimers.add(t);
  };

  let lastReport: CaptureReport = undefined as unknown as CaptureReport;
  const prevOnPass = opts.onPass;
  opts.onPass = (r) => {
    lastReport = r;
    return prevOnPass?.(r);
  };

  const onEvent = (event: string, p: string) => {
    if (event === 'addDir') return onNewDir(p);
    if (event === 'unlinkDir' && opened.has(p)) return checkRoots();
    if (event === 'unlink') fullPass = true; // a vanished file may have a waiting tail
    else if (event === 'add' || event === 'change') changed.add(p);
    else return;
    kick();
  };
  const opened = new Set(roots.filter((r) => fs.existsSync(r)));
  const watcher: FSWatcher = chokidarWatch([...opened], {
    ignoreInitial: true,
    followSymlinks: false,
    depth: 12,
    ignored: (p: string) => p.includes(`${path.sep}.git${path.sep}`) || skip(p),
  });
  watcher.on('all', onEvent);
  // Out of watches: said once, and from then on a full pass every poll period (the folders that
  // are watched still answer at once).
  let limitTimer: NodeJS.Timeout | undefined;
  const onWatchError = (e: unknown) => {
    const limit = watchLimitError(e, pollMs);
    if (!limit) return opts.onError?.(e);
    if (limitTimer || closed) return;
    limitTimer = setInterval(() => {
      fullPass = true;
      kick();
    }, pollMs);
    limitTimer.unref?.();
    opts.onError?.(limit);
  };
  watcher.on('error', onWatchError);
  // A sessions folder that is not there yet (an agent installed later), or that went away or was
  // made again while this runs (an agent's folder removed, then set up again): a watch on a folder that went
  // away is dead, and one on a folder not there cannot be set. Each root's folder is looked at every
  // ROOT_CHECK_MS (a stat each) and watched again when it is there under a new inode. Watching
  // its parents for it instead would take watches (the nearest parent may be HOME) and would meet
  // chokidar's new-folder race again.
  const rootIno = new Map<string, number>();
  for (const r of opened) rootIno.set(r, dirIno(r) ?? -1);
  const { watcher: dbWatcher, check: checkDbDirs } = watchDatabases(env, {
    changed: (p) => {
      changed.add(p);
      kick();
    },
    full: () => {
      fullPass = true;
      kick();
    },
    error: onWatchError,
  });
  checkDbDirs();
  const checkRoots = () => {
    if (closed) return;
    checkDbDirs();
    for (const r of roots) {
      const ino = dirIno(r);
      if (opened.has(r)) {
        if (ino === rootIno.get(r)) continue;
        opened.delete(r);
        rootIno.delete(r);
        void watcher.unwatch(r);
        fullPass = true; // its files vanished: a waiting tail of one is captured now
        kick();
      }
      if (ino === null) continue;
      opened.add(r);
      rootIno.set(r, ino);
      watcher.add(r);
      fullPass = true;
      kick();
    }
  };
  // Not unref'd: with no agent's folder there yet, this is what keeps `brain watch` waiting.
  const rootTimer = setInterval(checkRoots, ROOT_CHECK_MS);

  // Catch up only once the watchers are live, so nothing written in between is missed.
  const live = (w: FSWatcher) => new Promise<void>((res) => w.once('ready', () => res()));
  // (chokidar given no folder at all never says it is ready.)
  const ready = (opened.size > 0 ? live(watcher) : Promise.resolve())
    .then(() => run(undefined))
    .then(() => lastReport);

  return {
    ready,
    async close() {
      closed = true;
      for (const t of dirTimers) clearTimeout(t);
      if (limitTimer) clearInterval(limitTimer);
      if (timer) clearTimeout(timer);
      if (quietTimer) clearTimeout(quietTimer);
      if (checkTimer) clearTimeout(checkTimer);
      clearInterval(rootTimer);
      await watcher.close();
      await dbWatcher?.close();
      await running;
    },
  };
}

/** What the watcher leaves alone inside a flat root (OriginRoot.flat: a project folder, of which
 * only the agent's own files are watched), unless it is inside another agent's (deep) root too. */
export function flatSkipper(defs: OriginRoot[]): (p: string) => boolean {
  const flat = defs.filter((r) => r.flat).map((r) => ({ dir: path.resolve(r.dir), include: r.include }));
  if (flat.length === 0) return () => false;
  const deep = defs.filter((r) => !r.flat).map((r) => path.resolve(r.dir));
  const within = (p: string, d: string) => p === d || p.startsWith(d.endsWith(path.sep) ? d : d + path.sep);
  return (raw: string) => {
    const p = path.resolve(raw);
    if (deep.some((d) => within(p, d))) return false;
    // A flat root itself, or a file one of them takes (roots may nest: two repositories).
    if (flat.some((f) => p === f.dir || (path.dirname(p) === f.dir && f.include(path.basename(p))))) return false;
    return flat.some((f) => within(p, f.dir));
  };
}

/** The inode of a folder (null: not there, or not a folder). */
function dirIno(p: string): number | null {
  try {
    const st = fs.statSync(p);
    return st.isDirectory() ? st.ino : null;
  } catch {
    return null;
  }
}

/** startWatch's watch on the agents' database folders: `changed` when a database or its -wal
 * changes, `full` when one goes away or `check` (run with the roots) finds a folder of them. */
function watchDatabases(
  env: Env,
  on: { changed: (p: string) => void; full: () => void; error: (e: unknown) => void },
): { watcher: FSWatcher | null; check: () => void } {
  // Agents' databases (dbcapture.ts): their folders are watched one level deep, apart from the
  // session roots (an agent's data folder also holds logs and snapshots nobody records), and a
  // change of the database or its -wal is a pass for that database. A folder not there yet is
  // looked for with the roots.
  const dbFiles = new Set<string>();
  const dbDirs = new Set<string>();
  for (const a of agents())
    for (const d of a.databases?.(env) ?? []) {
      dbFiles.add(path.resolve(d.file));
      dbFiles.add(path.resolve(`${d.file}-wal`));
      dbDirs.add(path.dirname(path.resolve(d.file)));
    }
  const dbWatched = new Set<string>();
  const dbWatcher: FSWatcher | null =
    dbDirs.size > 0 ? chokidarWatch([], { ignoreInitial: true, followSymlinks: false, depth: 0 }) : null;
  dbWatcher?.on('all', (event: string, p: string) => {
    if (!dbFiles.has(path.resolve(p))) return;
    if (event === 'unlink') on.full();
    else on.changed(p);
  });
  dbWatcher?.on('error', on.error);
  const checkDbDirs = () => {
    for (const d of dbDirs) {
      if (dbWatched.has(d) || dirIno(d) === null) continue;
      dbWatched.add(d);
      dbWatcher?.add(d);
      on.full();
    }
  };
  return { watcher: dbWatcher, check: checkDbDirs };
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
