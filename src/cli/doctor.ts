import { brainHome } from '../core/home';
import { brainCommand } from '../core/store/brainpath';
import { doctor as runDoctor } from '../core/setup/doctor';
import { harnessChecks } from '../core/harness/steps';
import { pinnedChecks } from '../core/harness/pinned';
import { write, type Verb } from './args';

export const doctor: Verb = {
  name: 'doctor',
  summary: 'Check the backup setup (read-only): config, rsync, store, timer, last sync, hooks, lock, retention.',
  usage: 'doctor [--offline] [--json]',
  details: 'Each problem comes with the command that fixes it (usually `brain init`). Exit 0 when nothing fails, 1 otherwise.',
  options: [
    { name: 'offline', type: 'bool', help: 'do not connect to an ssh store' },
    { name: 'json', type: 'bool', help: 'machine-readable' },
  ],
  async run(args, ctx) {
    const checks = await runDoctor(brainHome(ctx.env), { env: ctx.env, brainCmd: brainCommand(ctx.env), offline: !!args.opts.offline });
    checks.push(...harnessChecks(brainCommand(ctx.env), ctx.env));
    // Each command the setup pinned is run: one that does not start fails every use silently.
    checks.push(...pinnedChecks(brainCommand(ctx.env), ctx.env));
    const failed = checks.filter((c) => c.level === 'fail').length;
    if (args.opts.json) write(ctx.stdout, JSON.stringify({ checks, failed }));
    else {
      const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', info: 'info' } as const;
      for (const c of checks) {
        write(ctx.stdout, `${mark[c.level]} ${c.name}: ${c.detail}`);
        if (c.fix && c.level !== 'ok') write(ctx.stdout, `       fix: ${c.fix}`);
      }
      write(ctx.stdout, failed ? `${failed} problem(s)` : 'no problems');
    }
    return failed ? 1 : 0;
  },
};
