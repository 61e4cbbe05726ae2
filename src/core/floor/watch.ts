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
import type { CaptureReport } from './capture';
import { Passes } from './passes';
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

/** How often each agent's sessions folder is looked at: there, gone, or made again. */
const ROOT_CHECK_MS = 2_000;

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
  const passes = new Passes(opts, env);
  const limit = pollPastLimit(watchPollMs(env), passes, opts.onError);
  const roots = watchRoots(
    agents().flatMap((a) => a.roots(env)),
    passes,
    { rootGone: () => checkAll(), error: limit.onError },
  );
  const dbs = watchDatabases(env, { changed: (p) => passes.change(p), full: () => passes.full(), error: limit.onError });
  dbs.check();
  function checkAll(): void {
    if (passes.closed) return;
    dbs.check();
    roots.check();
  }
  // Not unref'd: with no agent's folder there yet, this is what keeps `brain watch` waiting.
  const rootTimer = setInterval(checkAll, ROOT_CHECK_MS);
  // Catch up only once the watchers are live, so nothing written in between is missed.
  const ready = roots.live.then(() => passes.run(undefined)).then(() => passes.lastReport);
  return {
    ready,
    async close() {
      passes.close();
      limit.stop();
      clearInterval(rootTimer);
      await roots.watcher.close();
      await dbs.watcher?.close();
      await passes.settled();
    },
  };
}

/** Out of watches: said once, and from then on a full pass every poll period (the folders that
 * are watched still answer at once). Other watch errors go to `onError` as they come. */
function pollPastLimit(pollMs: number, passes: Passes, onError: ((e: unknown) => void) | undefined): { onError: (e: unknown) => void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    onError: (e) => {
      const limit = watchLimitError(e, pollMs);
      if (!limit) return onError?.(e);
      if (timer || passes.closed) return;
      timer = setInterval(() => passes.full(), pollMs);
      timer.unref?.();
      onError?.(limit);
    },
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}

/** startWatch's watch on the agents' session folders. A sessions folder that is not there yet (an
 * agent installed later), or that went away or was made again while this runs (an agent's folder
 * removed, then set up again): a watch on a folder that went away is dead, and one on a folder not
 * there cannot be set. `check` (run every ROOT_CHECK_MS, a stat for each root) watches a root
 * again when it is there under a new inode. Watching its parents for it instead would take watches
 * (the nearest parent may be HOME) and would meet chokidar's new-folder race again. `live`
 * resolves once the first folders are watched. */
function watchRoots(
  defs: OriginRoot[],
  passes: Passes,
  on: { rootGone: () => void; error: (e: unknown) => void },
): { watcher: FSWatcher; live: Promise<void>; check: () => void } {
  const roots = defs.map((r) => r.dir);
  const skip = flatSkipper(defs);
  const opened = new Set(roots.filter((r) => fs.existsSync(r)));
  const watcher: FSWatcher = chokidarWatch([...opened], {
    ignoreInitial: true,
    followSymlinks: false,
    depth: 12,
    ignored: (p: string) => p.includes(`${path.sep}.git${path.sep}`) || skip(p),
  });
  watcher.on('all', (event: string, p: string) => {
    if (event === 'addDir') return passes.newDir(p);
    if (event === 'unlinkDir' && opened.has(p)) return on.rootGone();
    if (event === 'unlink') passes.full(); // a vanished file may have a waiting tail
    else if (event === 'add' || event === 'change') passes.change(p);
  });
  watcher.on('error', on.error);
  const rootIno = new Map<string, number>();
  for (const r of opened) rootIno.set(r, dirIno(r) ?? -1);
  const check = () => {
    for (const r of roots) {
      const ino = dirIno(r);
      if (opened.has(r)) {
        if (ino === rootIno.get(r)) continue;
        opened.delete(r);
        rootIno.delete(r);
        void watcher.unwatch(r);
        passes.full(); // its files vanished: a waiting tail of one is captured now
      }
      if (ino === null) continue;
      opened.add(r);
      rootIno.set(r, ino);
      watcher.add(r);
      passes.full();
    }
  };
  // (chokidar given no folder at all never says it is ready.)
  const live = opened.size > 0 ? new Promise<void>((res) => watcher.once('ready', () => res())) : Promise.resolve();
  return { watcher, live, check };
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
