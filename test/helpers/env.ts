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

/** A fresh HOME. With fixtures: ~/.claude, ~/.codex, ~/.pi/agent, ~/.cursor, ~/.gemini,
 * ~/.config/Code/User (Copilot Chat), ~/.copilot (Copilot CLI), ~/.qwen and ~/.factory (Droid)
 * are copies of test/fixtures. */
export function sandbox(opts: { fixtures?: boolean | 'all'; name?: string } = {}): Sandbox {
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
    fs.cpSync(path.join(FIXTURES, 'copilot-cli'), path.join(home, '.copilot'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'qwen'), path.join(home, '.qwen'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'factory'), path.join(home, '.factory'), { recursive: true });
    // Cline, Roo Code and Kilo Code's task folders in the same editor (not their generation-1 copies),
    // Cline CLI's ~/.cline and Continue's ~/.continue.
    for (const ext of ['cline', 'roo', 'kilo']) fs.cpSync(path.join(FIXTURES, ext, 'globalStorage'), path.join(home, '.config', 'Code', 'User', 'globalStorage'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'cline-cli'), path.join(home, '.cline'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'continue', 'sessions'), path.join(home, '.continue', 'sessions'), { recursive: true });
  }
  const extra: NodeJS.ProcessEnv = opts.fixtures === 'all' ? layOutEveryAgent(home) : {};
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
    ...extra,
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

/** Every other agent's fixtures, where each agent keeps its sessions under `home` (the final
 * versions: the `generation-1` and `earlier` folders some fixtures keep for rewrite tests are left
 * out), and the databases of the agents that keep sessions in SQLite, built by their fixture
 * builders where their own paths say. Returns the environment the layout needs. */
function layOutEveryAgent(home: string): NodeJS.ProcessEnv {
  // (Cline, Roo Code, Kilo Code's extension, Cline CLI and Continue are in every fixtures sandbox.)
  const skipOld = (p: string) => !/[\\/](generation-1|earlier)([\\/]|$)/.test(p);
  const copy = (from: string, to: string) => {
    const src = path.join(FIXTURES, from);
    if (fs.existsSync(src)) fs.cpSync(src, path.join(home, to), { recursive: true, filter: skipOld });
  };
  copy(path.join('amp', 'threads'), path.join('.local', 'share', 'amp', 'threads'));
  copy(path.join('auggie', 'sessions'), path.join('.augment', 'sessions'));
  copy(path.join('openhands', 'conversations'), path.join('.openhands', 'conversations'));
  copy(path.join('kiro_ide', 'kiro.kiroagent'), path.join('.config', 'Kiro', 'User', 'globalStorage', 'kiro.kiroagent'));
  // Aider keeps its history inside each project: the projects under ~/code, named for Aider.
  const projects: string[] = [];
  const aider = path.join(FIXTURES, 'aider');
  if (fs.existsSync(aider)) {
    for (const p of fs.readdirSync(aider)) {
      copy(path.join('aider', p), path.join('code', p));
      projects.push(path.join(home, 'code', p));
    }
  }
  const env: NodeJS.ProcessEnv = { HOME: home, XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local', 'state'), BRAIN_PROJECT_DIRS: projects.join(path.delimiter) };
  // SQLite agents: each database where the agent's own paths put it (the first it declares).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { agentByLane } = require('../../src/core/agents') as typeof import('../../src/core/agents');
  const dbFile = (lane: string, which = 0): string | undefined => {
    const f = agentByLane(lane)?.databases?.(env)[which]?.file;
    if (f) fs.mkdirSync(path.dirname(f), { recursive: true });
    return f;
  };
  const opencode = dbFile('opencode');
  if (opencode && fs.existsSync(path.join(FIXTURES, 'opencode', 'opencode.db'))) fs.copyFileSync(path.join(FIXTURES, 'opencode', 'opencode.db'), opencode);
  // Kilo Code's CLI keeps OpenCode's schema: the OpenCode database stands in for its kilo.db.
  const kilo = dbFile('kilo');
  if (kilo && fs.existsSync(path.join(FIXTURES, 'opencode', 'opencode.db'))) fs.copyFileSync(path.join(FIXTURES, 'opencode', 'opencode.db'), kilo);
  // Crush: one project's database, listed in projects.json where Crush keeps its global data.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require(path.join(FIXTURES, 'crush', 'build.ts')) as { buildCrush(p: string, g: string): string }).buildCrush(path.join(home, 'work', 'garden'), path.join(home, '.local', 'share', 'crush'));
  const builders: [string, string, string][] = [
    ['goose', 'goose', 'buildGoose'],
    ['zed', 'zed', 'buildZed'],
    ['kiro', 'kiro', 'buildKiro'],
    ['warp', 'warp', 'buildWarp'],
    ['cursor_ide', 'cursor_ide', 'buildCursorIde'],
  ];
  for (const [lane, dir, fn] of builders) {
    const file = dbFile(lane);
    const builder = path.join(FIXTURES, dir, 'build.ts');
    if (!file || !fs.existsSync(builder)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require(builder) as Record<string, (f: string) => void>)[fn](file);
  }
  return env;
}
