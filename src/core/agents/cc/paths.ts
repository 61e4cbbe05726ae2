import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

/** Claude Code: $CLAUDE_CONFIG_DIR/projects/** (default ~/.claude): session files, the older flat
 * agent-*.jsonl, and <session>/subagents/agent-*.jsonl with their .meta.json. */
export const ccFiles: AgentFiles = {
  roots(env: Env) {
    const base = env.CLAUDE_CONFIG_DIR || pathFor(env).join(homeDir(env), '.claude');
    return [
      {
        dir: pathFor(env).join(base, 'projects'),
        lakePrefix: '',
        include: (rel) => rel.endsWith('.jsonl') || /\/subagents\/[^/]+\.meta\.json$/.test(rel),
      },
    ];
  },
  sessionOf(rel) {
    const base = rel.split('/').pop() ?? rel;
    // A sub-agent file is its own session (agent-<id>); its parent is the folder above subagents/.
    if (/^agent-/.test(base)) return base.replace(/(\.meta)?\.(jsonl|json)$/i, '');
    return sessionFromName(rel);
  },
};

/** Where Claude Code's settings live (for the retention guard). */
export function ccConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || pathFor(env).join(homeDir(env), '.claude');
}
