import { brainHome } from '../core/home';
import { verifyFloor } from '../core/floor/verify';
import { COMMON_EXIT_CODES, humanBytes, write, type Verb } from './args';
import { verifyStoreRun } from './backup';

export const verify: Verb = {
  name: 'verify',
  summary: 'Re-hash the floor against its manifest; exit 1 naming each mismatch.',
  usage: 'verify [--sample N] [--deep] [--seed N] [--json] | verify --store [--sample N | --all] [--seed N]',
  details: `Checks every manifest range (sed -n 'A,Bp' lake_path | sha256sum = chunk_sha256), that each file's chunks
are contiguous with no gap or overlap, that no lake file holds unclaimed bytes, and that BRAIN_HOME is 0700
with files 0600. --sample N re-hashes N random ranges; --deep also compares each origin with its lake file.
--store re-hashes a random sample of our manifest's ranges (64, or --sample N, or --all) in the store's copy.
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'sample', type: 'number', help: 're-hash only N random ranges' },
    { name: 'seed', type: 'number', help: 'seed for --sample' },
    { name: 'deep', type: 'bool', help: 'also compare origins with their lake files' },
    { name: 'json', type: 'bool', help: 'machine-readable report' },
    { name: 'store', type: 'bool', help: 'read back the configured store instead of the local floor' },
    { name: 'all', type: 'bool', help: 'with --store: every range, not a sample' },
  ],
  async run(args, ctx) {
    if (args.opts.store) {
      return verifyStoreRun({ sample: args.opts.sample as number | undefined, all: !!args.opts.all, seed: args.opts.seed as number | undefined, json: !!args.opts.json }, ctx);
    }
    const home = brainHome(ctx.env);
    const r = verifyFloor(home, {
      sample: args.opts.sample as number | undefined,
      seed: args.opts.seed as number | undefined,
      deep: !!args.opts.deep,
      checkPermissions: true,
    });
    if (args.opts.json) write(ctx.stdout, JSON.stringify({ ...r, problems: r.problems.map(({ line: _l, ...p }) => p) }));
    else {
      write(ctx.stdout, `${r.root}: ${r.files} files, ${r.chunks} chunks, ${r.checked} re-hashed (${humanBytes(r.bytes_hashed)})`);
      for (const p of r.problems) write(ctx.stdout, `  ${p.kind}: ${p.path}: ${p.message}`);
      if (r.pending.length > 0) {
        const bytes = r.pending.reduce((n, p) => n + p.bytes, 0);
        write(ctx.stdout, `  pending: ${r.pending.length} file(s), ${humanBytes(bytes)} written by an interrupted pass (a crash or a full disk) and waiting in the spool for their manifest lines: the next \`brain record\` claims them (or cuts what it cannot, and reads those bytes again)`);
      }
      write(ctx.stdout, r.problems.length === 0 ? 'ok: every range verifies' : `${r.problems.length} problem(s)`);
    }
    return r.problems.length === 0 ? 0 : 1;
  },
};
