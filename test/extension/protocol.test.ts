// The worker protocol (src/extension/protocol.ts) on a real MessageChannel: the worker's end
// (worker/rpc.ts) answers each request under its id with its handler's result, or the error with
// its code and hint; a name that is not a request is refused, inherited ones too. That the two
// ends agree on names and shapes is the compiler's job: the @ts-expect-error lines below stop
// compiling (and `npm test` fails its typecheck) the day a wrong name or shape is accepted.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { BrainError } from '../../src/core/errors';
import type { Backend } from '../../src/extension/backend';
import type { Handlers, WorkerEvent, WorkerReply } from '../../src/extension/protocol';
import { emitter, serve } from '../../src/extension/worker/rpc';

const backup = { warning: '', status: 'none', lastOk: null, message: '', store: null, machines: [], sqlite: null, recording: null } as const;

const handlers: Handlers = {
  init: (p) => ({ home: String(p.env.BRAIN_HOME), machine: 'box', role: 'off' }),
  sessions: () => [],
  session: () => null,
  backup: () => ({ ...backup, machines: [] }),
  cancelCatchUp: () => true,
  cli: (p) => ({ code: 0, stdout: p.args.join(' '), stderr: '' }),
  sync: () => {
    throw new BrainError('store-missing', 'the store folder is gone', 'mount it');
  },
  recall: async (p) => {
    throw new Error(`no floor for ${p.tool}`);
  },
  close: () => true,
};

test('requests are answered under their id; errors keep their code and hint; events arrive typed', async () => {
  const { port1, port2 } = new MessageChannel();
  serve(port1, handlers);
  const replies = new Map<number, WorkerReply>();
  const events: WorkerEvent[] = [];
  port2.on('message', (m: WorkerReply | WorkerEvent) => {
    if ('event' in m) events.push(m);
    else replies.set(m.id, m);
  });
  const ask = async (id: number, method: string, params: unknown = {}) => {
    port2.postMessage({ id, method, params });
    const end = Date.now() + 5000;
    while (!replies.has(id)) {
      if (Date.now() > end) assert.fail(`no reply to ${method}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return replies.get(id)!;
  };
  try {
    assert.deepEqual(await ask(1, 'init', { record: false, cli: 'brain', env: { BRAIN_HOME: '/b' } }), { id: 1, result: { home: '/b', machine: 'box', role: 'off' } });
    assert.deepEqual(await ask(2, 'cli', { args: ['status', '--json'] }), { id: 2, result: { code: 0, stdout: 'status --json', stderr: '' } });
    assert.deepEqual(await ask(3, 'sync'), { id: 3, error: { code: 'store-missing', message: 'the store folder is gone', hint: 'mount it' } });
    assert.deepEqual(await ask(4, 'recall', { tool: 'search', input: {} }), { id: 4, error: { code: 'error', message: 'no floor for search', hint: undefined } });
    for (const [id, name] of [
      [5, 'sesions'],
      [6, 'toString'],
      [7, 'constructor'],
    ] as const) {
      const r = await ask(id, name);
      assert.ok('error' in r && r.error.code === 'no-method', `${name}: ${JSON.stringify(r)}`);
    }
    emitter(port1)('sessions', { changed: 3 });
    const end = Date.now() + 5000;
    while (events.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(events, [{ event: 'sessions', data: { changed: 3 } }]);
  } finally {
    port1.close();
    port2.close();
  }
});

// Never run: it only has to compile, which it does only while each wrong line is refused.
export async function typeChecks(b: Backend): Promise<void> {
  // @ts-expect-error: no such request
  await b.request('sesions');
  // @ts-expect-error: cli takes { args }
  await b.request('cli', { arg: ['status'] });
  // @ts-expect-error: session needs its params
  await b.request('session');
  // @ts-expect-error: the sessions are a list, not a number
  const n: number = await b.request('sessions');
  // @ts-expect-error: no such recall tool (its names are the core's)
  await b.recall('brain_search', {});
  const hits = await b.recall('search', { term: 'x' });
  // @ts-expect-error: a search answer has hits, not rows
  void hits.rows;
  void n;
  // @ts-expect-error: no such event
  emitter(undefined as never)('sesions', { changed: 1 });
  // @ts-expect-error: an event's data has its own shape
  emitter(undefined as never)('sessions', { changed: 'many' });
  // @ts-expect-error: every request needs its handler
  const missing: Handlers = { ...handlers, close: undefined };
  void missing;
}
