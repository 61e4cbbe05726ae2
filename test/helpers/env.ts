// Test sandboxes: a temporary HOME holding copies of the real fixtures laid out as agent home
// folders, and a BRAIN_HOME inside it. Nothing here ever points at the real HOME.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(REPO, 'test', 'fixtures');
export const CLI = path.join(REPO, 'dist', 'cli.js');

export interface Sandbox {
  dir: string;
  home: string;
  brain: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A fresh HOME. With fixtures: ~/.claude, ~/.codex, ~/.pi/agent, ~/.cursor, ~/.gemini and
 * ~/.config/Code/User (Copilot Chat) are copies of test/fixtures. */
export function sandbox(opts: { fixtures?: boolean; name?: string } = {}): Sandbox {
  const base = path.join(REPO, '.test-work');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, `${opts.name ?? 't'}-`));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  if (opts.fixtures) {
    fs.cpSync(path.join(FIXTURES, 'claude'), path.join(home, '.claude'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'codex'), path.join(home, '.codex'), { recursive: true });
    fs.mkdirSync(path.join(home, '.pi'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'pi'), path.join(home, '.pi'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'cursor'), path.join(home, '.cursor'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'gemini'), path.join(home, '.gemini'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'copilot'), path.join(home, '.config', 'Code', 'User'), { recursive: true });
    // Cline, Roo Code and Kilo Code's task folders in the same editor (not their generation-1 copies),
    // Cline CLI's ~/.cline and Continue's ~/.continue.
    for (const ext of ['cline', 'roo', 'kilo']) fs.cpSync(path.join(FIXTURES, ext, 'globalStorage'), path.join(home, '.config', 'Code', 'User', 'globalStorage'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'cline-cli'), path.join(home, '.cline'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'continue', 'sessions'), path.join(home, '.continue', 'sessions'), { recursive: true });
  }
  const brain = path.join(home, '.brain');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    HOME: home,
    BRAIN_HOME: brain,
    BRAIN_MACHINE: 'testbox',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
  };
  return {
    dir,
    home,
    brain,
    env,
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the built CLI (dist/cli.js) in a sandbox. */
export function brain(sb: Sandbox, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...sb.env, ...(opts.env ?? {}) },
    input: opts.input,
    encoding: 'utf8',
    timeout: opts.timeout ?? 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** All files under a directory, relative, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return out.sort();
}
