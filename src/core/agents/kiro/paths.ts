import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';
import { sessionFromRows, type DbOrigin, type DbTable } from '../kit/sqlite';
import { dataLocalDir } from '../kit/dirs';

// Kiro CLI (and Amazon Q Developer CLI, which it continues): one SQLite database in Rust's
// `dirs::data_local_dir()` (~/.local/share, ~/Library/Application Support, %LOCALAPPDATA%).
// - kiro-cli/data.sqlite3, table conversations_v2 (key = the working directory, conversation_id,
//   value = the ConversationState JSON, created_at, updated_at in ms): one row per conversation.
// - amazon-q/data.sqlite3 (the Amazon Q CLI before Kiro, crates/chat-cli/src/database,
//   migration 007), table conversations (key = the working directory, value = the JSON): one row
//   per folder, replaced when a new conversation starts there (the old one then moves out of
//   its session's file as a deletion, and is kept).

/** Both tables in both databases: Kiro CLI's database comes from the Q CLI's migrations (it has
 * `conversations` too), and a Q CLI build may have `conversations_v2`; a table a database lacks is
 * no rows. */
const TABLES: DbTable[] = [
  { name: 'conversations_v2', key: ['key', 'conversation_id'], session: 'conversation_id', changed: 'updated_at' },
  { name: 'conversations', key: ['key'], session: "json_extract(value, '$.conversation_id')" },
];

/** Kiro CLI's own folder: $KIRO_HOME, else ~/.kiro. */
export function kiroHome(env: Env): string {
  return env.KIRO_HOME || pathFor(env).join(homeDir(env), '.kiro');
}

/** Lake folder of the session files (the databases' files are under kiro-cli/ and amazon-q/). */
export const KIRO_FILES_PREFIX = 'sessions';

export const kiroFiles: AgentFiles = {
  // Newer Kiro CLI builds keep each session as files: sessions/cli/<id>.jsonl, an append log of
  // Prompt / AssistantMessage / ToolResults records, and <id>.json, its metadata (working
  // directory, model, per-turn counts) written again whole.
  roots(env: Env) {
    return [{ dir: pathFor(env).join(kiroHome(env), 'sessions', 'cli'), lakePrefix: KIRO_FILES_PREFIX, include: (rel: string) => /^[^/]+\.(jsonl|json)$/.test(rel) }];
  },
  rewritesWhole: (rel) => rel.endsWith('.json'),
  databases(env: Env): DbOrigin[] {
    const p = pathFor(env);
    const base = dataLocalDir(env);
    return [
      { file: p.join(base, 'kiro-cli', 'data.sqlite3'), lakePrefix: 'kiro-cli/', tables: TABLES },
      { file: p.join(base, 'amazon-q', 'data.sqlite3'), lakePrefix: 'amazon-q/', tables: TABLES },
    ];
  },
  sessionOf: (rel) => (rel.endsWith('.rows.jsonl') ? sessionFromRows(rel) : sessionFromName(rel)),
};
