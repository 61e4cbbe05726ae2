import * as os from 'node:os';
import { brainHome } from '../core/home';
import { runSync, type SyncOutcome } from '../core/store/sync';
import { COMMON_EXIT_CODES, write, type Verb, type VerbContext } from './args';

/** Prints a sync outcome; returns the exit code. Shared by sync and tick. */
export function reportSync(o: SyncOutcome, ctx: VerbContext, json: boolean): number {
  if (json) {
    const { run: _r, ...rest } = o as SyncOutcome & { run?: unknown };
    write(ctx.stdout, JSON.stringify(rest));
  }
  switch (o.kind) {
    case 'busy':
      if (!json) write(ctx.stdout, o.floor ? 'a capture pass kept the floor busy; the next sync takes what changed' : o.pendingMarked ? 'another sync is running; it will sync again before it finishes' : 'another sync is running');
      return 0;
    case 'not-configured':
      if (!json) write(ctx.stderr, `${o.message}${o.hint ? `\n  ${o.hint}` : ''}`);
      return 3;
    case 'nothing':
      if (!json) write(ctx.stdout, 'nothing changed since the last sync that worked (brain sync --now syncs anyway)');
      return 0;
    case 'done': {
      const s = o.state;
      if (!json) {
        write(ctx.stdout, `${s.status}: ${s.message}`);
        for (const f of s.findings) write(ctx.stdout, `  ${f.code}: ${f.message}`);
        if (s.warning) write(ctx.stdout, `warning: ${s.warning}${s.hint ? `\n  ${s.hint}` : ''}`);
      }
      // Stopped by a signal (the rsync process group was stopped with it): the shell's convention.
      if (o.run?.interrupted) return 128 + (os.constants.signals[o.run.interrupted] ?? 0);
      return s.status === 'ok' && !s.warning ? 0 : 1;
    }
  }
}

export const sync: Verb = {
  name: 'sync',
  summary: 'Back up the floor to the store now, if anything changed (--now: even if not).',
  usage: 'sync [--now] [--adopt] [--json]',
  details: `One rsync --append-verify (never --delete) of lake/, manifest/ and meta/ to <store>/<machine>/, under a
lock: a second sync exits at once. With --now it also syncs when nothing changed, and if another sync holds
the lock it leaves a mark that makes that sync run again before it finishes. Files that fail their check are
not pushed, store copies that differ are moved aside to .brain/replaced/ and re-sent; both are reported.
<store>/<machine>/ belongs to the floor that first synced there (.brain/floor-id): another floor under the
same machine name is refused ("machine name taken"). --adopt takes the folder over, for the same machine
set up again from nothing (its floor has a new id); the other floor's id is kept with the moved-aside copies.
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'now', type: 'bool', help: 'sync even if nothing changed; queue behind a running sync' },
    { name: 'adopt', type: 'bool', help: 'take over <store>/<machine>/ recorded for another floor (this machine set up again); implies --now' },
    { name: 'json', type: 'bool', help: 'machine-readable result' },
  ],
  async run(args, ctx) {
    const adopt = !!args.opts.adopt;
    const o = await runSync(brainHome(ctx.env), { now: !!args.opts.now || adopt, adopt, env: ctx.env });
    return reportSync(o, ctx, !!args.opts.json);
  },
};
