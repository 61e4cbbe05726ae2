// The extension's worker thread (dist/worker.js): everything that reads or writes the floor runs
// here, so the extension host's main thread only draws. It holds the recorder when this window is
// the writer (the `recorder` lock: one per machine, the others follow and take over when it goes),
// runs the catch-up with progress, the watcher and the tick, and answers the views' questions.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { BrainError, describe } from '../core/errors';
import { brainHome, ensureHome, layout } from '../core/home';
import { capture } from '../core/floor/capture';
import { recordingProblem } from '../core/floor/health';
import { tryLock, type HeldLock } from '../core/floor/lock';
import { startWatch, type Watcher } from '../core/floor/watch';
import { readConfig } from '../core/config';
import { sqliteLoadError } from '../core/sqlite';
import { effectiveWarning } from '../core/store/state';
import { listMachines } from '../core/store/machines';
import { retentionGuard, retentionWarning } from '../core/store/retention';
import { runSync } from '../core/store/sync';
import type { BuildResult, SqlResult } from '../core/cache';
import { tick as tickCore } from '../core/store/tick';
import { scanPending } from '../core/secrets/scan';
import { FloorView } from '../core/recall/floorview';
import type { BackupInfo, InitParams, Role, WorkerEvent, WorkerReply, WorkerRequest } from './protocol';
import { recall } from './recall';

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread');

// On Linux a nice value belongs to one thread, and setpriority(0) names the calling one: this
// thread, and every thread and child process it starts (hashing, parsing, rsync), yields the CPU
// to the editor's main thread on a busy machine. Elsewhere it would lower the whole editor: skipped.
if (process.platform === 'linux') {
  try {
    os.setPriority(10);
  } catch {
    /* not allowed here: the work runs at normal priority */
  }
}

function emit(e: WorkerEvent): void {
  port!.postMessage(e);
}
function log(level: 'info' | 'warn' | 'error', message: string): void {
  emit({ event: 'log', data: { level, message } });
}

let params: InitParams;
let home = '';
let view: FloorView | undefined;
let role: Role = 'off';
let recorderLock: HeldLock | null = null;
let watcher: Watcher | undefined;
let catchUpStop = false;
let cancelFlag: Int32Array | undefined;
let closing = false;
const timers: NodeJS.Timeout[] = [];

function setRole(r: Role, reason?: string): void {
  if (r === role) return;
  role = r;
  emit({ event: 'role', data: { role: r, reason } });
}

