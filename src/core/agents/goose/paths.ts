import { pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import type { DbOrigin } from '../kit/sqlite';
import { sessionFromRows } from '../kit/sqlite';
import { macSupport, platformOf, winRoaming, xdgData } from '../kit/dirs';

/** Goose's data folders (crates/goose/src/config/paths.rs), where its sessions/ folder is:
 * $GOOSE_PATH_ROOT/data when that is an absolute path; else the `etcetera` app strategy for
 * Block/goose: %APPDATA%\Block\goose\data on Windows, $XDG_DATA_HOME/goose (~/.local/share/goose)
 * on Linux; on macOS Goose's documentation names ~/Library/Application Support/Block/goose, and
 * builds that resolve the XDG folder there too exist: both are read (each under its own lake
 * prefix). */
export function gooseDataDirs(env: Env): { dir: string; lakePrefix: string }[] {
  const p = pathFor(env);
  const root = env.GOOSE_PATH_ROOT;
  if (root && p.isAbsolute(root)) return [{ dir: p.join(root, 'data'), lakePrefix: '' }];
  const os = platformOf(env);
  if (os === 'win32') return [{ dir: p.join(winRoaming(env), 'Block', 'goose', 'data'), lakePrefix: '' }];
  if (os === 'darwin') {
    return [
      { dir: p.join(macSupport(env), 'Block', 'goose'), lakePrefix: '' },
      { dir: p.join(xdgData(env), 'goose'), lakePrefix: 'xdg/' },
    ];
  }
  return [{ dir: p.join(xdgData(env), 'goose'), lakePrefix: '' }];
}

/** Goose keeps every session in one SQLite database, sessions/sessions.db (session_manager.rs):
 * a `sessions` row per session and a `messages` row per message. */
export const gooseFiles: AgentFiles = {
  roots: () => [],
  databases(env: Env): DbOrigin[] {
    return gooseDataDirs(env).map(({ dir, lakePrefix }) => ({
      file: pathFor(env).join(dir, 'sessions', 'sessions.db'),
      lakePrefix,
      tables: [
        // Updated in place (name, tokens, model); updated_at is set on every update.
        { name: 'sessions', key: ['id'], session: 'id', changed: 'updated_at' },
        // Appended, but compaction rewrites a message's metadata in place and replacing a
        // conversation deletes its rows: no column tells, so changed rows are found by hash.
        { name: 'messages', key: ['id'], session: 'session_id' },
        // Newer builds: one row per request with its tokens, only ever inserted (absent before).
        { name: 'usage_ledger', key: ['rowid'], session: 'session_id', changed: 'rowid' },
      ],
    }));
  },
  sessionOf: sessionFromRows,
};
