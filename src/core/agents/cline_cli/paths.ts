import { pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import { clineDataDir } from '../kit/clinetask';

/** Where the Cline SDK keeps sessions: CLINE_SESSION_DATA_DIR, else <data dir>/sessions. */
export function clineSessionsDir(env: Env): string {
  return env.CLINE_SESSION_DATA_DIR?.trim() || pathFor(env).join(clineDataDir(env), 'sessions');
}

/** Cline CLI (the Cline SDK): sessions/<id>/ holds <id>.json (the manifest: cwd, title, usage) and
 * <id>.messages.json (the conversation), beside <agent>.messages.json files of the session's
 * sub-agents and teammates; each rewritten whole (a temp file renamed over it). The folder is the
 * session. */
export const clineCliFiles: AgentFiles = {
  roots(env: Env) {
    return [{ dir: clineSessionsDir(env), lakePrefix: '', include: (rel) => /^[^/]+\/[^/]+\.messages\.json$/.test(rel) || isManifest(rel) }];
  },
  rewritesWhole: () => true,
  sessionOf: (rel) => {
    const parts = rel.split('/');
    return parts.length >= 2 ? parts[parts.length - 2] : rel.replace(/(\.messages)?\.json$/, '');
  },
};

/** <id>/<id>.json: the session's manifest. */
export function isManifest(rel: string): boolean {
  const m = /(?:^|\/)([^/]+)\/([^/]+)\.json$/.exec(rel);
  return !!m && m[1] === m[2];
}