/** Runs the CLI (the same core) as a child: used for sync, status, doctor, backup, tick. */
export function runCli(args: string[], timeoutMs = 10 * 60_000, started?: (c: ChildProcess) => void, background = false): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The bundled cli.js runs on the editor's own Node: in desktop VS Code process.execPath is
    // Electron, and ELECTRON_RUN_AS_NODE makes it plain Node. agentBrain.cliPath may name any
    // other `brain` executable.
    const js = /\.[cm]?js$/.test(params.cli);
    const child = spawn(js ? process.execPath : params.cli, js ? [params.cli, ...args] : args, {
      // Background work also keeps DuckDB to one thread (about 10% slower than two here).
      env: { ...process.env, ...params.env, ELECTRON_RUN_AS_NODE: '1', ...(background ? { BRAIN_DUCKDB_THREADS: '1' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started?.(child);
    // Background work yields the CPU to the editor (its main thread shares the machine's cores).
    if (background && child.pid) {
      try {
        os.setPriority(child.pid, 10);
      } catch {
        /* not permitted here: it runs at normal priority */
      }
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(t);
      resolve({ code: 127, stdout, stderr: stderr + String(e) });
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

async function sqlViaCli(query: string, limit: number): Promise<SqlResult> {
  // The cache's own update is running: wait for it rather than be refused its lock.
  await cacheRunning?.catch(() => undefined);
  const r = await runCli(['sql', '--json', '--limit', String(limit), query], 10 * 60_000);
  if (r.code === 0) return JSON.parse(r.stdout) as SqlResult;
  // The CLI's error is the core's BrainError, printed as "brain sql: message\n  hint".
  const [msg, ...hint] = r.stderr.replace(/^brain sql:\s*/, '').trim().split('\n');
  throw new BrainError(r.code === 2 ? 'usage' : 'sql', msg || `brain sql exited ${r.code}`, hint.join(' ').trim() || undefined);
}

// ---- sessions -------------------------------------------------------------------------------

let refreshTimer: NodeJS.Timeout | undefined;
function refreshSoon(delay = 150): void {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    try {
      const n = view?.refresh() ?? 0;
      if (n > 0) emit({ event: 'sessions', data: { changed: n } });
    } catch (e) {
      log('warn', `reading the manifest: ${describe(e)}`);
    }
  }, delay);
}

// ---- backup state ---------------------------------------------------------------------------

let lastBackupJson = '';
let storeInfo: { at: number; machines: BackupInfo['machines']; atRisk: number; label?: string } = { at: 0, machines: [], atRisk: 0 };
let storeBusy = false;

/** Every machine at the store and the retention guard: slower (a walk, or one rsync listing over
 * ssh), so refreshed at most once a minute (ten for an ssh store) and on demand. */
async function refreshStore(force = false): Promise<void> {
  const cfg = readConfig(home, params.env);
  const ssh = cfg.kind === 'ok' && !!cfg.config.store?.host;
  if (storeBusy || (!force && Date.now() - storeInfo.at < (ssh ? 600_000 : 60_000))) return;
  storeBusy = true;
  try {
    const ret = retentionGuard(home, params.env);
    const risk = retentionWarning(ret);
    let machines: BackupInfo['machines'] = [];
    let label: string | undefined;
    if (cfg.kind === 'ok' && cfg.config.store) {
      const m = await listMachines(cfg.config, params.env);
      if (m.ok) machines = m.machines.map((x) => ({ machine: x.machine, lastSync: x.newest ? new Date(x.newest).toISOString() : null, versions: x.versions, warnings: x.replaced ? [`${x.replaced} store copies replaced by repairs`] : [], atRisk: 0 }));
      else label = m.label;
    }
    const me = machines.find((x) => x.machine === view?.machine);
    if (me) {
      me.atRisk = ret.atRisk.length;
      if (risk) me.warnings.push(risk);
    }
    storeInfo = { at: Date.now(), machines, atRisk: ret.atRisk.length, label };
  } catch (e) {
    log('warn', `reading the store: ${describe(e)}`);
  } finally {
    storeBusy = false;
  }
}

/** The status bar's label comes from the core's one rule (effectiveWarning); this only sorts it. */
export function backupInfo(): BackupInfo {
  const cfg = readConfig(home, params.env);
  const store = cfg.kind === 'ok' && cfg.config.store ? (cfg.config.store.host ? `${cfg.config.store.host}:${cfg.config.store.path}` : cfg.config.store.path) : null;
  const eff = effectiveWarning(home, params.env);
  const st = eff.state;
  const w = eff.warning;
  const status: BackupInfo['status'] = !w ? (st?.last_ok ? 'ok' : 'none') : w === 'backup stale' ? 'stale' : /^(no backup yet|backup not set up)$/.test(w) ? 'none' : 'failing';
  const message = [eff.message, eff.hint].filter(Boolean).join(' — ');
  return { warning: w, status, lastOk: st?.last_ok ?? null, message, store, machines: storeInfo.machines, sqlite: sqliteLoadError() ?? null, recording: recordingProblem(home) };
}

function pollBackup(): void {
  void refreshStore().then(() => undefined);
  try {
    const b = backupInfo();
    const j = JSON.stringify(b);
    if (j !== lastBackupJson) {
      lastBackupJson = j;
      emit({ event: 'backup', data: b });
    }
  } catch (e) {
    log('warn', `reading state.json: ${describe(e)}`);
  }
}

// ---- recorder -------------------------------------------------------------------------------

async function catchUp(): Promise<void> {
  catchUpStop = false;
  if (cancelFlag) Atomics.store(cancelFlag, 0, 0);
  let files = 0;
  let bytes = 0;
  let lastSent = 0;
  emit({ event: 'progress', data: { phase: 'catch-up', files, bytes, done: false } });
  let r: Awaited<ReturnType<typeof capture>>;
  try {
    r = await capture({
    home,
    env: params.env,
    source: 'record',
    lockWaitMs: 30_000,
    onProgress: (p) => {
      files = p.files;
      bytes = p.bytes;
      // Called per file: the main thread hears of it at most ten times a second.
      const now = Date.now();
      if (now - lastSent < 100) return;
      lastSent = now;
      emit({ event: 'progress', data: { phase: 'catch-up', files, bytes, done: false } });
    },
    shouldStop: () => catchUpStop || closing || (cancelFlag !== undefined && Atomics.load(cancelFlag, 0) === 1),
    });
  } catch (e) {
    emit({ event: 'progress', data: { phase: 'catch-up', files, bytes, done: true, cancelled: true } });
    captureProblem(e);
    return;
  }
  captureProblem(null);
  const chunks = Object.values(r.lanes).reduce((n, c) => n + c.chunks, 0);
  const cancelled = catchUpStop || (cancelFlag !== undefined && Atomics.load(cancelFlag, 0) === 1);
  emit({ event: 'progress', data: { phase: 'catch-up', files, bytes, done: true, cancelled } });
  if (r.busy) log('info', 'another process was writing the floor; catch-up will run again on the next change');
  else log('info', `catch-up: ${chunks} chunk(s) from ${files} file(s), ${bytes} bytes${cancelled ? ' (cancelled; resumes on the next start)' : ''}`);
  refreshSoon(0);
}

// The DuckDB cache follows the floor in the background, so brain_sql and the activity picture
// answer at once. One thread: the editor's machine is the user's, not a build server.
let cacheTimer: NodeJS.Timeout | undefined;
let cacheRunning: Promise<void> | undefined;
let cacheChild: ChildProcess | undefined;
function updateCacheSoon(delay: number): void {
  if (cacheTimer || closing) return;
  cacheTimer = setTimeout(() => {
    cacheTimer = undefined;
    if (cacheRunning) return updateCacheSoon(5000);
    emit({ event: 'progress', data: { phase: 'index', files: 0, bytes: 0, done: false } });
    // In a process of its own (the CLI, the same core): a large ingest keeps its thread busy for
    // seconds, and a DuckDB call cut short inside a thread would take the editor down with it; a
    // child can simply be stopped when the window closes.
    cacheRunning = runCli(['rebuild', '--update', '--json'], 30 * 60_000, (c) => (cacheChild = c), true)
      .then((r) => {
        cacheChild = undefined;
        if (r.code !== 0 && r.code !== 1) throw new Error(r.stderr.trim().split('\n').pop() || `exit ${r.code}`);
        return JSON.parse(r.stdout) as BuildResult;
      })
      .then((r) => {
        if (r.mode !== 'current') log('info', `DuckDB cache ${r.mode} in ${r.ms} ms`);
      })
      .catch((e) => log('warn', `DuckDB cache: ${describe(e)} (brain_sql and the activity picture may be out of date; Rebuild Caches)`))
      .finally(() => {
        cacheRunning = undefined;
        emit({ event: 'progress', data: { phase: 'index', files: 0, bytes: 0, done: true } });
      });
  }, delay);
}

/** After a pass that captured something, the core's pipeline (core/pipeline.ts) step by step:
 * the secret scan and the turn index in this thread, DuckDB in its child process a little later.
 * (Not afterCapture itself: it would load DuckDB into the editor's process.) */
let following: Promise<void> = Promise.resolve();
function followCaches(duckDelay: number): void {
  following = following.then(async () => {
    if (closing) return;
    try {
      const r = await scanPending(home, { waitMs: 0 });
      if (r.ran && r.added.length > 0) log('warn', `${r.added.length} new secret(s) found in captured sessions: run \`brain secrets\` and rotate them`);
    } catch (e) {
      log('warn', `secret scan: ${describe(e)}`);
    }
    // The turn index is brought up by the Sessions view's refresh (FloorView.refresh).
    refreshSoon(0);
    updateCacheSoon(duckDelay);
  });
}

/** One full capture pass (a walk of every agent's folders), as the timer's tick does. */
async function passNow(): Promise<void> {
  if (closing || role !== 'writer') return;
  try {
    const r = await capture({ home, env: params.env, source: 'watch', lockWaitMs: 30_000, shouldStop: () => closing });
    captureProblem(null);
    if (r.applied > 0 || Object.values(r.lanes).some((c) => c.chunks > 0)) followCaches(10_000);
  } catch (e) {
    captureProblem(e);
  }
}

/** A failed pass is shown (status bar, one notification) until a pass works again; the same
 * problem is said once, not on every pass. */
let lastProblem: string | null = null;
function captureProblem(e: unknown): void {
  const problem = e === null ? null : e instanceof BrainError ? e.message : describe(e);
  if (problem === lastProblem) return;
  lastProblem = problem;
  if (problem !== null) log('warn', `capture: ${describe(e)}`);
  emit({ event: 'capture', data: { problem, hint: e instanceof BrainError ? e.hint : undefined } });
}

async function becomeWriter(): Promise<void> {
  setRole('writer');
  await catchUp();
  if (closing) return;
  followCaches(0);
  watcher = startWatch({
    home,
    env: params.env,
    // The caches are followed here instead: the secret scan and the turn index in this thread,
    // DuckDB in a child process (see updateCacheSoon).
    caches: false,
    onPass: (r) => {
      captureProblem(null);
      if (r.applied > 0 || Object.values(r.lanes).some((c) => c.chunks > 0)) followCaches(10_000);
    },
    // A pass that failed (a full disk) is shown until one works; running out of watches is said
    // once (recording goes on, by walking the folders); other trouble of the watcher is logged.
    onError: (e) => {
      if (e instanceof BrainError && e.code === 'watch-limit') {
        log('warn', `recorder: ${describe(e)}`);
        emit({ event: 'notice', data: { message: e.message, hint: e.hint } });
      } else if (e instanceof BrainError) captureProblem(e);
      else log('warn', `recorder: ${describe(e)}`);
    },
  });
  await watcher.ready;
  // The watcher's own scan of the folders finishes after its first pass; a file written in
  // between is seen by this second pass (and by every tick's pass after that).
  const settle = setTimeout(() => void passNow(), 5000);
  timers.push(settle);
  // The tick syncs only when something changed since the last sync that worked (core decides).
  const tick = async () => {
    if (closing || role !== 'writer') return;
    try {
      // The same tick the timer runs: it walks at most once per interval and syncs only on change.
      const r = await tickCore(home, { env: params.env, capture: async () => void (await passNow()) });
      if (r.kind === 'synced' || r.kind === 'captured-error') refreshSoon(0);
    } catch (e) {
      log('warn', `tick: ${describe(e)}`);
    }
    pollBackup();
  };
  const t = setInterval(() => void tick(), 60_000);
  timers.push(t);
  void tick();
}

let electing = false;
async function elect(): Promise<void> {
  // One attempt at a time: a second one while the first holds the lock would see it taken.
  if (electing || closing || role === 'writer' || !params.record) return;
  electing = true;
  try {
    recorderLock = await tryLock(layout(home).locks, 'recorder');
  } catch (e) {
    log('error', `cannot take the recorder lock: ${describe(e)}`);
    return;
  } finally {
    electing = false;
  }
  if (recorderLock) await becomeWriter();
  else setRole('follower', 'another window or process records this machine');
}

// ---- requests -------------------------------------------------------------------------------

// Each method takes its own params shape.
const methods: Record<string, (p: any) => unknown | Promise<unknown>> = {
  async init(p: InitParams) {
    params = p;
    if (p.cancel) cancelFlag = new Int32Array(p.cancel);
    home = brainHome(p.env);
    ensureHome(home);
    view = new FloorView(home, p.env);
    view.refresh();
    pollBackup();
    // The manifest is the one file every writer appends to: watching its folder makes followers
    // (and the writer's own views) live without a second walk of the agents' folders.
    try {
      const w = fs.watch(layout(home).manifestDir, () => refreshSoon());
      w.on('error', () => undefined);
      closers.push(() => w.close());
    } catch {
      /* polled below anyway */
    }
    timers.push(setInterval(() => refreshSoon(0), 5000));
    timers.push(setInterval(pollBackup, 5000));
    if (p.record) {
      void elect();
      // A follower takes over when the writer's window closes (its lock dies with its process).
      timers.push(setInterval(() => void elect(), 5000));
    } else setRole('off', 'agentBrain.record is off');
    return { home, machine: view.machine, role };
  },
  sessions: () => view!.sessions(),
  session: (p: { session: string; machine?: string }) => view!.view(p.session, p.machine) ?? null,
  async backup() {
    await refreshStore(true);
    return backupInfo();
  },
  cancelCatchUp() {
    catchUpStop = true;
    return true;
  },
  async cli(p: { args: string[] }) {
    const r = await runCli(p.args);
    refreshSoon(0);
    pollBackup();
    return r;
  },
  async sync() {
    emit({ event: 'progress', data: { phase: 'sync', files: 0, bytes: 0, done: false } });
    try {
      const r = await runSync(home, { now: true, env: params.env });
      await refreshStore(true);
      pollBackup();
      if (r.kind === 'done') return { ok: r.state.status === 'ok' && !r.state.warning, message: r.state.message, warning: r.state.warning, hint: r.state.hint };
      if (r.kind === 'busy') return { ok: true, message: 'another sync is running; it will sync again when it finishes' };
      if (r.kind === 'nothing') return { ok: true, message: 'nothing to sync' };
      return { ok: false, message: r.message, hint: r.hint };
    } finally {
      emit({ event: 'progress', data: { phase: 'sync', files: 0, bytes: 0, done: true } });
    }
  },
  async recall(p: { tool: import('../core/recall').ToolName; input: unknown }) {
    return recall(p.tool, p.input, { home, view: view!, env: params.env, sql: sqlViaCli });
  },
  async close() {
    closing = true;
    catchUpStop = true;
    for (const t of timers) clearInterval(t);
    if (cacheTimer) clearTimeout(cacheTimer);
    // DuckDB writes its file transactionally: stopping mid-update loses only that update.
    cacheChild?.kill('SIGTERM');
    await cacheRunning?.catch(() => undefined);
    for (const c of closers) c();
    await watcher?.close();
    recorderLock?.release();
    recorderLock = null;
    view?.close();
    setRole('off', 'closed');
    return true;
  },
};
const closers: (() => void)[] = [];

port.on('message', async (m: WorkerRequest) => {
  const reply = (r: WorkerReply) => port!.postMessage(r);
  const fn = methods[m.method];
  if (!fn) return reply({ id: m.id, error: { code: 'no-method', message: `worker has no method ${m.method}` } });
  try {
    reply({ id: m.id, result: await fn(m.params) });
  } catch (e) {
    const b = e instanceof BrainError ? e : undefined;
    reply({ id: m.id, error: { code: b?.code ?? 'error', message: e instanceof Error ? e.message : String(e), hint: b?.hint } });
  }
});
