// Parse threads for the index (see parse-worker.ts), driven synchronously: jobs are posted ahead,
// and results are taken in order with receiveMessageOnPort, waiting on a shared counter in
// between. update() stays synchronous, which every caller (CLI, MCP, extension worker) relies on.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../lazy';
import { BUILTIN, registry } from '../agents';
import type { ParseJob, ParseResult } from './parse-job';
import { setting } from '../settings';

export interface PoolReply {
  seq: number;
  ok: boolean;
  result?: ParseResult;
  error?: string;
}

/** The worker script: index-worker.js beside the bundle (dist/), or the built one when running
 * from source (tsx cannot load a .ts worker); BRAIN_INDEX_WORKER_SCRIPT names another. */
function workerScript(): string | null {
  if (!setting(process.env, 'BRAIN_INDEX_WORKER')) return null;
  // The thread loads the built-in agents only: with others registered, parse here.
  if (registry() !== BUILTIN) return null;
  const env = setting(process.env, 'BRAIN_INDEX_WORKER_SCRIPT');
  if (env) return fs.existsSync(env) ? env : null;
  for (const f of [path.join(__dirname, 'index-worker.js'), path.resolve(__dirname, '..', '..', '..', 'dist', 'index-worker.js')]) {
    if (fs.existsSync(f)) return f;
  }
  return null;
}

/** Parse threads: as many as the machine has cores, at most THREADS (the thread that writes SQLite
 * waits on them most of a first build; more would only hold memory). */
const THREADS = 3;

export class ParsePool {
  private sent = 0;
  private taken = 0;

  private constructor(
    private readonly workers: { worker: Worker; port: MessagePort }[],
    private readonly sig: Int32Array,
  ) {}

  /** A started pool, or null when no worker script is there (parse in this thread then). */
  static start(): ParsePool | null {
    const script = workerScript();
    if (!script) return null;
    const sab = new SharedArrayBuffer(4);
    const workers: { worker: Worker; port: MessagePort }[] = [];
    const n = Math.max(1, Math.min(THREADS, os.availableParallelism()));
    for (let i = 0; i < n; i++) {
      try {
        const { port1, port2 } = new (workerThreads().MessageChannel)();
        // A small heap: a thread only parses, and the rebuild's whole RSS has a budget.
        const w = new (workerThreads().Worker)(script, {
          workerData: { brainParseWorker: true, port: port2, sig: sab },
          transferList: [port2],
          resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 },
        });
        w.unref();
        w.on('error', () => {
          /* a job that never answers times out in next() */
        });
        workers.push({ worker: w, port: port1 });
      } catch {
        break;
      }
    }
    return workers.length ? new ParsePool(workers, new Int32Array(sab)) : null;
  }

  /** Jobs go round the threads, so the replies, taken round in the same order, come in order. */
  send(job: ParseJob): number {
    const seq = ++this.sent;
    this.workers[seq % this.workers.length].port.postMessage({ ...job, seq });
    return seq;
  }

  /** The next reply, in the order jobs were sent; blocks until it is there. Null when the thread
   * does not answer in time (it died): the caller parses the rest itself. */
  next(timeoutMs: number): PoolReply | null {
    const until = Date.now() + timeoutMs;
    const port = this.workers[(this.taken + 1) % this.workers.length].port;
    for (;;) {
      const seen = Atomics.load(this.sig, 0);
      const m = workerThreads().receiveMessageOnPort(port);
      if (m) {
        this.taken++;
        return m.message as PoolReply;
      }
      if (Date.now() > until) return null;
      Atomics.wait(this.sig, 0, seen, 1000);
    }
  }

  close(): void {
    for (const w of this.workers) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}
