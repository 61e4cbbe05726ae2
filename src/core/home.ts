// BRAIN_HOME and its layout. Everything the program writes lives under one root, created 0700,
// files 0600, whatever the umask: transcripts hold secrets.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setting } from './settings';

export type Env = Record<string, string | undefined>;

export interface Layout {
  root: string;
  spool: string;
  lake: string;
  manifestDir: string;
  manifest: string;
  offsets: string;
  meta: string;
  health: string;
  locks: string;
  config: string;
  state: string;
  duckdb: string;
  turns: string;
}

export function homeDir(env: Env = process.env): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
}

/** The path flavour of the platform the agents' folders are on: Windows paths (C:\\Users\\…, `\\`)
 * on win32, POSIX elsewhere. It follows BRAIN_PLATFORM (default: this machine's), so the folders a
 * Windows machine uses can be worked out and tested anywhere. */
export function pathFor(env: Env = process.env): path.PlatformPath {
  return setting(env, 'BRAIN_PLATFORM') === 'win32' ? path.win32 : path.posix;
}

export function brainHome(env: Env = process.env): string {
  return setting(env, 'BRAIN_HOME');
}

export function layout(root: string): Layout {
  return {
    root,
    spool: path.join(root, 'spool'),
    lake: path.join(root, 'lake'),
    manifestDir: path.join(root, 'manifest'),
    manifest: path.join(root, 'manifest', 'manifest.jsonl'),
    offsets: path.join(root, 'offsets'),
    meta: path.join(root, 'meta'),
    health: path.join(root, 'health'),
    locks: path.join(root, 'locks'),
    config: path.join(root, 'config.toml'),
    state: path.join(root, 'state.json'),
    duckdb: path.join(root, 'brain.duckdb'),
    turns: path.join(root, 'turns.sqlite'),
  };
}

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** mkdir -p with 0700 on every directory it creates (chmod after, so the umask cannot widen it). */
export function mkdirPrivate(dir: string): void {
  if (fs.existsSync(dir)) return;
  mkdirPrivate(path.dirname(dir));
  try {
    fs.mkdirSync(dir, { mode: DIR_MODE });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return;
  }
  fs.chmodSync(dir, DIR_MODE);
}

/** Creates the floor's directories. Throws a BrainError naming the root when it cannot. */
export function ensureHome(root: string): Layout {
  const l = layout(root);
  for (const d of [l.root, l.spool, l.lake, l.manifestDir, l.offsets, l.meta, l.health, l.locks]) {
    mkdirPrivate(d);
  }
  const st = fs.statSync(l.root);
  if ((st.mode & 0o777) !== DIR_MODE) fs.chmodSync(l.root, DIR_MODE);
  return l;
}
