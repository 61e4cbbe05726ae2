import { pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import type { DbOrigin } from '../kit/sqlite';
import { sessionFromRows } from '../kit/sqlite';
import { platformOf, winRoaming, xdgData } from '../kit/dirs';

/** Goose's data folder (crates/goose/src/config/paths.rs): $GOOSE_PATH_ROOT/data when that is an
 * absolute path; else the `etcetera` app strategy for Block/goose: %APPDATA%\Block\goose\data on
 * Windows, $XDG_DATA_HOME/goose (~/.local/share/goose) on Linux and macOS alike. */
export function gooseDataDir(env: Env): string {
  const p = pathFor(env);
  const root = env.GOOSE_PATH_ROOT;
  if (root && p.isAbsolute(root)) return p.join(root, 'data');
  if (platformOf(env) === 'win32') return p.join(winRoaming(env), 'Block', 'goose', 'data');
  return p.join(xdgData(env), 'goose');
}

/** Goose keeps every session in one SQLite database, sessions/sessions.db (session_manager.rs):
 * a `sessions` row per session and a `messages` row per message. */
export const gooseFiles: AgentFiles = {
  roots: () => [],
  databases(env: Env): DbOrigin[] {
    return [
      {
        file: pathFor(env).join(gooseDataDir(env), 'sessions', 'sessions.db'),
        lakePrefix: '',
        tables: [
          // Updated in place (name, tokens, model); updated_at is set on every update.
          { name: 'sessions', key: ['id'], session: 'id', changed: 'updated_at' },
          // Appended, but compaction rewrites a message's metadata in place and replacing a
          // conversation deletes its rows: no column tells, so changed rows are found by hash.
          { name: 'messages', key: ['id'], session: 'session_id' },
        ],
      },
    ];
  },
  sessionOf: sessionFromRows,
};
