import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

export function codexHome(env: Env): string {
  return env.CODEX_HOME || pathFor(env).join(homeDir(env), '.codex');
}

/** Codex: $CODEX_HOME/sessions/** and $CODEX_HOME/archived_sessions/ (default ~/.codex). The lake
 * keeps the two folder names so an archived copy never collides with a live one. */
export const codexFiles: AgentFiles = {
  roots(env: Env) {
    const base = codexHome(env);
    // Rollouts are .jsonl; the TS CLI (spring 2025) wrote one JSON file per session, rollout-*.json.
    // Any other .json there (a tool's manifest, an export) is not a session and is left alone.
    const inc = (rel: string) => rel.endsWith('.jsonl') || /(^|\/)rollout-[^/]*\.json$/.test(rel);
    return [
      { dir: pathFor(env).join(base, 'sessions'), lakePrefix: 'sessions', include: inc },
      { dir: pathFor(env).join(base, 'archived_sessions'), lakePrefix: 'archived_sessions', include: inc },
    ];
  },
  sessionOf: sessionFromName,
  // An archived copy of a rollout is the same session.
  forms: true,
};
