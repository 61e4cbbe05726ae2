// Registering `brain mcp` with each harness that speaks MCP: every agent whose harness.ts has a
// planMcp (agents/<lane>/harness.ts says where and how). brain owns one entry named "brain" in
// each, and only while it runs brain's mcp verb; anything else there is left alone, and a file
// that does not parse is never written. A plan is applied here: the harness's own CLI commands
// are run (or, without that CLI on PATH, printed for the user), or the file's new text is written.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { harnessAgents } from '../agents';
import type { McpServerSpec, RegPlan } from '../agents/harness';
import { shQuote } from '../agents/kit/setup';
import type { Env } from '../home';
import { writeUserFile } from '../floor/durable';
import { harnessOf, which } from './detect';

export { SERVER_NAME, runsBrainMcp, shQuote } from '../agents/kit/setup';
export type { McpServerSpec, RegPlan };

/** Environment a harness may not pass on, pinned into the registration when set. */
const PINNED_ENV = ['BRAIN_HOME', 'BRAIN_MACHINE'] as const;

export function mcpSpec(brainCmd: string[], env: Env): McpServerSpec {
  const e: Record<string, string> = {};
  for (const k of PINNED_ENV) {
    const v = env[k];
    if (v) e[k] = k === 'BRAIN_HOME' ? path.resolve(v) : v;
  }
  return { command: brainCmd[0], args: [...brainCmd.slice(1), 'mcp'], env: e };
}

/** Every MCP harness's plan, in registry order. */
export function planMcp(spec: McpServerSpec, env: Env): RegPlan[] {
  return harnessAgents().flatMap((a) => (a.harness.planMcp ? [a.harness.planMcp(spec, env)] : []));
}

export interface ApplyResult {
  plan: RegPlan;
  /** What was done: 'applied', 'printed' (no CLI to run), or 'failed' with why. */
  outcome: 'applied' | 'printed' | 'failed' | 'none';
  message?: string;
}

/** Runs the plan's commands with the harness's CLI on PATH (without one, leaves them to print),
 * then plans again to check; or writes its content through a symlink, keeping the file's mode. */
export function applyMcp(plan: RegPlan, env: Env, spec: McpServerSpec): ApplyResult {
  if (plan.action !== 'add' && plan.action !== 'update') return { plan, outcome: 'none' };
  const h = harnessOf(plan.harness);
  if (plan.commands && h) {
    const bin = which(h.bin, env);
    if (!bin) return { plan, outcome: 'printed', message: plan.commands.map((c) => c.map(shQuote).join(' ')).join(' && ') };
    const runEnv = { ...env, ...plan.runEnv } as NodeJS.ProcessEnv;
    for (const c of plan.commands) {
      const r = spawnSync(bin, c.slice(1), { env: runEnv, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.status !== 0) {
        return { plan, outcome: 'failed', message: `${c.map(shQuote).join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout || r.error?.message || '').trim().split('\n').pop()}` };
      }
    }
    const after = h.planMcp?.(spec, env);
    const last = plan.commands[plan.commands.length - 1].slice(0, 3).join(' ');
    if (after && after.action !== 'ok') return { plan, outcome: 'failed', message: `after \`${last}\`, ${after.file}: ${after.detail}` };
    return { plan, outcome: 'applied' };
  }
  if (plan.content === undefined) return { plan, outcome: 'none' };
  writeUserFile(plan.file, plan.content);
  return { plan, outcome: 'applied' };
}
