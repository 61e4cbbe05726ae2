import { loadConfig, readConfig } from '../core/config';
import { BrainError } from '../core/errors';
import { brainHome } from '../core/home';
import { backup as runBackup } from '../core/store/backup';
import { readbackStore } from '../core/store/readback';
import { COMMON_EXIT_CODES, humanBytes, write, type Verb, type VerbContext } from './args';

export const backup: Verb = {
  name: 'backup',
  summary: 'Copy the floor to any folder (pure add), then read it back against the manifest.',
  usage: 'backup DEST [--verify all|N] [--seed N] [--json]',
  details: `rsync --append-verify of lake/, manifest/, meta/ into DEST (never deletes or rewrites there; a local
lake file that fails the manifest is not copied). Then re-hashes a random sample of manifest ranges at DEST
(64 by default; --verify N for N, --verify all for every range) against our manifest, and exits 1 naming
every mismatch. ${COMMON_EXIT_CODES}`,
  options: [
    { name: 'verify', type: 'string', help: 'all, or how many ranges to re-hash (default 64)' },
    { name: 'seed', type: 'number', help: 'seed for the sample' },
    { name: 'json', type: 'bool', help: 'machine-readable report' },
  ],
  async run(args, ctx) {
    const dest = args.positionals[0];
    if (!dest) throw new BrainError('usage', 'where to? brain backup DEST');
    const v = args.opts.verify as string | undefined;
    if (v !== undefined && v !== 'all' && !/^\d+$/.test(v)) throw new BrainError('usage', `--verify expects "all" or a number, got "${v}"`);
    const home = brainHome(ctx.env);
    const cfg = readConfig(home, ctx.env);
    const r = await runBackup(home, dest, {
      all: v === 'all',
      count: v && v !== 'all' ? Number(v) : undefined,
      seed: args.opts.seed as number | undefined,
      rsyncPath: cfg.kind === 'ok' ? cfg.config.rsync_path : undefined,
      env: ctx.env,
    });
    const bad = r.readback.problems.length + r.skipped.length;
    if (args.opts.json) write(ctx.stdout, JSON.stringify(r));
    else {
      write(ctx.stdout, `copied to ${r.dest}: ${r.copied} file(s) updated${r.stats ? `, ${humanBytes(r.stats.sent)} sent` : ''}`);
      for (const s of r.skipped) write(ctx.stdout, `  not copied (fails the manifest): ${s.path}: ${s.why}`);
      const rb = r.readback;
      write(ctx.stdout, `read back: ${rb.checked} of ${rb.ranges} ranges re-hashed at ${r.dest} (${humanBytes(rb.bytes)})`);
      for (const p of rb.problems) write(ctx.stdout, `  ${p.kind}: ${p.path}: ${p.message}`);
      write(ctx.stdout, bad === 0 ? 'ok: every sampled range verifies at the destination' : `${bad} problem(s)`);
    }
    return bad === 0 ? 0 : 1;
  },
};

/** `brain verify --store`: the read-back against the configured store (wired into verify.ts). */
export async function verifyStoreRun(opts: { sample?: number; all?: boolean; seed?: number; json?: boolean }, ctx: VerbContext): Promise<number> {
  const home = brainHome(ctx.env);
  const cfg = loadConfig(home, ctx.env);
  const r = await readbackStore(home, cfg, ctx.env, { all: opts.all, count: opts.sample, seed: opts.seed });
  if (!r.ok) {
    if (opts.json) write(ctx.stdout, JSON.stringify(r));
    else write(ctx.stderr, `${r.label}: ${r.message}\n  ${r.hint}`);
    return 3;
  }
  const rb = r.report;
  if (opts.json) write(ctx.stdout, JSON.stringify(rb));
  else {
    write(ctx.stdout, `${rb.dest}: ${rb.checked} of ${rb.ranges} manifest ranges re-hashed at the store (${humanBytes(rb.bytes)})`);
    for (const p of rb.problems) write(ctx.stdout, `  ${p.kind}: ${p.path}: ${p.message}`);
    write(ctx.stdout, rb.problems.length === 0 ? "ok: every sampled range verifies at the store" : `${rb.problems.length} problem(s)`);
  }
  return rb.problems.length === 0 ? 0 : 1;
}
