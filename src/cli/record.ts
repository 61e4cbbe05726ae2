import * as path from 'node:path';
import { agents, registry } from '../core/agents';
import { capture, type CaptureReport } from '../core/floor/capture';
import { brainHome } from '../core/home';
import { POLICY, afterCapture, withFollower } from '../core/pipeline/after';
import { COMMON_EXIT_CODES, humanBytes, write, type Verb } from './args';

export function formatReport(r: CaptureReport): string {
  const out: string[] = [];
  out.push(`Captured into ${r.home} (machine ${r.machine})`);
  for (const a of agents()) {
    const c = r.lanes[a.lane];
    const roots = r.roots.filter((x) => x.lane === a.lane);
    const found = roots.filter((x) => x.exists);
    if (found.length === 0) {
      out.push(`  ${a.label.padEnd(13)} no sessions folder (${roots.map((x) => x.dir).join(', ')})`);
      continue;
    }
    const parts = [`${c.files} files`, `+${humanBytes(c.bytes)}`, `+${c.lines} lines`];
    if (c.new_files) parts.push(`${c.new_files} new`);
    if (c.generations) parts.push(`${c.generations} new generation(s)`);
    if (c.pending) parts.push(`${c.pending} waiting for a newline`);
    if (c.warnings) parts.push(`${c.warnings} warning(s)`);
    out.push(`  ${a.label.padEnd(13)} ${parts.join(', ')}`);
    out.push(`  ${''.padEnd(13)} from ${found.map((x) => x.dir).join(', ')} -> ${path.join(r.home, 'lake', a.lane)}`);
  }
  const pc = r.prefix_check;
  if (pc.bytes > 0 || pc.waiting > 0) {
    out.push(`  prefix check: ${humanBytes(pc.bytes)} of ${pc.files} grown session(s) compared with the lake, ${pc.found} changed inside${pc.waiting ? `, ${pc.waiting} still to check` : ''}`);
  }
  const notable = r.events.filter((e) => e.code !== 'generation-opened');
  for (const e of r.events.filter((e) => e.code === 'generation-opened').slice(0, 20)) out.push(`  note: ${e.path}: ${e.message}`);
  for (const e of notable.slice(0, 50)) out.push(`  ${e.code}: ${e.path}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
  if (notable.length > 50) out.push(`  … and ${notable.length - 50} more (brain record --json lists all)`);
  return out.join('\n');
}

export const record: Verb = {
  name: 'record',
  summary: 'Capture every agent session on this machine into the floor (one pass).',
  usage: 'record [--json] [--wait SECONDS] [--no-caches]',
  details: `Reads new bytes of every session file of ${registry().labels()} and appends them to
BRAIN_HOME/lake (spool -> lake -> manifest -> offsets). Files rewritten by their agent open a new
generation (name.g2.jsonl); nothing on the floor is ever edited. An unterminated last line waits until
its file has been quiet for BRAIN_QUIET_SECONDS (default 600) or disappears.
Then brings up the caches: the secret scan and the turn index (search) before it returns; the DuckDB
cache, once built, in a process of its own (brain sql and the tools wait for it; brain rebuild --update
runs it in the foreground). If another process is capturing, waits up to --wait seconds (default 60) for it.
${COMMON_EXIT_CODES} Exit 1: some new bytes were not recorded because a lake file is not as the manifest says
(each named on stderr, and under "refused" with --json); everything else was. Exit 75: another writer held the
floor for the whole wait.`,
  options: [
    { name: 'json', type: 'bool', help: 'machine-readable counts per lane' },
    { name: 'wait', type: 'number', help: 'seconds to wait for another writer (default 60)' },
    { name: 'no-caches', type: 'bool', help: 'capture only; do not update the search index, DuckDB cache and secret scan' },
  ],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    const r = await capture({ home, env: ctx.env, lockWaitMs: ((args.opts.wait as number | undefined) ?? 60) * 1000 });
    if (r.busy) {
      write(ctx.stderr, `another brain process is writing to ${home}; try again later`);
      return 75;
    }
    // The DuckDB cache follows in a process of its own when this is the CLI's own process:
    // nothing a search needs waits for it.
    const base = args.opts['no-caches'] ? POLICY.captureOnly : POLICY.record;
    const policy = ctx.self ? withFollower(base, home, ctx.self, ctx.env) : base;
    const caches = await afterCapture(home, ctx.env, policy, r);
    if (args.opts.json) write(ctx.stdout, JSON.stringify({ home: r.home, machine: r.machine, applied: r.applied, lanes: r.lanes, roots: r.roots, warnings: r.events, refused: r.refused, prefix_check: r.prefix_check, caches }));
    else {
      write(ctx.stdout, formatReport(r));
      for (const c of caches) write(ctx.stdout, `  ${c.ok ? '' : 'FAILED '}${c.step}: ${c.detail}`);
    }
    if (r.refused.length === 0) return 0;
    // Bytes the floor would not take: the rest was recorded, but this pass did not do its job.
    write(ctx.stderr, `brain record: ${r.refused.length} chunk(s) not recorded because the floor is not as its manifest says:`);
    for (const e of r.refused) write(ctx.stderr, `  ${e.path}: ${e.message}${e.hint ? `\n    ${e.hint}` : ''}`);
    return 1;
  },
};
