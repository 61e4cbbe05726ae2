// The one registration list: adding an agent is one folder plus one line here.
import type { Lane } from '../floor/manifest';
import type { AgentPaths } from './types';
import { ccPaths } from './cc/paths';
import { codexPaths } from './codex/paths';
import { piPaths } from './pi/paths';
import { cursorPaths } from './cursor/paths';
import { geminiPaths } from './gemini/paths';
import { copilotPaths } from './copilot/paths';

export const AGENTS: AgentPaths[] = [ccPaths, codexPaths, piPaths, cursorPaths, geminiPaths, copilotPaths];

export function agentByLane(lane: string): AgentPaths | undefined {
  return AGENTS.find((a) => a.lane === (lane as Lane));
}
