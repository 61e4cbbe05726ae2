import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';

export function geminiDir(env: Env): string {
  return pathFor(env).join(env.GEMINI_CLI_HOME || homeDir(env), '.gemini');
}

/** Gemini CLI: ~/.gemini/tmp/<project>/chats/ — the current .jsonl append log (sub-agents in
 * chats/<parent>/<id>.jsonl) and the legacy .json rewritten whole on every update. */
export const geminiFiles: AgentFiles = {
  roots(env: Env) {
    return [
      {
        dir: pathFor(env).join(geminiDir(env), 'tmp'),
        lakePrefix: '',
        include: (rel) => /^[^/]+\/chats\/.+\.(jsonl|json)$/.test(rel),
      },
    ];
  },
  rewritesWhole: (rel) => rel.endsWith('.json'),
  sessionOf(rel) {
    const base = (rel.split('/').pop() ?? rel).replace(/\.(jsonl|json)$/, '');
    return base;
  },
};
