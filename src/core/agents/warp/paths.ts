import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import { sessionFromRows, type DbOrigin, type DbTable } from '../kit/sqlite';
import { macSupport, platformOf, winLocal, xdgState } from '../kit/dirs';

/** The tables holding Warp's agent conversations: agent_conversations (one row per conversation:
 * conversation_data JSON with its usage), agent_tasks (the conversation's tasks, each a protobuf
 * blob holding the messages: prompts, replies, tool calls and results) and ai_queries (one row
 * per exchange: the prompt's input JSON, working directory, model). */
export const WARP_TABLES: DbTable[] = [
  { name: 'agent_conversations', key: ['id'], session: 'conversation_id', changed: 'last_modified_at' },
  { name: 'agent_tasks', key: ['id'], session: 'conversation_id', changed: 'last_modified_at' },
  // Nothing marks a changed exchange (its output_status is set later): compared by hash.
  { name: 'ai_queries', key: ['id'], session: 'conversation_id' },
];

/** Warp's warp.sqlite, per channel: $XDG_STATE_HOME/warp-terminal[-preview] on Linux; the
 * dev.warp.Warp-Stable / -Preview folder of the group container (and, from older builds, of
 * Application Support) on macOS; %LOCALAPPDATA%\warp\Warp\data on Windows. */
export function warpDatabases(env: Env): { file: string; lakePrefix: string }[] {
  const p = pathFor(env);
  const os = platformOf(env);
  if (os === 'win32') return [{ file: p.join(winLocal(env), 'warp', 'Warp', 'data', 'warp.sqlite'), lakePrefix: 'stable/' }];
  if (os === 'darwin') {
    const group = p.join(homeDir(env), 'Library', 'Group Containers', '2BBY89MBSN.dev.warp', 'Library', 'Application Support');
    return [
      { file: p.join(group, 'dev.warp.Warp-Stable', 'warp.sqlite'), lakePrefix: 'stable/' },
      { file: p.join(group, 'dev.warp.Warp-Preview', 'warp.sqlite'), lakePrefix: 'preview/' },
      { file: p.join(macSupport(env), 'dev.warp.Warp-Stable', 'warp.sqlite'), lakePrefix: 'stable-old/' },
    ];
  }
  return [
    { file: p.join(xdgState(env), 'warp-terminal', 'warp.sqlite'), lakePrefix: 'stable/' },
    { file: p.join(xdgState(env), 'warp-terminal-preview', 'warp.sqlite'), lakePrefix: 'preview/' },
  ];
}

export const warpFiles: AgentFiles = {
  roots: () => [],
  databases: (env: Env): DbOrigin[] => warpDatabases(env).map((d) => ({ ...d, tables: WARP_TABLES })),
  sessionOf: sessionFromRows,
};
