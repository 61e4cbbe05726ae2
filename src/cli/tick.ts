/* eslint-disable @typescript-eslint/no-require-imports */
import { brainHome } from '../core/home';
import { write, type Verb } from './args';
import type { TickOutcome } from '../core/pipeline/tick';
import type { reportSync as ReportSync } from './sync';

export const tick: Verb = {
  name: 'tick',
  summary: 'What the timer runs: capture, then sync if something changed (at most once per interval).',
  usage: 'tick [--json]',
  details: `Costs one stat inside the interval (config.toml: interval, default 10 minutes). Otherwise it captures new
session bytes (brain record), and syncs only when a floor file changed since the last sync that worked; an
idle machine opens no connection. Exit 0 unless a sync ran and failed (1) or the config is unusable (3).`,
  options: [{ name: 'json', type: 'bool', help: 'machine-readable result' }],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    const json = !!args.opts.json;
    // The tick module alone decides "not due" (config + one stat); the capture engine and the sync
    // load only once the interval has passed, so a timer or status line calling often stays cheap.
    // What follows the capture is the core's tick policy (POLICY.tick: sync when something changed).
    const { tick: runTick } = require('../core/pipeline/tick') as typeof import('../core/pipeline/tick');
    const o: TickOutcome = await runTick(home, {
      env: ctx.env,
      capture: async () => {
        const { capture } = require('../core/floor/capture') as typeof import('../core/floor/capture');
        return capture({ home, env: ctx.env, source: 'record', lockWaitMs: 0 });
      },
    });
    const report = (): typeof ReportSync => (require('./sync') as typeof import('./sync')).reportSync;
    switch (o.kind) {
      case 'not-due':
        if (json) write(ctx.stdout, JSON.stringify(o));
        return 0;
      case 'not-configured':
        if (json) write(ctx.stdout, JSON.stringify(o));
        else write(ctx.stderr, `${o.message}${o.hint ? `\n  ${o.hint}` : ''}`);
        return 3;
      case 'unchanged':
        if (json) write(ctx.stdout, JSON.stringify(o));
        return 0;
      case 'captured-error':
        write(ctx.stderr, `capture failed: ${o.message}`);
        return o.sync ? report()(o.sync, ctx, json) : 1;
      case 'synced':
        return report()(o.sync, ctx, json);
    }
  },
};
