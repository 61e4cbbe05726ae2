// Floor-side helpers for the real-agent suite: run `brain watch` beside an agent, map an agent's
// transcript to its lake file, wait for capture to catch up, and check the manifest independently
// of the program (sed -n 'A,Bp' | sha256sum, as a user would).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, type Sandbox } from '../helpers/env';
import { agentByLane } from '../../src/core/agents/index';
import { readManifest, type ManifestLine } from '../../src/core/floor/manifest';

export interface Watch {
  proc: ChildProcess;
  /** Resolves once watch says it is watching (its catch-up pass is done). */
  ready: Promise<void>;
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `brain watch` in the sandbox (the agent's env, so it sees the same origin roots). */
export function startWatch(env: NodeJS.ProcessEnv): Watch {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node scripts/build.mjs\` first`);
  const proc = spawn(process.execPath, [CLI, 'watch'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let markReady!: () => void;
  let failReady!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  proc.stdout!.on('data', (d) => {
    out += d;
    if (/\bwatching\b/.test(out)) markReady();
  });
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => {
      failReady(new Error(`brain watch exited (${code ?? signal}) before it was watching:\n${out}`));
      resolve({ code, signal });
    }),
  );
  return {
    proc,
    ready,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGINT');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}

/** Runs the built CLI with an explicit environment. */
export function brainCli(env: NodeJS.ProcessEnv, args: string[], opts: { timeout?: number; input?: string; cwd?: string } = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: opts.timeout ?? 120_000, input: opts.input, cwd: opts.cwd, maxBuffer: 64 * 1024 * 1024 });
}

/** The lake file (relative to BRAIN_HOME) an origin file is captured into, generation 1, using the
 * program's own root table so the suite follows the floor's naming rule rather than restating it. */
export function lakeRelFor(lane: string, origin: string, env: NodeJS.ProcessEnv): string {
  const agent = agentByLane(lane);
  if (!agent) throw new Error(`no agent registered for lane ${lane}`);
  for (const root of agent.roots(env)) {
    const rel = path.relative(root.dir, origin);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const inLane = root.lakePrefix ? `${root.lakePrefix}/${rel.split(path.sep).join('/')}` : rel.split(path.sep).join('/');
    return `lake/${lane}/${inLane}`;
  }
  throw new Error(`${origin} is under none of the ${lane} origin roots`);
}

/** Lake files of one origin, all generations, oldest first (name.jsonl, name.g2.jsonl, ...). */
export function generations(brainHome: string, lakeRel: string): string[] {
  const abs = path.join(brainHome, lakeRel);
  const dir = path.dirname(abs);
  if (!fs.existsSync(dir)) return [];
  const ext = path.extname(abs);
  const stem = path.basename(abs, ext);
  const re = new RegExp(`^${escapeRe(stem)}\\.g(\\d+)${escapeRe(ext)}$`);
  const more = fs
    .readdirSync(dir)
    .map((n) => ({ n, m: re.exec(n) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(a.m![1]) - Number(b.m![1]))
    .map((x) => path.join(dir, x.n));
  return [...(fs.existsSync(abs) ? [abs] : []), ...more];
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function manifestFor(brainHome: string, lakeRels: string[]): ManifestLine[] {
  const want = new Set(lakeRels);
  return readManifest(path.join(brainHome, 'manifest', 'manifest.jsonl')).lines.filter((m) => want.has(m.lake_path));
}

/** Polls until `cond` holds; on timeout throws with `why()` so the failure says what was seen. */
export async function waitFor(cond: () => boolean, what: string, why: () => string, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${why()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** True when the lake file holds exactly the origin's current bytes and the manifest claims all of
 * them (the lake is written before the manifest, so equal bytes alone can be a moment early). */
export function lakeEquals(brainHome: string, lakeRel: string, origin: string): boolean {
  const a = path.join(brainHome, lakeRel);
  if (!fs.existsSync(a)) return false;
  const x = fs.readFileSync(a);
  const y = fs.readFileSync(origin);
  if (!x.equals(y)) return false;
  const claimed = manifestFor(brainHome, [lakeRel]).reduce((n, m) => Math.max(n, m.byte_to), 0);
  return claimed === x.length;
}

/** Checks each manifest line the way the README tells a user to: `sed -n 'A,Bp' FILE | sha256sum`,
 * and that one file's chunks are contiguous from byte 0 and line 1 to its end. Returns problems. */
export function checkChunks(brainHome: string, lakeFile: string, chunks: ManifestLine[]): string[] {
  const problems: string[] = [];
  const sorted = [...chunks].sort((a, b) => a.byte_from - b.byte_from);
  let byte = 0;
  let line = 1;
  for (const c of sorted) {
    if (c.byte_from !== byte || c.line_from !== line) problems.push(`${c.lake_path}: chunk ${c.byte_from}-${c.byte_to} (lines ${c.line_from}-${c.line_to}) does not follow byte ${byte} / line ${line}`);
    byte = c.byte_to;
    line = c.line_to + 1;
    const r = spawnSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', lakeFile], { encoding: 'utf8' });
    const sha = r.stdout.split(' ')[0];
    if (sha !== c.chunk_sha256) problems.push(`${c.lake_path} lines ${c.line_from}-${c.line_to}: sed | sha256sum gives ${sha}, manifest says ${c.chunk_sha256}`);
  }
  const size = fs.existsSync(lakeFile) ? fs.statSync(lakeFile).size : -1;
  if (byte !== size) problems.push(`${lakeFile}: chunks end at byte ${byte}, file has ${size}`);
  return problems;
}

/** What is on the floor for an origin, for failure messages. */
export function floorState(sb: Sandbox | { brain: string }, lakeRel: string, origin?: string): string {
  const abs = path.join(sb.brain, lakeRel);
  const lines = [
    `origin ${origin ?? '?'}: ${origin && fs.existsSync(origin) ? fs.statSync(origin).size + ' bytes' : 'missing'}`,
    `lake ${lakeRel}: ${fs.existsSync(abs) ? fs.statSync(abs).size + ' bytes' : 'missing'}`,
  ];
  const man = path.join(sb.brain, 'manifest', 'manifest.jsonl');
  if (fs.existsSync(man)) {
    const ms = readManifest(man).lines.filter((m) => m.lake_path.startsWith(lakeRel.replace(/\.jsonl$/, '')));
    lines.push(`manifest lines for it: ${ms.map((m) => `[g${m.gen} ${m.byte_from}-${m.byte_to} ${m.source}]`).join(' ') || 'none'}`);
  } else lines.push('no manifest yet');
  return lines.join('\n');
}
