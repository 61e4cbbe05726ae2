// Windows: every folder the agents' paths and harness steps name is a Windows path when the
// platform is win32 (worked out here with path.win32, BRAIN_PLATFORM=win32): built from the
// user's profile folder or the agent's own override with `\` throughout, never a POSIX join that
// would leave a `/` inside C:\Users\…. File names inside a root stay '/'-separated (the walk's
// rel), which is what the lake uses on every platform.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { agents, harnessAgents } from '../../../src/core/agents';
import { editorUserDirs } from '../../../src/core/agents/copilot/paths';
import { aiderDirs } from '../../../src/core/agents/aider/paths';

const HOME = 'C:\\Users\\Ana Lima';
// Aider keeps its history in a project folder: one named by its own variable, as a user would.
const WIN = { HOME, BRAIN_PLATFORM: 'win32', APPDATA: `${HOME}\\AppData\\Roaming`, AIDER_CHAT_HISTORY_FILE: `${HOME}\\code\\shop\\.aider.chat.history.md` };

function isWindowsPathUnder(p: string, base: string): boolean {
  return path.win32.isAbsolute(p) && !p.includes('/') && p.toLowerCase().startsWith(base.toLowerCase() + '\\') && path.win32.normalize(p) === p;
}

test('every agent root and database is a Windows path under the profile folder', () => {
  const dirs = agents().flatMap((a) => [...a.roots(WIN).map((r) => ({ lane: a.lane, dir: r.dir })), ...(a.databases?.(WIN) ?? []).map((d) => ({ lane: a.lane, dir: d.file }))]);
  // An agent whose databases are listed in a file of its own (Crush's projects.json) may have none here.
  // Aider's roots are the project folders that hold its history (none exists in this path-only
  // test): the folders it would look in are checked instead.
  for (const a of agents()) assert.ok(dirs.some((d) => d.lane === a.lane) || a.databases || a.lane === 'aider', `${a.lane} has a root or databases`);
  for (const d of aiderDirs(WIN)) assert.ok(isWindowsPathUnder(d.dir, HOME), `aider: ${d.dir}`);
  assert.ok(aiderDirs(WIN).some((d) => d.dir === `${HOME}\\code\\shop`), 'AIDER_CHAT_HISTORY_FILE names a Windows folder');
  for (const { lane, dir } of dirs) assert.ok(isWindowsPathUnder(dir, HOME), `${lane}: ${dir}`);
  const byLane = Object.fromEntries(agents().map((a) => [a.lane, a.roots(WIN).map((r) => r.dir)]));
  assert.deepEqual(byLane.cc, [`${HOME}\\.claude\\projects`]);
  assert.deepEqual(byLane.codex, [`${HOME}\\.codex\\sessions`, `${HOME}\\.codex\\archived_sessions`]);
  assert.deepEqual(byLane.pi, [`${HOME}\\.pi\\agent\\sessions`]);
  assert.deepEqual(byLane.cursor, [`${HOME}\\.cursor\\projects`]);
  assert.deepEqual(byLane.gemini, [`${HOME}\\.gemini\\tmp`]);
  assert.deepEqual(byLane.copilot_cli, [`${HOME}\\.copilot`]);
  assert.deepEqual(byLane.qwen, [`${HOME}\\.qwen`]);
  assert.deepEqual(byLane.droid, [`${HOME}\\.factory\\sessions`]);
});

test('Copilot Chat is read from %APPDATA% on Windows, and from the profile when APPDATA is unset', () => {
  assert.deepEqual(
    editorUserDirs(WIN).map((d) => d.dir),
    [`${HOME}\\AppData\\Roaming\\Code\\User`, `${HOME}\\AppData\\Roaming\\Code - Insiders\\User`, `${HOME}\\AppData\\Roaming\\VSCodium\\User`],
  );
  const noAppData = editorUserDirs({ HOME, BRAIN_PLATFORM: 'win32' }).map((d) => d.dir);
  assert.equal(noAppData[0], `${HOME}\\AppData\\Roaming\\Code\\User`);
});

test("an agent's own folder override on another drive is joined the Windows way", () => {
  const env = {
    ...WIN,
    CLAUDE_CONFIG_DIR: 'D:\\agents\\claude',
    CODEX_HOME: 'D:\\agents\\codex',
    PI_CODING_AGENT_DIR: 'D:\\agents\\pi',
    GEMINI_CLI_HOME: 'D:\\agents',
    COPILOT_HOME: 'D:\\agents\\copilot',
    QWEN_HOME: 'D:\\agents\\qwen',
    QWEN_RUNTIME_DIR: 'E:\\qwen-runtime',
    FACTORY_HOME_OVERRIDE: 'D:\\agents',
  };
  const dirs = agents().flatMap((a) => a.roots(env).map((r) => r.dir));
  for (const d of [
    'D:\\agents\\claude\\projects',
    'D:\\agents\\codex\\sessions',
    'D:\\agents\\pi\\sessions',
    'D:\\agents\\.gemini\\tmp',
    'D:\\agents\\copilot',
    'D:\\agents\\qwen',
    'E:\\qwen-runtime',
    'D:\\agents\\.factory\\sessions',
  ])
    assert.ok(dirs.includes(d), `${d} in ${dirs.join(', ')}`);
});

