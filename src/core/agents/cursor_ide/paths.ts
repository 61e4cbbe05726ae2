import { pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import { sessionFromRows, type DbOrigin } from '../kit/sqlite';
import { macSupport, platformOf, winRoaming, xdgConfig } from '../kit/dirs';

/** Cursor's user folder (a VS Code fork): $XDG_CONFIG_HOME/Cursor/User (~/.config) on Linux,
 * ~/Library/Application Support/Cursor/User on macOS, %APPDATA%\Cursor\User on Windows. */
export function cursorUserDir(env: Env): string {
  const p = pathFor(env);
  const os = platformOf(env);
  const base = os === 'darwin' ? macSupport(env) : os === 'win32' ? winRoaming(env) : xdgConfig(env);
  return p.join(base, 'Cursor', 'User');
}

/** The session keys of cursorDiskKV, as two key ranges the table's unique index on `key` serves
 * (a LIKE would not use it: SQLite's LIKE is case-insensitive), so the rest of a table that can
 * hold tens of GB (checkpoints, diffs) is never read. ';' is the character after ':'. */
export const CURSOR_KEYS = "(key >= 'composerData:' AND key < 'composerData;') OR (key >= 'bubbleId:' AND key < 'bubbleId;')";

/** The composer a key belongs to: composerData:<composerId>, bubbleId:<composerId>:<bubbleId>. */
export const CURSOR_SESSION = "CASE WHEN key >= 'composerData:' AND key < 'composerData;' THEN substr(key, 14) ELSE substr(key, 10, instr(substr(key, 10), ':') - 1) END";

/** Cursor's editor chats (composers, in chat and agent mode): globalStorage/state.vscdb, table
 * cursorDiskKV (key TEXT UNIQUE, value BLOB), a composerData:<id> row per chat (title, the order
 * of its messages, model) and a bubbleId:<id>:<bubble> row per message. Only those keys are read. */
export const cursorIdeFiles: AgentFiles = {
  roots: () => [],
  databases(env: Env): DbOrigin[] {
    return [
      {
        file: pathFor(env).join(cursorUserDir(env), 'globalStorage', 'state.vscdb'),
        lakePrefix: '',
        // No column tells a changed value: changed rows are found by hash.
        tables: [{ name: 'cursorDiskKV', key: ['key'], where: CURSOR_KEYS, session: CURSOR_SESSION }],
      },
    ];
  },
  sessionOf: sessionFromRows,
};
