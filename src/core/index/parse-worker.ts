// The index's parse thread: reads files (JSON, dialects) while the main thread writes SQLite, so
// a first build uses two cores. Bundled as dist/index-worker.js (see pool.ts for how it is found).
// Each result is posted on the port, then the shared counter is bumped so the main thread, which
// waits on it synchronously (Atomics.wait), knows to take it (receiveMessageOnPort).
import { isMainThread, workerData, type MessagePort } from 'node:worker_threads';
import { runParseJob, type ParseJob } from './parse-job';
import { onPulse } from '../safeopen';

if (!isMainThread && workerData?.brainParseWorker) {
  const port = workerData.port as MessagePort;
  const sig = new Int32Array(workerData.sig as SharedArrayBuffer);
  // The heartbeat the writing thread watches (pool.ts): moved by each job and, twice a second,
  // by the read loops of a long one. A thread that dies stops moving it.
  const beat = new Int32Array(workerData.beat as SharedArrayBuffer);
  const slot = workerData.slot as number;
  onPulse(() => Atomics.add(beat, slot, 1));
  port.on('message', (job: ParseJob & { seq: number }) => {
    Atomics.add(beat, slot, 1);
    let msg: unknown;
    // The raw chunks' keys (each array its own buffer) are handed over, not copied.
    let moved: ArrayBuffer[] = [];
    try {
      const result = runParseJob(job);
      if (result.kind === 'turns' && result.raw) moved = result.raw.chunks.map((c) => c.buffer as ArrayBuffer);
      msg = { seq: job.seq, ok: true, result };
    } catch (e) {
      msg = { seq: job.seq, ok: false, error: (e as Error).message, code: (e as NodeJS.ErrnoException).code };
    }
    port.postMessage(msg, moved);
    Atomics.add(sig, 0, 1);
    Atomics.notify(sig, 0);
  });
}