test("the harness steps (skills, hooks) name Windows paths too", () => {
  const hs = harnessAgents();
  assert.ok(hs.length >= 3);
  for (const a of hs) {
    for (const p of [a.harness.skillsDir?.(WIN), a.harness.hookFile?.(WIN)].filter((x): x is string => typeof x === 'string')) {
      assert.ok(isWindowsPathUnder(p, HOME), `${a.lane}: ${p}`);
    }
  }
});

test('on this platform nothing changes: the roots are the native join of HOME', () => {
  const env = { HOME: '/home/ana' };
  const cc = agents().find((a) => a.lane === 'cc');
  assert.equal(cc?.roots(env)[0].dir, process.platform === 'win32' ? path.win32.join('/home/ana', '.claude', 'projects') : '/home/ana/.claude/projects');
});

test('the SQLite agents\' databases: Windows, macOS and Linux places, and their own overrides', () => {
  const dbs = (env: Record<string, string>) => Object.fromEntries(agents().filter((a) => a.databases).map((a) => [a.lane, a.databases!(env).map((d) => d.file)]));
  const local = `${HOME}\\AppData\\Local`;
  const win = dbs({ ...WIN, LOCALAPPDATA: local });
  assert.deepEqual(win.goose, [`${HOME}\\AppData\\Roaming\\Block\\goose\\data\\sessions\\sessions.db`]);
  assert.deepEqual(win.zed, [`${local}\\Zed\\threads\\threads.db`]);
  assert.deepEqual(win.kiro, [`${local}\\kiro-cli\\data.sqlite3`, `${local}\\amazon-q\\data.sqlite3`]);
  assert.deepEqual(win.warp, [`${local}\\warp\\Warp\\data\\warp.sqlite`]);
  assert.deepEqual(win.cursor_ide, [`${HOME}\\AppData\\Roaming\\Cursor\\User\\globalStorage\\state.vscdb`]);
  // GOOSE_PATH_ROOT moves Goose's folders (only an absolute one, as Goose reads it).
  assert.deepEqual(dbs({ ...WIN, GOOSE_PATH_ROOT: 'D:\\goose' }).goose, ['D:\\goose\\data\\sessions\\sessions.db']);
  assert.deepEqual(dbs({ ...WIN, GOOSE_PATH_ROOT: 'relative' }).goose, win.goose);

  const mac = dbs({ HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' });
  const sup = '/Users/ana/Library/Application Support';
  assert.deepEqual(mac.goose, [`${sup}/Block/goose/sessions/sessions.db`, '/Users/ana/.local/share/goose/sessions/sessions.db']);
  assert.deepEqual(mac.zed, [`${sup}/Zed/threads/threads.db`]);
  assert.deepEqual(mac.kiro, [`${sup}/kiro-cli/data.sqlite3`, `${sup}/amazon-q/data.sqlite3`]);
  assert.deepEqual(mac.warp, [
    '/Users/ana/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/dev.warp.Warp-Stable/warp.sqlite',
    '/Users/ana/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/dev.warp.Warp-Preview/warp.sqlite',
    `${sup}/dev.warp.Warp-Stable/warp.sqlite`,
  ]);
  assert.deepEqual(mac.cursor_ide, [`${sup}/Cursor/User/globalStorage/state.vscdb`]);

  const linux = dbs({ HOME: '/home/ana', BRAIN_PLATFORM: 'linux', XDG_DATA_HOME: '/data', XDG_STATE_HOME: '/state', XDG_CONFIG_HOME: 'not/absolute' });
  assert.deepEqual(linux.goose, ['/data/goose/sessions/sessions.db']);
  assert.deepEqual(linux.zed, ['/data/zed/threads/threads.db']);
  assert.deepEqual(linux.kiro, ['/data/kiro-cli/data.sqlite3', '/data/amazon-q/data.sqlite3']);
  assert.deepEqual(linux.warp, ['/state/warp-terminal/warp.sqlite', '/state/warp-terminal-preview/warp.sqlite']);
  assert.deepEqual(linux.cursor_ide, ['/home/ana/.config/Cursor/User/globalStorage/state.vscdb']);
  // Two databases of one agent never share a lake prefix.
  for (const env of [{ ...WIN, LOCALAPPDATA: local }, { HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' }, { HOME: '/home/ana', BRAIN_PLATFORM: 'linux' }]) {
    for (const a of agents()) {
      const prefixes = (a.databases?.(env) ?? []).map((d) => d.lakePrefix);
      assert.equal(new Set(prefixes).size, prefixes.length, `${a.lane}: ${prefixes.join(', ')}`);
    }
  }
});
