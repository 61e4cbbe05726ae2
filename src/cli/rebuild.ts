import { brainHome, layout } from '../core/home';
import { rebuildCache, updateCache, type BuildResult } from '../core/cache';
import { follow } from '../core/cache/follow';
import { homeRoot } from '../core/index/roots';
import { openIndex, rebuildIndex } from '../core/index/turnindex';
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
  summary: 'Rebuild the caches (brain.duckdb and the turn index turns.sqlite) from the floor alone.',
  usage: 'rebuild [--update] [--json]',
  details: `brain.duckdb and turns.sqlite are caches of lake/ + manifest/manifest.jsonl: either can be deleted at
any time and is made again here. The new brain.duckdb is written beside the old one and renamed over it,
so queries running meanwhile finish on the old one; the turn index is built from nothing the same way,
beside the old file, and searches meanwhile use the old one. --update only adds what the manifest gained
since each cache last read it. Exit 1 when some lake file named by the manifest could not be read (listed), or the turn index
could not be built (search then scans).
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'update', type: 'bool', help: 'incremental: only manifest lines the cache has not seen' },
    { name: 'json', type: 'bool', help: 'machine-readable result' },
    { name: 'follow', type: 'bool', help: 'with --update: the DuckDB cache only, until current; what brain record starts in the background' },
  ],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    if (args.opts.follow) {
      if (!args.opts.update) {
        write(ctx.stderr, 'brain rebuild: --follow goes with --update');
        return 2;
      }
      const detail = await follow(home, (h) => updateCache(h));
      write(ctx.stdout, args.opts.json ? JSON.stringify({ follow: detail }) : `DuckDB cache: ${detail}`);
      return 0;
    }
    const r = args.opts.update ? await updateCache(home) : await rebuildCache(home);
    const index = indexStep(ctx.env, home, !!args.opts.update);
    write(ctx.stdout, args.opts.json ? JSON.stringify({ ...r, index }) : `${formatBuild(r)}\n${index.text}`);
    return r.problems.length || !index.ok ? 1 : 0;
  },
};

interface IndexStep {
  ok: boolean;
  text: string;
  turns?: number;
  files?: number;
  ms?: number;
  reason?: string;
}

function indexStep(env: NodeJS.ProcessEnv, home: string, update: boolean): IndexStep {
  const root = homeRoot(env, home);
  const t0 = Date.now();
  let r: ReturnType<typeof rebuildIndex>;
  if (update) {
    // The same update a search runs first.
    const o = openIndex(root);
    if (!o.ok) r = o;
    else {
      try {
        r = { ok: true, report: o.index.update() };
      } finally {
        o.index.close();
      }
    }
  } else r = rebuildIndex(root);
  if (!r.ok) return { ok: false, reason: r.reason, text: `turn index not ${update ? 'updated' : 'rebuilt'}: ${r.reason} (search falls back to a scan)` };
  const ms = Date.now() - t0;
  const where = layout(home).turns;
  const text = update
    ? `Updated ${where} in ${(ms / 1000).toFixed(1)} s: ${r.report.turns} new entries from ${r.report.files} files`
    : `Rebuilt ${where} in ${(ms / 1000).toFixed(1)} s: ${r.report.turns} entries from ${r.report.files} files`;
  return { ok: true, text, turns: r.report.turns, files: r.report.files, ms };
}
