// The worker's end of the protocol (../protocol.ts): each request goes to its typed handler and
// its answer or error goes back under the request's id; events go out typed by the Events map.
import type { MessagePort } from 'node:worker_threads';
import { BrainError } from '../../core/errors';
import type { EventName, Events, Handlers, WorkerReply, WorkerRequest } from '../protocol';

export type Emit = <E extends EventName>(event: E, data: Events[E]) => void;
export type Log = (level: Events['log']['level'], message: string) => void;

export function emitter(port: MessagePort): Emit {
  return (event, data) => port.postMessage({ event, data });
}

export function serve(port: MessagePort, handlers: Handlers): void {
  port.on('message', async (m: WorkerRequest) => {
    const reply = (r: WorkerReply) => port.postMessage(r);
    if (!Object.hasOwn(handlers, m.method)) return reply({ id: m.id, error: { code: 'no-method', message: `worker has no method ${m.method}` } });
    // The map pairs each method with its params; the message's pairing is the host's, typed there.
    const fn = handlers[m.method] as (p: unknown) => unknown;
    try {
      reply({ id: m.id, result: await fn(m.params) });
    } catch (e) {
      const b = e instanceof BrainError ? e : undefined;
      reply({ id: m.id, error: { code: b?.code ?? 'error', message: e instanceof Error ? e.message : String(e), hint: b?.hint } });
    }
  });
}
