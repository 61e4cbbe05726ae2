import { brainHome } from '../core/home';
import { startWatch } from '../core/floor/watch';
import { describe, homeNotWritable, notWritable } from '../core/errors';
import { AfterCapture, POLICY, withFollower } from '../core/pipeline/after';
import { write, type Verb } from './args';

export const watch: Verb = {
  name: 'watch',
  summary: 'Capture continuously until interrupted (Ctrl-C).',
  usage: 'watch [--quiet]',
  details: 'Runs one catch-up pass, then captures each session file as it changes (debounced). Exit 0 on SIGINT/SIGTERM.',
  options: [{ name: 'quiet', type: 'bool', help: 'print nothing per pass' }],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    // Watching a floor that cannot be written would only repeat this error on every change.
    const ro = homeNotWritable(home);
    if (ro) throw ro;
    // The caches follow each pass that captured something (POLICY.watch); the next pass waits for
    // the secret scan and the turn index. DuckDB's update, at most every 30 s, is handed to a
    // follower of its own as `brain record` does, so no change waits behind it.
    const policy = ctx.self ? withFollower(POLICY.watch, home, ctx.self, ctx.env) : POLICY.watch;
    const after = new AfterCapture(home, ctx.env, policy);
    const w = startWatch({
      home,
      env: ctx.env,
      onPass: async (r) => {
        // Said every time: a user wondering why nothing is recorded sees who holds the floor.
        if (r.busy) write(ctx.stderr, 'brain watch: another brain process is writing the floor; this change is taken once it lets go');
        for (const e of r.refused) write(ctx.stderr, `brain watch: not recorded: ${e.path}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
        if (!args.opts.quiet) {
          const bytes = Object.values(r.lanes).reduce((n, c) => n + c.bytes, 0);
          const chunks = Object.values(r.lanes).reduce((n, c) => n + c.chunks, 0);
          if (chunks > 0 || r.events.length > 0) write(ctx.stdout, `${new Date().toISOString()} captured ${chunks} chunk(s), ${bytes} bytes${r.events.length ? `, ${r.events.length} note(s)` : ''}`);
        }
        await after.follow(r);
      },
      onError: (e) => write(ctx.stderr, `brain watch: ${describe(notWritable(e, home) ?? e)}`),
    });
    await w.ready;
    write(ctx.stdout, `watching; floor at ${home} (Ctrl-C to stop)`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await w.close();
    await after.close();
    return 0;
  },
};
