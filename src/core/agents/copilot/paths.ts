import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles, type OriginRoot } from '../types';
import { setting } from '../../settings';

/** VS Code-family user folders on Linux, macOS and Windows, named by their lake prefix. */
export function editorUserDirs(env: Env): { prefix: string; dir: string }[] {
  const home = homeDir(env);
  const mac = pathFor(env).join(home, 'Library', 'Application Support');
  const cfg = env.XDG_CONFIG_HOME || pathFor(env).join(home, '.config');
  const data = env.XDG_DATA_HOME || pathFor(env).join(home, '.local', 'share');
  const linux = [
    { prefix: 'code', dir: pathFor(env).join(cfg, 'Code', 'User') },
    { prefix: 'code-insiders', dir: pathFor(env).join(cfg, 'Code - Insiders', 'User') },
    { prefix: 'vscodium', dir: pathFor(env).join(cfg, 'VSCodium', 'User') },
    { prefix: 'code-server', dir: pathFor(env).join(data, 'code-server', 'User') },
  ];
  const macos = [
    { prefix: 'code', dir: pathFor(env).join(mac, 'Code', 'User') },
    { prefix: 'code-insiders', dir: pathFor(env).join(mac, 'Code - Insiders', 'User') },
    { prefix: 'vscodium', dir: pathFor(env).join(mac, 'VSCodium', 'User') },
    // code-server keeps the XDG layout on macOS too.
    { prefix: 'code-server', dir: pathFor(env).join(data, 'code-server', 'User') },
  ];
  // Windows keeps them in %APPDATA% (code-server does not run there).
  const roaming = env.APPDATA || pathFor(env).join(home, 'AppData', 'Roaming');
  const windows = [
    { prefix: 'code', dir: pathFor(env).join(roaming, 'Code', 'User') },
    { prefix: 'code-insiders', dir: pathFor(env).join(roaming, 'Code - Insiders', 'User') },
    { prefix: 'vscodium', dir: pathFor(env).join(roaming, 'VSCodium', 'User') },
  ];
  const platform = setting(env, 'BRAIN_PLATFORM');
  const out = platform === 'darwin' ? macos : platform === 'win32' ? windows : linux;
  // Inside the extension: the running editor's own user folder (any product, any platform).
  const editor = setting(env, 'BRAIN_EDITOR_USER_DIR');
  if (editor) out.unshift({ prefix: 'editor', dir: editor });
  const seen = new Set<string>();
  return out.filter((x) => (seen.has(x.dir) ? false : (seen.add(x.dir), true)));
}

const CHAT = /^(workspaceStorage\/[^/]+\/chatSessions\/[^/]+\.(json|jsonl)|globalStorage\/emptyWindowChatSessions\/[^/]+\.(json|jsonl)|(workspaceStorage\/[^/]+|globalStorage)\/GitHub\.copilot-chat\/transcripts\/[^/]+\.jsonl)$/;
/** workspaceStorage/<hash>/workspace.json: the folder (or .code-workspace file) the workspace is,
 * which names the project of the chat sessions beside it. */
const WORKSPACE = /^workspaceStorage\/([^/]+)\/workspace\.json$/;

/** GitHub Copilot Chat in VS Code: chatSessions (.json rewritten whole, .jsonl change log), empty-window
 * sessions, and the Copilot transcripts event stream, in every VS Code-family user folder; and each
 * workspace's workspace.json, which names the sessions' project. */
export const copilotFiles: AgentFiles = {
  roots(env: Env): OriginRoot[] {
    return editorUserDirs(env).map(({ prefix, dir }) => ({ dir, lakePrefix: prefix, include: (rel: string) => CHAT.test(rel) || WORKSPACE.test(rel) }));
  },
  rewritesWhole: (rel) => rel.endsWith('.json'),
  // A session saved as .json, then as a .jsonl change log: two forms of one session.
  forms: true,
  sessionOf(rel) {
    // A workspace.json is no session: it is named after its workspace, so no two share a name.
    const w = /(^|\/)workspaceStorage\/([^/]+)\/workspace\.json$/.exec(rel);
    return w ? `workspace-${w[2]}` : sessionFromName(rel);
  },
};
