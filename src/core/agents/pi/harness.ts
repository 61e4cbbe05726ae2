// Pi as a harness brain sets up. Pi has no MCP: its skill runs the CLI (which sees no session
// variable).
//   hook   $PI_CODING_AGENT_DIR/extensions/agent-brain.ts: an extension file brain owns whole
//   skill  $PI_CODING_AGENT_DIR/skills/<name>/SKILL.md (default ~/.pi/agent/skills; checked with 0.73)
import * as fs from 'node:fs';
import { pathFor, type Env } from '../../home';
import type { AgentHarness, HookPlanItem } from '../harness';
import { hookHome } from '../kit/setup';
import { piAgentDir } from './paths';

export const PI_MARKER = '// agent-brain: written by `brain init`';

export function piExtension(brainCmd: string[], home: string | null = null): string {
  return [
    PI_MARKER + '; `brain init` owns this whole file and rewrites it.',
    '// Runs `brain hook pi` at session start, so the session\'s repo metadata is recorded. It never',
    '// blocks pi: the hook runs detached and its failures are ignored.',
    'import { spawn } from "node:child_process";',
    '',
    `const BRAIN: string[] = ${JSON.stringify(brainCmd)};`,
    // A non-default BRAIN_HOME that `brain init` ran with: pi's own environment may not hold it.
    `const BRAIN_HOME: string | null = ${JSON.stringify(home)};`,
    '',
    'export default function (pi: any) {',
    '  pi.on("session_start", async (event: any, ctx: any) => {',
    '    try {',
    '      const sm = ctx?.sessionManager;',
    '      const payload = JSON.stringify({',
    '        hook_event_name: "SessionStart",',
    '        source: event?.reason,',
    '        session_id: sm?.getSessionId?.(),',
    '        transcript_path: sm?.getSessionFile?.(),',
    '        cwd: ctx?.cwd ?? process.cwd(),',
    '      });',
    '      const child = spawn(BRAIN[0], [...BRAIN.slice(1), "hook", "pi"], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: BRAIN_HOME ? { ...process.env, BRAIN_HOME } : process.env });',
    '      child.on("error", () => {});',
    '      child.stdin?.on("error", () => {});',
    '      child.stdin?.end(payload);',
    '      child.unref();',
    '    } catch {',
    '      // never let the recorder disturb the agent',
    '    }',
    '  });',
    '}',
    '',
  ].join('\n');
}

function planPiExtension(file: string, brainCmd: string[], env?: Env): HookPlanItem {
  const want = piExtension(brainCmd, hookHome(env));
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    /* missing */
  }
  if (text === null) return { agent: 'pi', file, action: 'create', detail: 'adds the session_start extension', content: want };
  if (!text.startsWith(PI_MARKER)) return { agent: 'pi', file, action: 'foreign', detail: 'a file of that name that brain did not write; left untouched' };
  if (text === want) return { agent: 'pi', file, action: 'ok', detail: 'session_start extension installed' };
  return { agent: 'pi', file, action: 'update', detail: 'rewrites brain\'s extension with the current command', content: want };
}

export const piHarness: AgentHarness = {
  bin: 'pi',
  configDir: piAgentDir,
  skillsDir: (env) => pathFor(env).join(piAgentDir(env), 'skills'),
  hookFile: (env) => pathFor(env).join(piAgentDir(env), 'extensions', 'agent-brain.ts'),
  planHook: planPiExtension,
};
