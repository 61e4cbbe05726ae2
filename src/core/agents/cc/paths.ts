import { createHash } from 'node:crypto';
import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

/** Claude Code: $CLAUDE_CONFIG_DIR/projects/** (default ~/.claude): session files, the older flat
 * agent-*.jsonl, and <session>/subagents/agent-*.jsonl with their .meta.json. */
export const ccFiles: AgentFiles = {
  roots(env: Env) {
    const base = ccConfigDir(env);
    const prefix = configPrefix(env);
    return [
      {
        dir: pathFor(env).join(base, 'projects'),
        lakePrefix: prefix,
        // Before each config folder had its own prefix, every one wrote without one.
        ...(prefix ? { legacyPrefix: '' } : {}),
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

/** The lane prefix of the config folder in force: '' for the default (~/.claude), so existing
 * floors keep their paths; any other folder (CLAUDE_CONFIG_DIR, one per account) has its own,
 * "@config-<hash of its path>", so two accounts' sessions with one relative path never share one
 * lake file. */
export function configPrefix(env: Env): string {
  const p = pathFor(env);
  const dflt = p.resolve(p.join(homeDir(env), '.claude'));
  const cur = p.resolve(ccConfigDir(env));
  if (cur === dflt) return '';
  return `@config-${createHash('sha256').update(cur).digest('hex').slice(0, 12)}`;
}

/** A lake path's project folder under a config prefix: the first folder after it. */
export function ccProject(rel: string): string | null {
  const parts = rel.split('/');
  const at = parts[0].startsWith('@config-') ? 1 : 0;
  return parts.length > at + 1 ? parts[at] : null;
}
