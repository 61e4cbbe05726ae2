import * as path from 'node:path';
import { brainHome } from '../core/home';
import { BrainError, homeNotWritable } from '../core/errors';
import { nodeProblem } from '../core/harness/pinned';
import { brainCommand } from '../core/store/brainpath';
import { runInit, STORE_INIT_STEPS, type InitStep } from '../core/setup/init';
import { HARNESS_INIT_STEPS } from '../core/harness/steps';
import { write, type Verb } from './args';
import { harnessAgents } from '../core/agents';

/** "<agent> settings.json, …": where each harness's hook goes, for the help text. */
function hookPlaces(): string {
  return harnessAgents()
    .filter((a) => a.harness.hookFile)
    .map((a) => `${a.label} ${path.relative(a.harness.configDir(process.env), a.harness.hookFile!(process.env))}`)
    .join(', ');
}

/** init's steps, in order. Another step (MCP registration, skill links) is one more entry here. */
export const INIT_STEPS: InitStep[] = [...STORE_INIT_STEPS, ...HARNESS_INIT_STEPS];

export const init: Verb = {
  name: 'init',
  summary: 'Set up this machine: config.toml, the store, harness hooks and the tick timer (idempotent).',
  usage: 'init [--store PATH|HOST:PATH] [--machine NAME] [--ssh-mux-only] [--no-hooks] [--no-timer] [--dry-run] [--json]',
  details: `Writes config.toml from its commented template (never over a file it cannot parse), creates a local
store folder the first time it is named, installs the SessionStart hooks that run \`brain hook <agent>\`
(${hookPlaces()}; only brain's own entries are touched) and the
timer, registers brain mcp with each harness found and links the skill. --dry-run names every file
it would change and changes none. Running it again changes nothing that is already right. Exit 0,
or 1 if a step failed.`,
  options: [
    { name: 'store', type: 'string', help: 'PATH (a mounted folder) or HOST:PATH (ssh)' },
    { name: 'machine', type: 'string', help: "this machine's folder name at the store (default: hostname)" },
    { name: 'ssh-mux-only', type: 'bool', help: 'sync only over an open ssh ControlMaster' },
    { name: 'no-hooks', type: 'bool', help: 'do not install harness hooks' },
    { name: 'no-timer', type: 'bool', help: 'do not install the timer' },
    { name: 'dry-run', type: 'bool', help: 'say every file init would change, and change nothing' },
    { name: 'json', type: 'bool', help: 'machine-readable' },
  ],
  async run(args, ctx) {
    // Every step records into or configures BRAIN_HOME: one that cannot be written is said once.
    const dryRun = !!args.opts['dry-run'];
    const ro = dryRun ? null : homeNotWritable(brainHome(ctx.env));
    if (ro) throw ro;
    // Hooks, MCP entries and the timer run this Node at every use: one that cannot run brain
    // would fail there silently.
    const cmd = brainCommand(ctx.env);
    const bad = nodeProblem(cmd[0], ctx.env);
    if (bad) throw new BrainError('usage', `init would pin ${bad}: every hook, MCP entry and timer run would fail`, 'run brain init with Node 22 or newer (in a clone: node_modules/.bin/node dist/cli.js init), or set BRAIN_BIN to a Node 22 and bin/brain');
    const results = await runInit(
      {
        home: brainHome(ctx.env),
        env: ctx.env,
        brainCmd: cmd,
        dryRun,
        opts: {
          store: args.opts.store as string | undefined,
          machine: args.opts.machine as string | undefined,
          sshMuxOnly: args.opts['ssh-mux-only'] ? true : undefined,
          hooks: !args.opts['no-hooks'],
          timer: !args.opts['no-timer'],
        },
      },
      INIT_STEPS,
    );
    if (args.opts.json) write(ctx.stdout, JSON.stringify(results));
    else {
      for (const r of results) {
        write(ctx.stdout, `${r.status.padEnd(9)} ${r.step}: ${r.detail}`);
        if (r.fix) write(ctx.stdout, `          ${r.fix}`);
      }
      const changed = results.filter((r) => r.status === 'changed').length;
      const would = results.filter((r) => r.status === 'would change').length;
      if (dryRun) write(ctx.stdout, would ? `${would} change(s) to make (dry run: nothing was changed)` : 'nothing to change');
      else write(ctx.stdout, changed ? `${changed} change(s)` : 'nothing to change');
    }
    return results.some((r) => r.status === 'failed') ? 1 : 0;
  },
};
