import { BrainError } from '../core/errors';
import { brainCommand } from '../core/store/brainpath';
import { installTimer, removeTimer, timerStatus } from '../core/setup/timer';
import { write, type Verb } from './args';

export const timer: Verb = {
  name: 'timer',
  summary: 'Install, remove or show the timer that runs `brain tick` every 5 minutes.',
  usage: 'timer install|remove|status [--json]',
  details: `A systemd user unit (brain-tick.service + .timer in ~/.config/systemd/user) on Linux, a launchd agent
(~/Library/LaunchAgents/dev.agent-brain.tick.plist) on macOS. node and brain are pinned by absolute path.
Where systemctl --user cannot be reached (a container, su), the unit files are written and the command to
enable them is printed.`,
  options: [{ name: 'json', type: 'bool', help: 'machine-readable' }],
  async run(args, ctx) {
    const what = args.positionals[0] ?? 'status';
    const cmd = brainCommand(ctx.env);
    if (what === 'install' || what === 'remove') {
      const r = what === 'install' ? installTimer(cmd, ctx.env) : removeTimer(ctx.env);
      if (args.opts.json) write(ctx.stdout, JSON.stringify(r));
      else {
        for (const f of r.written) write(ctx.stdout, `wrote ${f}`);
        for (const f of r.unchanged) write(ctx.stdout, `unchanged ${f}`);
        for (const f of r.removed) write(ctx.stdout, `removed ${f}`);
        if (r.activated) write(ctx.stdout, what === 'install' ? 'timer enabled and running' : 'timer stopped');
        if (r.note) write(ctx.stdout, `note: ${r.note}`);
      }
      return 0;
    }
    if (what !== 'status') throw new BrainError('usage', `unknown timer action "${what}"`, 'use install, remove or status');
    const s = timerStatus(cmd, ctx.env);
    if (args.opts.json) write(ctx.stdout, JSON.stringify(s));
    else write(ctx.stdout, s.detail + (s.outdated ? ' (runs another brain: brain timer install updates it)' : ''));
    return s.installed && s.running !== false && !s.outdated ? 0 : 1;
  },
};
