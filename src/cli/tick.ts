import { capture } from '../core/floor/capture';
import { brainHome } from '../core/home';
import { tick as runTick } from '../core/store/tick';
import { reportSync } from './sync';
import { write, type Verb } from './args';

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
    const o = await runTick(home, {
      env: ctx.env,
      capture: async () => {
        await capture({ home, env: ctx.env, source: 'record', lockWaitMs: 0 });
      },
    });
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
        return o.sync ? reportSync(o.sync, ctx, json) : 1;
      case 'synced':
        return reportSync(o.sync, ctx, json);
    }
  },
};
