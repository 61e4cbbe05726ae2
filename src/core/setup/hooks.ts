// Harness hooks that run `brain hook <agent>` at session start, so each session's repo metadata
// (git common dir, branch, commit, cwd) is taken inside the session's own process tree while it is
// still true. Every agent whose harness.ts declares a hook file has one (agents/<lane>/harness.ts
// says which file and plans brain's entry there). brain owns only its own entries in these shared
// files: a hook whose command runs `brain … hook …` (whatever path older installs wrote).
// Everything else is left exactly as it is, and a file that does not parse is never rewritten (the
// plan says so and names the file). An agent without a session-start hook is captured without
// meta records.
import { harnessAgents } from '../agents';
import type { HookPlanItem } from '../agents/harness';
import type { Env } from '../home';
import { writeUserFile } from '../floor/durable';

export { OWN_COMMAND, hookCommand } from '../agents/kit/setup';
export type { HookPlanItem };

/** The lane of an agent with a session-start hook. */
export type HookAgent = string;

export function hookFiles(env: Env): Record<HookAgent, string> {
  return Object.fromEntries(harnessAgents().flatMap((a) => (a.harness.hookFile && a.harness.planHook ? [[a.lane, a.harness.hookFile(env)]] : [])));
}

/** What `brain init` would do to the hook files. Doctor runs the same plan without writing. */
export function planHooks(brainCmd: string[], env: Env): HookPlanItem[] {
  return harnessAgents().flatMap((a) => (a.harness.hookFile && a.harness.planHook ? [a.harness.planHook(a.harness.hookFile(env), brainCmd, env)] : []));
}

export function applyHooks(plan: HookPlanItem[]): HookPlanItem[] {
  for (const p of plan) {
    if (!p.content || !['create', 'add', 'update'].includes(p.action)) continue;
    writeUserFile(p.file, p.content);
  }
  return plan;
}
