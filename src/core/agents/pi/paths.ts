import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

export function piAgentDir(env: Env): string {
  return env.PI_CODING_AGENT_DIR || pathFor(env).join(homeDir(env), '.pi', 'agent');
}

/** Pi: $PI_CODING_AGENT_DIR/sessions/** (default ~/.pi/agent). */
export const piFiles: AgentFiles = {
  roots(env: Env) {
    return [{ dir: pathFor(env).join(piAgentDir(env), 'sessions'), lakePrefix: '', include: (rel) => rel.endsWith('.jsonl') }];
  },
  sessionOf: sessionFromName,
};
