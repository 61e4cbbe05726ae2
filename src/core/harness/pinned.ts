// The brain commands this machine's setup pins (harness hooks, MCP entries, the tick timer), and
// whether each still starts: a pinned Node that is too old, or a clone that moved, fails every use
// silently (a hook's error is not shown to anyone), so doctor runs each and init pins only one
// that runs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Env } from '../home';
import { planMcp, mcpSpec } from './mcp-register';
import { hookFiles } from '../setup/hooks';
import { timerPlan } from '../setup/timer';
import type { DoctorCheck } from '../setup/doctor';

/** Files where setup pins a brain command (those that exist). */
export function pinnedFiles(brainCmd: string[], env: Env): string[] {
  const files = new Set<string>(Object.values(hookFiles(env)));
  try {
    for (const p of planMcp(mcpSpec(brainCmd, env), env)) if (p.action !== 'absent') files.add(p.file);
  } catch {
    /* a harness whose MCP file cannot be planned is doctor's other check's to report */
  }
  try {
    for (const f of timerPlan(brainCmd, env).files) files.add(f.path);
  } catch {
    /* no timer on this platform */
  }
  return [...files].filter((f) => {
    try {
      return fs.statSync(f).isFile();
    } catch {
      return false;
    }
  });
}

const SCRIPT = /[\\/](bin[\\/]brain|dist[\\/]cli(-mcp)?\.js)$/;
const NODE = /^node(js)?(\.exe)?$|^node\d+$/;

/** [node, script] pairs a text pins: each absolute path of a brain script with the Node path
 * written before it (JSON, TOML, systemd's quoting or a launchd plist alike). */
export function pinnedCommands(text: string): string[][] {
  const out: string[][] = [];
  let node: string | null = null;
  for (const m of text.matchAll(/(?:[A-Za-z]:)?[\\/][^\s"'`,;[\]{}()<>]+/g)) {
    const p = m[0].replace(/\\\\/g, '\\');
    if (NODE.test(path.basename(p))) node = p;
    else if (SCRIPT.test(p) && node) {
      if (!out.some(([a, b]) => a === node && b === p)) out.push([node, p]);
      node = null;
    }
  }
  return out;
}

/** Does `node script --version` start and answer? null when it does, else why not. */
export function startProblem(cmd: string[], env: Env): string | null {
  const r = spawnSync(cmd[0], [...cmd.slice(1), '--version'], { encoding: 'utf8', env: env as NodeJS.ProcessEnv, timeout: 20_000 });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${cmd[0]} does not exist` : r.error.message;
  if (r.status === 0 && /^\d+\.\d+/.test(r.stdout.trim())) return null;
  const why = (r.stderr || r.stdout).trim().split('\n').find((l) => l.trim()) ?? '';
  return `exits ${r.status ?? r.signal}${why ? `: ${why}` : ' with no message'}`;
}

/** One check per pinned command: fails naming the file and the command that does not start. */
export function pinnedChecks(brainCmd: string[], env: Env): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  const tried = new Map<string, string | null>();
  for (const file of pinnedFiles(brainCmd, env)) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const cmd of pinnedCommands(text)) {
      const key = cmd.join('\0');
      if (!tried.has(key)) tried.set(key, startProblem(cmd, env));
      const problem = tried.get(key);
      const shown = cmd.join(' ');
      if (problem) out.push({ name: `pinned ${path.basename(file)}`, level: 'fail', detail: `${file} runs \`${shown}\`, which does not start (${problem})`, fix: 'brain init   (run by a Node 22 or newer, from where brain is installed)' });
      else out.push({ name: `pinned ${path.basename(file)}`, level: 'ok', detail: `${file}: \`${shown}\` starts` });
    }
  }
  return out;
}

/** Why brain cannot run on this Node (null: it can): what init will not pin. */
export function nodeProblem(node: string, env: Env): string | null {
  const r = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', env: env as NodeJS.ProcessEnv, timeout: 20_000 });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${node} does not exist` : r.error.message;
  const v = r.stdout.trim();
  if (r.status !== 0 || !/^\d+\./.test(v)) return `${node} does not run (exit ${r.status ?? r.signal})`;
  return Number(v.split('.')[0]) < 22 ? `${node} is Node ${v}; brain needs Node 22 or newer` : null;
}
