import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles, OriginRoot } from '../types';

/** Qwen Code's global folder: $QWEN_HOME, else ~/.qwen (%USERPROFILE%\.qwen on Windows). */
export function qwenDir(env: Env): string {
  return env.QWEN_HOME || pathFor(env).join(homeDir(env), '.qwen');
}

const CHATS = /^projects\/[^/]+\/chats\/[^/]+\.jsonl$/;
const LEGACY = /^tmp\/[^/]+\/chats\/[^/]+\.json$/;

/** Qwen Code: projects/<cwd with every other character than a letter or digit made '-'>/chats/
 * <session>.jsonl (appended; its <session>.runtime.json beside it is live status, not the
 * conversation) and, from builds before that, tmp/<project hash>/chats/*.json (one document per
 * session, rewritten whole). Session data lives under $QWEN_RUNTIME_DIR when that is set, else
 * the global folder; both are walked when they differ. */
export const qwenFiles: AgentFiles = {
  roots(env: Env) {
    const include = (rel: string) => CHATS.test(rel) || LEGACY.test(rel);
    const out: OriginRoot[] = [{ dir: qwenDir(env), lakePrefix: '', include }];
    const runtime = env.QWEN_RUNTIME_DIR;
    if (runtime && runtime !== out[0].dir) out.push({ dir: runtime, lakePrefix: 'runtime', include });
    return out;
  },
  rewritesWhole: (rel) => rel.endsWith('.json'),
  sessionOf(rel) {
    return (rel.split('/').pop() ?? rel).replace(/\.(jsonl|json)$/, '');
  },
};
