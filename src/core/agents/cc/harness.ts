// Claude Code as a harness brain sets up:
//   hook   $CLAUDE_CONFIG_DIR/settings.json   hooks.SessionStart[].hooks[] {type, command}
//   MCP    user scope, kept in $CLAUDE_CONFIG_DIR/.claude.json (default ~/.claude.json) under
//          mcpServers; changed only through `claude mcp add|remove --scope user`, so Claude Code
//          writes its own (large, busy) file, and never run on a file that does not parse (it would
//          "repair" it by rewriting it). Without `claude` on PATH: the exact command to run.
//   skill  $CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md (default ~/.claude/skills; checked with 2.1)
//   caller sets CLAUDE_CODE_SESSION_ID in the environment of the stdio MCP servers it starts and
//          of the Bash tool's commands (2.1; the transcript is <that id>.jsonl).
import * as fs from 'node:fs';
import { homeDir, pathFor, type Env } from '../../home';
import type { AgentHarness, McpServerSpec, RegPlan } from '../harness';
import { SERVER_NAME, harnessPresent, hookCommand, planJsonHooks, runsBrainMcp, sameSpec } from '../kit/setup';
import { ccConfigDir } from './paths';

// Registering a server is no reason to phone home: without this, `claude mcp add` (2.1.197)
// connects to api.anthropic.com.
const QUIET = { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };

export function claudeUserConfig(env: Env): string {
  return env.CLAUDE_CONFIG_DIR ? pathFor(env).join(env.CLAUDE_CONFIG_DIR, '.claude.json') : pathFor(env).join(homeDir(env), '.claude.json');
}

export function claudeAddCommand(spec: McpServerSpec): string[] {
  const envArgs = Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return ['claude', 'mcp', 'add', '--scope', 'user', SERVER_NAME, ...envArgs, '--', spec.command, ...spec.args];
}

function planClaude(spec: McpServerSpec, env: Env): RegPlan {
  const file = claudeUserConfig(env);
  const base = { harness: 'cc', file };
  if (!harnessPresent(ccHarness, env)) return { ...base, action: 'absent', detail: 'Claude Code not found (no claude on PATH, no config folder)' };
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { ...base, action: 'unparsable', detail: `cannot read it: ${(e as Error).message}` };
  }
  let cur: Record<string, unknown> | undefined;
  if (text !== null && text.trim() !== '') {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      return { ...base, action: 'unparsable', detail: `not valid JSON (${(e as Error).message}); left untouched: fix it, then run \`brain init\` again` };
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { ...base, action: 'unparsable', detail: 'not a JSON object; left untouched' };
    const servers = (doc as Record<string, unknown>).mcpServers;
    if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
      return { ...base, action: 'unparsable', detail: '"mcpServers" is not an object; left untouched' };
    }
    const b = (servers as Record<string, unknown> | undefined)?.[SERVER_NAME];
    if (b !== undefined) cur = b && typeof b === 'object' ? (b as Record<string, unknown>) : {};
  }
  const add = claudeAddCommand(spec);
  if (!cur) return { ...base, action: 'add', detail: 'registers brain mcp (user scope)', commands: [add], runEnv: QUIET };
  if (!runsBrainMcp(cur.command, cur.args)) {
    return { ...base, action: 'foreign', detail: `a user-scope MCP server named "${SERVER_NAME}" that does not run brain mcp (${String(cur.command)}); left alone` };
  }
  if ((cur.type ?? 'stdio') === 'stdio' && sameSpec(cur, spec)) return { ...base, action: 'ok', detail: `brain mcp registered (${[spec.command, ...spec.args].join(' ')})` };
  return {
    ...base,
    action: 'update',
    detail: `re-registers brain mcp: it runs ${[String(cur.command), ...((cur.args as string[]) ?? [])].join(' ')}`,
    commands: [['claude', 'mcp', 'remove', '--scope', 'user', SERVER_NAME], add],
    runEnv: QUIET,
  };
}

export const ccHarness: AgentHarness = {
  bin: 'claude',
  configDir: ccConfigDir,
  skillsDir: (env) => pathFor(env).join(ccConfigDir(env), 'skills'),
  hookFile: (env) => pathFor(env).join(ccConfigDir(env), 'settings.json'),
  planHook: (file, brainCmd, env) => planJsonHooks('cc', file, hookCommand(brainCmd, 'cc', env)),
  planMcp: planClaude,
  sessionEnv: ['CLAUDE_CODE_SESSION_ID'],
};
