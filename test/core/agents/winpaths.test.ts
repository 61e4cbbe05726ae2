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

const HOME = 'C:\\Users\\Ana Lima';
const WIN = { HOME, BRAIN_PLATFORM: 'win32', APPDATA: `${HOME}\\AppData\\Roaming` };

function isWindowsPathUnder(p: string, base: string): boolean {
  return path.win32.isAbsolute(p) && !p.includes('/') && p.toLowerCase().startsWith(base.toLowerCase() + '\\') && path.win32.normalize(p) === p;
}

test('every agent root is a Windows path under the profile folder', () => {
  const dirs = agents().flatMap((a) => a.roots(WIN).map((r) => ({ lane: a.lane, dir: r.dir })));
  assert.ok(dirs.length >= agents().length);
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
