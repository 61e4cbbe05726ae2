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

/** A parse thread's heap: it parses one piece (turnindex/fileread.ts pieceBytes) at a time. */
const HEAP_MB = 256;

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

/** A thread whose heartbeat (safeopen.ts's pulse, from its read loops, and one per job) has not
 * moved this long while a job of it is awaited has stopped: out of its heap, or killed. Its
 * 'exit' event would say so, but the thread waiting here runs no events. */
const STALL_MS = 10_000;

export class ParsePool {
  private sent = 0;
  private taken = 0;

  private constructor(
    private readonly workers: { worker: Worker; port: MessagePort }[],
    private readonly sig: Int32Array,
    private readonly beats: Int32Array,
  ) {}

  /** Why the pool stopped being used, when a thread stopped answering. */
  failed: string | null = null;

  /** A started pool, or null when no worker script is there (parse in this thread then). */
  static start(): ParsePool | null {
    const script = workerScript();
    if (!script) return null;
    const sab = new SharedArrayBuffer(4);
    const workers: { worker: Worker; port: MessagePort }[] = [];
    const n = Math.max(1, Math.min(THREADS, os.availableParallelism()));
    const beat = new SharedArrayBuffer(4 * n);
    for (let i = 0; i < n; i++) {
      try {
        const { port1, port2 } = new (workerThreads().MessageChannel)();
        // A small heap: a thread only parses, and the rebuild's whole RSS has a budget.
        const w = new (workerThreads().Worker)(script, {
          workerData: { brainParseWorker: true, port: port2, sig: sab, beat, slot: i },
          transferList: [port2],
          resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16 },
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
    return workers.length ? new ParsePool(workers, new Int32Array(sab), new Int32Array(beat)) : null;
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
    const w = (this.taken + 1) % this.workers.length;
    const port = this.workers[w].port;
    let beat = Atomics.load(this.beats, w);
    let beatAt = Date.now();
    for (;;) {
      const seen = Atomics.load(this.sig, 0);
      const m = workerThreads().receiveMessageOnPort(port);
      if (m) {
        this.taken++;
        return m.message as PoolReply;
      }
      const now = Date.now();
      const b = Atomics.load(this.beats, w);
      if (b !== beat) {
        beat = b;
        beatAt = now;
      } else if (now - beatAt > STALL_MS) {
        this.failed = `parse thread ${w + 1} stopped answering (out of its ${HEAP_MB} MB heap, or killed)`;
        return null;
      }
      if (now > until) {
        this.failed = `parse thread ${w + 1} did not answer within ${Math.round(timeoutMs / 1000)} s`;
        return null;
      }
      Atomics.wait(this.sig, 0, seen, 250);
    }
  }

  close(): void {
    for (const w of this.workers) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}
