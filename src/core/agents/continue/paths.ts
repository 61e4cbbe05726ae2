import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';

/** Continue's global folder: CONTINUE_GLOBAL_DIR, else ~/.continue (%USERPROFILE%\.continue). */
export function continueDir(env: Env): string {
  return env.CONTINUE_GLOBAL_DIR?.trim() || pathFor(env).join(homeDir(env), '.continue');
}

/** Continue (the CLI `cn` and the IDE extensions): sessions/<id>.json, one session each, rewritten
 * whole (and not atomically) on every change. sessions/sessions.json, the list of them, is left
 * out: it repeats each session's id, title and folder, and is not a session. */
export const continueFiles: AgentFiles = {
  roots(env: Env) {
    return [{ dir: pathFor(env).join(continueDir(env), 'sessions'), lakePrefix: '', include: (rel) => /^[^/]+\.json$/.test(rel) && rel !== 'sessions.json' }];
  },
  rewritesWhole: () => true,
  sessionOf: (rel) => (rel.split('/').pop() ?? rel).replace(/\.json$/, ''),
};
