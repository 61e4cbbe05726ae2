// Which harnesses are on this machine: the CLI on PATH, or the folder it keeps its settings in
// (a harness installed as an editor extension has the folder but no CLI on PATH). A harness is an
// agent of the registry that declares one (agents/<lane>/harness.ts).
import { agentByLane, type AgentHarness } from '../agents';
import { harnessPresent as present, which } from '../agents/kit/setup';
import type { Env } from '../home';

export { which };

/** The lane of an agent that declares a harness. */
export type Harness = string;

export function harnessOf(lane: Harness): AgentHarness | undefined {
  return agentByLane(lane)?.harness;
}

/** Its display name (the lane when the registry does not know it). */
export function harnessLabel(lane: Harness): string {
  return agentByLane(lane)?.label ?? lane;
}

export function harnessPresent(lane: Harness, env: Env): boolean {
  const h = harnessOf(lane);
  return !!h && present(h, env);
}
