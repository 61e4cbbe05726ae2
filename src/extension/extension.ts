// Entry point of the VS Code extension: wiring only. Activation registers views,
// commands and tools and starts the worker without waiting for it, so it stays well under 100 ms;
// everything that touches the floor happens in the worker (worker.ts).
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { brainHome } from '../core/home';
import { Backend } from './backend';
import { BackupView } from './backupView';
import { registerCommands, type Ctx } from './commands';
import { registerTools } from './lmTools';
import type { LoopDelay, Progress, WorkerEvent } from './protocol';
import { Reader, citationText } from './reader';
import { SessionsTree } from './sessionsTree';
import { StatusBar, bytes } from './status';
import { setting } from '../core/settings';

export interface Live {
  backend: Backend;
  status: StatusBar;
  tree: SessionsTree;
  reader: Reader;
  activationMs: number;
  loop: LoopDelay | undefined;
  machine: string;
  role: string;
  catchUps: Progress[];
  mainWorkMaxMs: number;
}

let live: Live | undefined;

export function activate(context: vscode.ExtensionContext): Live {
  const t0 = performance.now();
  const out = vscode.window.createOutputChannel('Agent Brain');
  const status = new StatusBar();
  const backend = new Backend(__dirname);
  const env = { ...process.env };
  let machine = '';
  const tree = new SessionsTree(() => machine);
  const backup = new BackupView();
  const reader = new Reader(async (c, root) => {
    await vscode.env.clipboard.writeText(citationText(c, root));
    void vscode.window.setStatusBarMessage(`Citation copied: lines ${c.line_from}–${c.line_to}`, 3000);
  });
  const state: Live = { backend, status, tree, reader, activationMs: 0, loop: undefined, machine: '', role: 'off', catchUps: [], mainWorkMaxMs: 0 };
  live = state;

  tree.onWork = (ms) => (state.mainWorkMaxMs = Math.max(state.mainWorkMaxMs, ms));
  const refresh = async () => {
    try {
      const list = await backend.request('sessions');
      const t = performance.now();
      tree.set(list);
      state.mainWorkMaxMs = Math.max(state.mainWorkMaxMs, performance.now() - t);
    } catch (e) {
      out.appendLine(`sessions: ${(e as Error).message}`);
    }
  };

  const catchUp = catchUpMonitor(state, status, out, backend);
  const onEvent = workerEvents(state, { status, backup, out, refresh, onProgress: catchUp.onProgress });

  const cfg = vscode.workspace.getConfiguration('agentBrain');
  const cliPath = cfg.get<string>('cliPath') || path.join(__dirname, 'cli.js');
  const ctx: Ctx = { backend, reader, tree, out, home: () => brainHome(env), refresh, cancelCatchUp: () => backend.cancelCatchUp() };

  context.subscriptions.push(
    out,
    status,
    reader,
    backend.onEvent(onEvent),
    vscode.window.registerTreeDataProvider('agentBrain.sessions', tree),
    vscode.window.registerTreeDataProvider('agentBrain.backup', backup),
    ...registerCommands(ctx),
    ...registerTools(backend),
    catchUp,
    { dispose: () => void backend.dispose() },
  );
  // The e2e suite's commands live in a bundle of their own that only its .vsix carries: a
  // production install has neither the commands nor their code.
  const hooks = path.join(__dirname, 'testhooks.js');
  if (setting(process.env, 'BRAIN_E2E_OUT') && fs.existsSync(hooks)) {
    const { registerTestCommands } = createRequire(__filename)(hooks) as { registerTestCommands(l: Live): vscode.Disposable[] };
    context.subscriptions.push(...registerTestCommands(state));
  }

  // Started after activation returns: the worker's own startup is not activation time.
  setImmediate(() => {
    backend
      .start({ record: cfg.get<boolean>('record', true), cli: cliPath, env })
      .then(async (r) => {
        machine = r.machine;
        state.machine = r.machine;
        await refresh();
        status.setBackup(await backend.request('backup'));
      })
      .catch((e) => {
        out.appendLine(`[error] the worker did not start: ${(e as Error).stack ?? e}`);
        void vscode.window.showErrorMessage(`Agent Brain could not start: ${(e as Error).message}`);
      });
  });
  state.activationMs = performance.now() - t0;
  out.appendLine(`activated in ${state.activationMs.toFixed(1)} ms (Node ${process.version})`);
  return state;
}

/** The first catch-up's progress: a cancellable notification past its first second, and the main
 * thread's event-loop delay measured through it (the extension host must never stall). */
