import { homeDir, pathFor, type Env } from '../../home';
import { setting } from '../../settings';
import type { AgentFiles } from '../types';

/** Kiro's user folder (Kiro is a VS Code fork: its folder is where Code's is, named Kiro). */
export function kiroUserDir(env: Env): string {
  const p = pathFor(env);
  const home = homeDir(env);
  const platform = setting(env, 'BRAIN_PLATFORM');
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', 'Kiro', 'User');
  if (platform === 'win32') return p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), 'Kiro', 'User');
  return p.join(env.XDG_CONFIG_HOME || p.join(home, '.config'), 'Kiro', 'User');
}

const CHAT = /^[0-9a-f]{32}\/[^/]+\.chat$/;
const SESSION = /^workspace-sessions\/[^/]+\/[^/]+\.json$/;

/** Kiro's agent (globalStorage/kiro.kiroagent): <32 hex>/<id>.chat, a whole conversation, and
 * workspace-sessions/<workspace path, base64url>/<session id>.json (sessions.json beside them is
 * the folder's list, not a session). Both are JSON documents rewritten whole. */
export const kiroFiles: AgentFiles = {
  roots(env: Env) {
    return [
      {
        dir: pathFor(env).join(kiroUserDir(env), 'globalStorage', 'kiro.kiroagent'),
        lakePrefix: '',
        include: (rel) => CHAT.test(rel) || (SESSION.test(rel) && !rel.endsWith('/sessions.json')),
      },
    ];
  },
  rewritesWhole: () => true,
  sessionOf: (rel) => (rel.split('/').pop() ?? rel).replace(/\.(chat|json)$/, ''),
};

/** The workspace folder a workspace-sessions path names (its folder is the path, base64url). */
export function kiroWorkspace(rel: string): string | null {
  const m = /^workspace-sessions\/([^/]+)\//.exec(rel);
  if (!m) return null;
  try {
    const s = Buffer.from(m[1].replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    return s && !s.includes('\uFFFD') ? s : null;
  } catch {
    return null;
  }
}
