import { brainHome } from '../core/home';
import { rebuildCache, updateCache, type BuildResult } from '../core/cache';
import { COMMON_EXIT_CODES, humanBytes, write, type Verb } from './args';

export function formatBuild(r: BuildResult): string {
  const out = [
    r.mode === 'current'
      ? `${r.path} is current with the manifest (${r.ms} ms)`
      : `${r.mode === 'rebuild' ? 'Rebuilt' : 'Updated'} ${r.path} in ${(r.ms / 1000).toFixed(1)} s: ${r.manifestLines} manifest lines, ${r.files} files, ${humanBytes(r.bytes)}` +
        (r.reason ? ` (rebuilt: ${r.reason})` : ''),
  ];
  if (r.badManifestLines) out.push(`  ${r.badManifestLines} manifest line(s) are not manifest records (brain verify names them)`);
  for (const p of r.problems) out.push(`  problem: ${p}`);
  return out.join('\n');
}

export const rebuild: Verb = {
  name: 'rebuild',
  summary: 'Rebuild the DuckDB cache (brain.duckdb) from the floor alone.',
  usage: 'rebuild [--update] [--json]',
  details: `brain.duckdb is a cache of lake/ + manifest/manifest.jsonl: it can be deleted at any time and is made
again here. The new file is written beside the old one and renamed over it, so queries running meanwhile
finish on the old one. --update only adds what the manifest gained since the cache last read it.
Exit 1 when some lake file named by the manifest could not be read (listed).
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'update', type: 'bool', help: 'incremental: only manifest lines the cache has not seen' },
    { name: 'json', type: 'bool', help: 'machine-readable result' },
  ],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    const r = args.opts.update ? await updateCache(home) : await rebuildCache(home);
    write(ctx.stdout, args.opts.json ? JSON.stringify(r) : formatBuild(r));
    return r.problems.length ? 1 : 0;
  },
};
