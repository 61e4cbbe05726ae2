import * as path from 'node:path';
import { type CiteInput, type CiteOutput, type VerifyOutput } from '../core/recall';
import { brainHome } from '../core/home';
import { checkLineEverywhere } from '../core/remote/everywhere';
import { callRecall } from '../core/tools/recall';
import { BrainError } from '../core/errors';
import type { Citation } from '../core/turns';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { recallContext } from './reveal';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8');
}

async function readCitation(arg: string | undefined, stdin: NodeJS.ReadableStream): Promise<Citation> {
  const text = arg ?? (await readAll(stdin));
  try {
    const j = JSON.parse(text);
    // Accept a citation, or anything that carries one (a snippet, a turn).
    return (j.citation ?? j) as Citation;
  } catch (e) {
    throw new BrainError('usage', 'cite --verify: the citation is not JSON', 'pass the citation JSON that search, show --json or cite --json printed', { cause: e });
  }
}

/** A lake path as citations name it (relative to the floor); an absolute path inside BRAIN_HOME
 * (or the --store folder's machine) is taken as the path it names there. */
function floorRelative(p: string, store: string | undefined, env: NodeJS.ProcessEnv): { rel: string; machine?: string } {
  if (!path.isAbsolute(p)) return { rel: p };
  const roots = store ? [path.resolve(store)] : [path.resolve(brainHome(env))];
  for (const r of roots) {
    const rel = path.relative(r, path.resolve(p));
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const parts = rel.split(path.sep);
    // In a store, <store>/<machine>/lake/...; in BRAIN_HOME, lake/...
    const at = parts.indexOf('lake');
    if (at >= 0) return { rel: parts.slice(at).join('/'), ...(store && at > 0 ? { machine: parts[at - 1] } : {}) };
  }
  throw new BrainError('usage', `${p} is not a file of ${store ? `the store ${store}` : `the floor ${brainHome(env)}`}`, 'give the lake path a citation names (lake/<agent>/...), or a path inside BRAIN_HOME');
}

/** A line range as the command line gives it: A..B, A-B or A–B (how citations print one: show,
 * search, cite itself), or A. Which lines a file has, and that A comes first, the cite tool checks. */
export function lineRange(s: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:(?:\.\.|[-–])\s*(\d+)\s*)?$/.exec(s);
  if (!m) throw new BrainError('usage', `cite: cannot read "${s}" as a line range`, 'use A..B, A-B or A (lines, from 1)');
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

export const cite: Verb = {
  name: 'cite',
  summary: 'Cite lines of a floor file (sha256 of exactly those bytes), or verify a citation.',
  usage: 'cite LAKE_PATH A..B|A-B [--machine M] [--store DIR] [--json] | cite --verify [CITATION_JSON] [--store DIR]',
  details: `LAKE_PATH is relative to the machine's floor (lake/<agent>/...), as citations name it, or its absolute
path inside BRAIN_HOME (or the --store folder). The range is A..B, A-B or A. The citation is
machine, path, generation, line and byte range and sha256, and anyone can check it:
  sed -n 'A,Bp' BRAIN_HOME/LAKE_PATH | sha256sum
(the check line printed names the file by its absolute path). A range past the file's end is cut to
its last line, and the answer says so (a note; "clamped" in --json).
--verify re-hashes a citation (JSON as an argument or on stdin) where the floor keeps it, or at
<store>/<machine>/ with --store (it works after the origin, or the whole machine, is gone). With a
store configured, another machine's citation is verified at the store (over ssh, on the store host).
${COMMON_EXIT_CODES} Exit 1: the citation does not verify.`,
  options: [
    { name: 'machine', type: 'string', help: 'the machine whose floor the path is in (default: this one)' },
    { name: 'store', type: 'string', help: 'read from a store folder instead of BRAIN_HOME' },
    { name: 'verify', type: 'bool', help: 'verify a citation instead of making one' },
    { name: 'json', type: 'bool', help: 'machine-readable output' },
  ],
  async run(args, ctx) {
    const o = args.opts;
    if (o.verify) {
      const c = await readCitation(args.positionals[0], ctx.stdin);
      const r = (await callRecall('verify_citation', { citation: c, ...(o.store ? { store: o.store as string } : {}) }, recallContext('cite', args, ctx))) as VerifyOutput;
      if (o.json) write(ctx.stdout, JSON.stringify(r));
      else write(ctx.stdout, r.ok ? `ok: ${r.path} lines ${c.line_from}-${c.line_to} hash to ${r.sha256}` : `does not verify: ${r.problem}`);
      return r.ok ? 0 : 1;
    }
    const [given, range] = args.positionals;
    if (!given || !range || args.positionals.length > 2) throw new BrainError('usage', 'cite takes LAKE_PATH and a line range A..B', 'brain cite lake/cc/<project>/<session>.jsonl 12..15');
    const where = floorRelative(given, o.store as string | undefined, ctx.env);
    const lakePath = where.rel;
    const [a, b] = lineRange(range);
    const input: CiteInput = { lake_path: lakePath, line_from: a, line_to: b };
    if (o.machine !== undefined) input.machine = o.machine as string;
    else if (where.machine) input.machine = where.machine;
    if (o.store !== undefined) input.store = o.store as string;
    const c = (await callRecall('cite', input, recallContext('cite', args, ctx))) as CiteOutput;
    if (o.json) write(ctx.stdout, JSON.stringify(c));
    else {
      write(
        ctx.stdout,
        [
          `${c.machine}:${c.lake_path} (generation ${c.gen})`,
          `lines ${c.line_from}-${c.line_to}, bytes ${c.byte_from}-${c.byte_to}`,
          ...(c.clamped ? [`note: ${c.clamped.message}`] : []),
          `sha256 ${c.sha256}`,
          // An absolute path: the line runs from any folder, not only from BRAIN_HOME.
          `check: ${checkLineEverywhere(c, input.store, ctx.env)}`,
        ].join('\n'),
      );
    }
    return 0;
  },
};
