import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

/** cursor-agent: ~/.cursor/projects/<slug>/agent-transcripts/** (.jsonl and .txt). The live SQLite
 * chats are not copied: they are unsafe to copy while open. */
export const cursorFiles: AgentFiles = {
  roots(env: Env) {
    return [
      {
        dir: pathFor(env).join(homeDir(env), '.cursor', 'projects'),
        lakePrefix: '',
        include: (rel) => /^[^/]+\/agent-transcripts\/.+\.(jsonl|txt)$/.test(rel),
      },
    ];
  },
  sessionOf: sessionFromName,
};
