// The extension's worker thread (dist/worker.js): everything that reads or writes the floor runs
// here, so the extension host's main thread only draws. This file wires the parts and answers the
// host's requests (protocol.ts): the recorder (recorder.ts), the DuckDB follower (duckdb.ts), the
// backup state (storepoll.ts), the CLI as a child (cli.ts) and the wire itself (rpc.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { BrainError, describe } from '../../core/errors';
import { brainHome, ensureHome, layout } from '../../core/home';
import { FloorView } from '../../core/recall/floorview';
import { runSync } from '../../core/store/sync';
import type { Handlers } from '../protocol';
import { recall } from './recall';
import { runCli, sqlViaCli } from './cli';
import type { WorkerCtx } from './context';
import { DuckdbFollower } from './duckdb';
import { Recorder } from './recorder';
import { emitter, serve, type Log } from './rpc';
import { StorePoller } from './storepoll';
import { StoreSessions } from './storesessions';

const port = parentPort;
if (!port) throw new Error('worker/main.ts runs as a worker thread');

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

const emit = emitter(port);
const log: Log = (level, message) => emit('log', { level, message });

interface Parts {
  ctx: WorkerCtx;
  store: StorePoller;
  duck: DuckdbFollower;
  recorder: Recorder;
  /** Other machines' sessions at an ssh store. */
  far: StoreSessions;
}
let parts: Parts | undefined;
let closing = false;
const timers: NodeJS.Timeout[] = [];
const closers: (() => void)[] = [];

function need(): Parts {
  if (!parts) throw new BrainError('not-ready', 'the worker has not been started', 'reload the window');
  return parts;
}

let refreshTimer: NodeJS.Timeout | undefined;
function refreshSoon(view: FloorView, delay = 150): void {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    try {
      const n = view.refresh();
      if (n > 0) emit('sessions', { changed: n });
    } catch (e) {
      log('warn', `reading the manifest: ${describe(e)}`);
    }
  }, delay);
}

const handlers: Handlers = {
  init(p) {
    const home = brainHome(p.env);
    ensureHome(home);
    const view = new FloorView(home, p.env);
    const ctx: WorkerCtx = {
      home,
      params: p,
      view,
      cancel: p.cancel ? new Int32Array(p.cancel) : undefined,
      emit,
      log,
      refreshSoon: (delay) => refreshSoon(view, delay),
      closing: () => closing,
    };
    const store = new StorePoller(ctx);
    const duck = new DuckdbFollower(ctx);
    const recorder = new Recorder(ctx, duck, () => store.poll());
    const far = new StoreSessions(home, p.env, (n) => emit('sessions', { changed: n }));
    parts = { ctx, store, duck, recorder, far };
    view.refresh();
    store.poll();
    const askFar = (force = false) => void far.refresh(force).then(() => far.problem && log('info', `other machines' sessions: ${far.problem}`));
    askFar(true);
    // A sync by the timer (brain tick) is seen in state.json: the other machines may have synced too.
    let lastOk = store.info().lastOk;
    timers.push(
      setInterval(() => {
        const now = store.info().lastOk;
        askFar(now !== lastOk);
        lastOk = now;
      }, 60_000),
    );
    // The manifest is the one file every writer appends to: watching its folder makes followers
    // (and the writer's own views) live without a second walk of the agents' folders.
    try {
      const w = fs.watch(layout(home).manifestDir, () => ctx.refreshSoon());
      w.on('error', () => undefined);
      closers.push(() => w.close());
    } catch {
      /* polled below anyway */
    }
    timers.push(setInterval(() => ctx.refreshSoon(0), 5000));
    timers.push(setInterval(() => store.poll(), 5000));
    recorder.start();
    return { home, machine: view.machine, role: recorder.role };
  },
  sessions: () => [...need().ctx.view.sessions(), ...need().far.sessions()],
  async session(p) {
    const { ctx, far } = need();
    return ctx.view.view(p.session, p.machine) ?? (await far.view(p.session, p.machine)) ?? null;
  },
  async backup() {
    const { store } = need();
    await store.refresh(true);
    return store.info();
  },
  cancelCatchUp() {
    need().recorder.cancelCatchUp();
    return true;
  },
  async cli(p) {
    const { ctx, store } = need();
    const r = await runCli(ctx.params, p.args);
    ctx.refreshSoon(0);
    store.poll();
    return r;
  },
  async sync() {
    const { ctx, store } = need();
    emit('progress', { phase: 'sync', files: 0, bytes: 0, done: false });
    try {
      const r = await runSync(ctx.home, { now: true, env: ctx.params.env });
      await store.refresh(true);
      void need().far.refresh(true);
      store.poll();
      if (r.kind === 'done') return { ok: r.state.status === 'ok' && !r.state.warning, message: r.state.message, warning: r.state.warning, hint: r.state.hint };
      if (r.kind === 'busy') return { ok: true, message: r.floor ? 'a capture pass kept the floor busy; the next sync takes what changed' : 'another sync is running; it will sync again when it finishes' };
      if (r.kind === 'nothing') return { ok: true, message: 'nothing to sync' };
      return { ok: false, message: r.message, hint: r.hint };
    } finally {
      emit('progress', { phase: 'sync', files: 0, bytes: 0, done: true });
    }
  },
  recall(p) {
    const { ctx, duck } = need();
    return recall(p.tool, p.input, { home: ctx.home, view: ctx.view, env: ctx.params.env, sql: (q, limit) => sqlViaCli(ctx.params, q, limit, duck.idle()) }, { chat: p.chat });
  },
  async close() {
    closing = true;
    for (const t of timers) clearInterval(t);
    if (refreshTimer) clearTimeout(refreshTimer);
    if (parts) {
      const { ctx, duck, recorder } = parts;
      for (const c of closers) c();
      await recorder.close(() => duck.stop());
      ctx.view.close();
    }
    return true;
  },
};

serve(port, handlers);
