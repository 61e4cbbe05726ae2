import { pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import { sessionFromRows, type DbOrigin } from '../kit/sqlite';
import { macSupport, platformOf, winLocal, xdgData } from '../kit/dirs';

/** Zed's data folder (crates/paths): ~/Library/Application Support/Zed on macOS,
 * %LOCALAPPDATA%\Zed on Windows, $FLATPAK_XDG_DATA_HOME or $XDG_DATA_HOME (~/.local/share) /zed on
 * Linux. */
export function zedDataDir(env: Env): string {
  const p = pathFor(env);
  const os = platformOf(env);
  if (os === 'darwin') return p.join(macSupport(env), 'Zed');
  if (os === 'win32') return p.join(winLocal(env), 'Zed');
  const flatpak = env.FLATPAK_XDG_DATA_HOME;
  return p.join(flatpak && p.isAbsolute(flatpak) ? flatpak : xdgData(env), 'zed');
}

/** Zed's agent threads: one row per thread in threads/threads.db (crates/agent/src/db.rs), the
 * whole thread a JSON document in `data` (zstd-compressed when data_type is 'zstd'), written again
 * whole (INSERT OR REPLACE) on every save. */
export const zedFiles: AgentFiles = {
  roots: () => [],
  databases(env: Env): DbOrigin[] {
    return [
      {
        file: pathFor(env).join(zedDataDir(env), 'threads', 'threads.db'),
        lakePrefix: '',
        // updated_at is the thread's RFC 3339 time in UTC, set on every save: text that sorts.
        tables: [{ name: 'threads', key: ['id'], session: 'id', changed: 'updated_at' }],
      },
    ];
  },
  sessionOf: sessionFromRows,
};