function catchUpMonitor(state: Live, status: StatusBar, out: vscode.OutputChannel, backend: Backend): { onProgress: (p: Progress) => void; dispose(): void } {
const loop = monitorEventLoopDelay({ resolution: 10 });
let elu: ReturnType<typeof performance.eventLoopUtilization> | undefined;
let catchUp: { resolve(): void; report(p: Progress): void; started: number } | undefined;
const onProgress = (p: Progress) => {
  status.setProgress(p);
  if (p.phase !== 'catch-up') return;
  if (!p.done && !catchUp) {
    loop.reset();
    loop.enable();
    elu = performance.eventLoopUtilization();
    state.mainWorkMaxMs = 0;
    let resolve!: () => void;
    let last = { files: 0, bytes: 0 };
    const cur: { resolve(): void; report(p: Progress): void; started: number } = { resolve: () => resolve(), report: () => undefined, started: Date.now() };
    catchUp = cur;
    const shown = new Promise<void>((r) => (resolve = r));
    // A catch-up that ends within a second needs no notification.
    setTimeout(() => {
      if (catchUp !== cur) return;
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Brain: recording past sessions', cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => backend.cancelCatchUp());
        cur.report = (q) => {
          progress.report({ message: `${q.files} files · ${bytes(q.bytes)}` });
          last = q;
        };
        cur.report({ ...last, phase: 'catch-up', done: false });
        return shown;
      });
    }, 1000);
  }
  if (catchUp && !p.done) catchUp.report(p);
  if (catchUp && p.done) {
    loop.disable();
    const l: LoopDelay = {
      max: loop.max / 1e6,
      p99: loop.percentile(99) / 1e6,
      mean: loop.mean / 1e6,
      samples: loop.count,
      during: `catch-up of ${p.files} files, ${bytes(p.bytes)}`,
      utilization: elu ? performance.eventLoopUtilization(elu).utilization : undefined,
      ownMaxMs: state.mainWorkMaxMs,
    };
    state.loop = l;
    state.catchUps.push(p);
    status.setLoopDelay(l);
    out.appendLine(`catch-up ${p.cancelled ? 'cancelled' : 'done'} in ${Date.now() - catchUp.started} ms: ${p.files} files, ${bytes(p.bytes)}; extension host event-loop delay max ${l.max.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, mean ${l.mean.toFixed(1)} ms over ${l.samples} samples; main thread busy ${((l.utilization ?? 0) * 100).toFixed(1)}%, longest piece of this extension's work on it ${(l.ownMaxMs ?? 0).toFixed(1)} ms`);
    catchUp.resolve();
    catchUp = undefined;
  }
};
  return { onProgress, dispose: () => loop.disable() };
}

/** What the worker tells the main thread, each event to the view it concerns; the longest stretch
 * of this extension's own work on the main thread is kept for the e2e figures. */
function workerEvents(
  state: Live,
  v: { status: StatusBar; backup: BackupView; out: vscode.OutputChannel; refresh: () => Promise<void>; onProgress: (p: Progress) => void },
): (e: WorkerEvent) => void {
  const { status, backup, out, refresh, onProgress } = v;
const onEvent = (e: WorkerEvent) => {
  const t = performance.now();
  try {
    handle(e);
  } finally {
    state.mainWorkMaxMs = Math.max(state.mainWorkMaxMs, performance.now() - t);
  }
};
const handle = (e: WorkerEvent) => {
  switch (e.event) {
    case 'progress':
      return onProgress(e.data);
    case 'sessions':
      return void refresh();
    case 'backup':
      status.setBackup(e.data);
      backup.set(e.data);
      return;
    case 'role':
      state.role = e.data.role;
      status.setRole(e.data.role);
      out.appendLine(`recorder: ${e.data.role}${e.data.reason ? ` (${e.data.reason})` : ''}`);
      return;
    case 'log':
      out.appendLine(`[${e.data.level}] ${e.data.message}`);
      return;
    case 'notice':
      void vscode.window.showWarningMessage(`Agent Brain: ${e.data.message}${e.data.hint ? `. To fix: ${e.data.hint}` : ''}`);
      return;
    case 'capture':
      status.setCaptureProblem(e.data);
      if (e.data.problem) {
        void vscode.window.showErrorMessage(`Agent Brain: recording failed: ${e.data.problem}${e.data.hint ? `. ${e.data.hint}` : ''}`, 'Run Doctor').then((a) => a && vscode.commands.executeCommand('agentBrain.runDoctor'));
      }
      return;
  }
};
  return onEvent;
}

export async function deactivate(): Promise<void> {
  // Releasing the recorder lock promptly lets another window take over at once.
  await live?.backend.dispose();
  live = undefined;
}
