import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';

/** Auggie (Augment's CLI): ~/.augment/sessions/<session id>.json, one JSON document per session,
 * rewritten whole as the session goes on. */
export const auggieFiles: AgentFiles = {
  roots(env: Env) {
    const p = pathFor(env);
    return [{ dir: p.join(homeDir(env), '.augment', 'sessions'), lakePrefix: '', include: (rel) => /^[^/]+\.json$/.test(rel) }];
  },
  rewritesWhole: () => true,
  sessionOf: (rel) => (rel.split('/').pop() ?? rel).replace(/\.json$/, ''),
};
