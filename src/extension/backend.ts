// The main thread's handle on the worker: requests with ids, replies as promises, events to
// listeners, all typed by the protocol's maps. Nothing here touches the floor.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ToolName } from '../core/recall/types';
import type { InitParams, Method, Params, RecallResults, Result, WorkerEvent, WorkerReply, WorkerRequest } from './protocol';

export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

type Listener = (e: WorkerEvent) => void;

export class Backend {
  private worker: Worker | undefined;
  private next = 1;
  private pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  private listeners: Listener[] = [];
  private exited = false;

  constructor(private dir: string) {}

  private cancelFlag = new Int32Array(new SharedArrayBuffer(4));

  /** Asks a running catch-up to stop at the next file (it resumes from there next time). */
  cancelCatchUp(): void {
    Atomics.store(this.cancelFlag, 0, 1);
  }

  start(init: InitParams): Promise<Result<'init'>> {
    init = { ...init, cancel: this.cancelFlag.buffer as SharedArrayBuffer };
    this.worker = new Worker(path.join(this.dir, 'worker.js'), { env: { ...process.env, ...init.env } as NodeJS.ProcessEnv });
    this.worker.on('message', (m: WorkerReply | WorkerEvent) => {
      if ('event' in m) {
        for (const l of this.listeners) l(m);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) p.reject(new RemoteError(m.error.code, m.error.message, m.error.hint));
      else p.resolve(m.result);
    });
    this.worker.on('error', (e) => {
      for (const l of this.listeners) l({ event: 'log', data: { level: 'error', message: `worker: ${e.stack ?? e.message}` } });
    });
    this.worker.on('exit', (code) => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new RemoteError('worker-exit', `the Agent Brain worker exited (${code})`));
      this.pending.clear();
    });
    return this.request('init', init);
  }

  onEvent(l: Listener): { dispose(): void } {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  }

  /** Asks the worker; the method names its params and its result (protocol.ts, Requests). */
  request<M extends Method>(method: M, ...params: Params<M> extends void ? [] : [Params<M>]): Promise<Result<M>> {
    if (!this.worker || this.exited) return Promise.reject(new RemoteError('worker-down', 'the Agent Brain worker is not running', 'reload the window'));
    const id = this.next++;
    const msg: WorkerRequest<M> = { id, method, params: (params[0] ?? {}) as Params<M> };
    return new Promise<Result<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker!.postMessage(msg);
    });
  }

  /** One recall tool, by the core's name, with its own answer's type. */
  recall<T extends ToolName>(tool: T, input: unknown, chat?: { session?: string }): Promise<RecallResults[T]> {
    return this.request('recall', { tool, input, ...(chat ? { chat } : {}) }) as Promise<RecallResults[T]>;
  }

  private disposing: Promise<void> | undefined;

  /** Stops the recorder (releasing the writer lock for another window), then the thread. Safe to
   * call twice (deactivate and the subscriptions both do). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      if (!this.worker || this.exited) return;
      try {
        await Promise.race([this.request('close').catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
      } finally {
        await this.worker.terminate();
      }
    })();
    return this.disposing;
  }
}
