// The per-user folders agents keep their data in, per platform, for paths.ts files: the XDG base
// folders (honoured only when absolute, as the XDG spec and the Rust `etcetera`/`dirs` crates do),
// macOS's Application Support and Windows' roaming and local AppData. Every join is the agent
// platform's (pathFor), so Windows folders can be worked out and tested anywhere.
import { homeDir, pathFor, type Env } from '../../home';
import { setting } from '../../settings';

export type Platform = 'linux' | 'darwin' | 'win32';

export function platformOf(env: Env): Platform {
  const p = setting(env, 'BRAIN_PLATFORM');
  return p === 'win32' ? 'win32' : p === 'darwin' ? 'darwin' : 'linux';
}

function xdg(env: Env, name: string, ...dflt: string[]): string {
  const v = env[name];
  const p = pathFor(env);
  return v && p.isAbsolute(v) ? v : p.join(homeDir(env), ...dflt);
}

/** $XDG_DATA_HOME, else ~/.local/share. */
export const xdgData = (env: Env) => xdg(env, 'XDG_DATA_HOME', '.local', 'share');
/** $XDG_CONFIG_HOME, else ~/.config. */
export const xdgConfig = (env: Env) => xdg(env, 'XDG_CONFIG_HOME', '.config');
/** $XDG_STATE_HOME, else ~/.local/state. */
export const xdgState = (env: Env) => xdg(env, 'XDG_STATE_HOME', '.local', 'state');

/** ~/Library/Application Support (macOS). */
export const macSupport = (env: Env) => pathFor(env).join(homeDir(env), 'Library', 'Application Support');

/** %APPDATA% (Windows' roaming folder), else the profile's AppData\Roaming. */
export const winRoaming = (env: Env) => env.APPDATA || pathFor(env).join(homeDir(env), 'AppData', 'Roaming');

/** %LOCALAPPDATA%, else the profile's AppData\Local. */
export const winLocal = (env: Env) => env.LOCALAPPDATA || pathFor(env).join(homeDir(env), 'AppData', 'Local');

/** What Rust's `dirs::data_local_dir()` gives: XDG data on Linux, Application Support on macOS,
 * %LOCALAPPDATA% on Windows. */
export function dataLocalDir(env: Env): string {
  const p = platformOf(env);
  return p === 'win32' ? winLocal(env) : p === 'darwin' ? macSupport(env) : xdgData(env);
}

/** What Rust's `dirs::data_dir()` gives: as dataLocalDir but %APPDATA% on Windows. */
export function dataDir(env: Env): string {
  const p = platformOf(env);
  return p === 'win32' ? winRoaming(env) : p === 'darwin' ? macSupport(env) : xdgData(env);
}
