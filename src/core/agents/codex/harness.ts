// Codex as a harness brain sets up:
//   hook   $CODEX_HOME/hooks.json, Claude Code's shape (Codex asks the user to trust a new hook)
//   MCP    $CODEX_HOME/config.toml: a [mcp_servers.brain] table between two marker comments,
//          appended to the file as it is (comments, order and spacing kept); a later init replaces
//          only what is between the markers. Codex passes MCP servers almost no environment, so
//          BRAIN_HOME / BRAIN_MACHINE are written into the table when set.
//   skill  $CODEX_HOME/skills/<name>/SKILL.md (0.171; it also reads ~/.agents/skills, which Pi
//          reads too, so brain does not use that one)
//   caller passes no session variable to MCP servers; it sends the thread id with each tools/call
//          as _meta.threadId / _meta.sessionId (and in _meta["x-codex-turn-metadata"].session_id).
//          Shell commands get CODEX_THREAD_ID and CODEX_SESSION_ID (the id in the rollout's name).
import * as fs from 'node:fs';
import { parse } from 'smol-toml';
import { pathFor, type Env } from '../../home';
import type { AgentHarness, Caller, McpServerSpec, RegPlan } from '../harness';
import { SERVER_NAME, harnessPresent, hookCommand, planJsonHooks, runsBrainMcp, sameSpec } from '../kit/setup';
import { codexHome } from './paths';

export const CODEX_BEGIN = '# agent-brain: brain mcp (the recall tools). `brain init` owns this table, down to the end marker.';
export const CODEX_END = '# agent-brain: end';

export function codexConfigFile(env: Env): string {
  return pathFor(env).join(codexHome(env), 'config.toml');
}

/** A TOML basic string (JSON's escapes are a subset of TOML's). */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

export function codexBlock(spec: McpServerSpec, nl = '\n'): string {
  const lines = [CODEX_BEGIN, `[mcp_servers.${SERVER_NAME}]`, `command = ${tomlString(spec.command)}`, `args = [${spec.args.map(tomlString).join(', ')}]`];
  const env = Object.entries(spec.env);
  if (env.length) lines.push(`env = { ${env.map(([k, v]) => `${k} = ${tomlString(v)}`).join(', ')} }`);
  lines.push(CODEX_END);
  return lines.join(nl) + nl;
}

/** The document without brain's keys in mcp_servers.brain: what must not change when brain writes. */
function withoutOurs(doc: Record<string, unknown>): Record<string, unknown> {
  const d = structuredClone(doc);
  const servers = d.mcp_servers as Record<string, unknown> | undefined;
  const b = servers?.[SERVER_NAME] as Record<string, unknown> | undefined;
  if (servers && b && typeof b === 'object') {
    for (const k of ['command', 'args', 'env']) delete b[k];
    if (Object.keys(b).length === 0) delete servers[SERVER_NAME];
    if (Object.keys(servers).length === 0) delete d.mcp_servers;
  }
  return d;
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) && !(x instanceof Date) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));
}

export function planCodex(spec: McpServerSpec, env: Env): RegPlan {
  const file = codexConfigFile(env);
  const base = { harness: 'codex', file };
  if (!harnessPresent(codexHarness, env)) return { ...base, action: 'absent', detail: 'Codex not found (no codex on PATH, no CODEX_HOME folder)' };
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { ...base, action: 'unparsable', detail: `cannot read it: ${(e as Error).message}` };
  }
  if (text === null) return { ...base, action: 'add', detail: 'creates it with the [mcp_servers.brain] table', content: codexBlock(spec) };
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    return { ...base, action: 'unparsable', detail: `not valid TOML (${(e as Error).message.split('\n')[0]}); left untouched: fix it, then run \`brain init\` again` };
  }
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const want = codexBlock(spec, nl);
  const begin = text.indexOf(CODEX_BEGIN);
  const endAt = begin >= 0 ? text.indexOf(CODEX_END, begin) : -1;
  const cur = (doc.mcp_servers as Record<string, unknown> | undefined)?.[SERVER_NAME] as Record<string, unknown> | undefined;
  let next: string;
  let action: 'add' | 'update';
  if (begin >= 0 && endAt >= 0) {
    let end = endAt + CODEX_END.length;
    if (text.startsWith(nl, end)) end += nl.length;
    const region = text.slice(begin, end);
    if (region === want && cur && sameSpec(cur, spec)) return { ...base, action: 'ok', detail: `[mcp_servers.${SERVER_NAME}] runs ${[spec.command, ...spec.args].join(' ')}` };
    next = text.slice(0, begin) + want + text.slice(end);
    action = 'update';
  } else if (cur !== undefined) {
    // A table of that name that brain did not write (by hand, or `codex mcp add`).
    if (cur && typeof cur === 'object' && sameSpec(cur, spec)) return { ...base, action: 'ok', detail: `[mcp_servers.${SERVER_NAME}] (not written by brain init) runs ${[spec.command, ...spec.args].join(' ')}` };
    return { ...base, action: 'foreign', detail: `an [mcp_servers.${SERVER_NAME}] table brain did not write${runsBrainMcp(cur?.command, cur?.args) ? ' (it runs another brain)' : ''}; left alone` };
  } else {
    const sep = text.length === 0 ? '' : text.endsWith(nl) ? nl : nl + nl;
    next = text + sep + want;
    action = 'add';
  }
  // Prove the edit before writing it: the new text parses, brain's table is the wanted one, and
  // everything else in the document is exactly as it was.
  let after: Record<string, unknown>;
  try {
    after = parse(next) as Record<string, unknown>;
  } catch (e) {
    return { ...base, action: 'unparsable', detail: `adding the table would not parse (${(e as Error).message.split('\n')[0]}), e.g. mcp_servers is an inline table; left untouched` };
  }
  const got = (after.mcp_servers as Record<string, unknown> | undefined)?.[SERVER_NAME] as Record<string, unknown> | undefined;
  if (!got || !sameSpec(got, spec) || canonical(withoutOurs(after)) !== canonical(withoutOurs(doc))) {
    return { ...base, action: 'unparsable', detail: 'the table cannot be added without changing other settings; left untouched' };
  }
  return { ...base, action, detail: action === 'add' ? 'appends the [mcp_servers.brain] table' : 'rewrites brain\'s [mcp_servers.brain] table', content: next };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim().length > 0 ? v.trim() : null;
}

function sessionFromMeta(meta: Record<string, unknown>): Caller | null {
  const turn = meta['x-codex-turn-metadata'];
  const cands: [unknown, string][] = [
    [meta.threadId, '_meta.threadId'],
    [meta.sessionId, '_meta.sessionId'],
    [turn && typeof turn === 'object' ? (turn as Record<string, unknown>).session_id : undefined, '_meta["x-codex-turn-metadata"].session_id'],
  ];
  for (const [v, source] of cands) {
    const s = str(v);
    if (s) return { session: s, source };
  }
  return null;
}

export const codexHarness: AgentHarness = {
  bin: 'codex',
  configDir: codexHome,
  skillsDir: (env) => pathFor(env).join(codexHome(env), 'skills'),
  hookFile: (env) => pathFor(env).join(codexHome(env), 'hooks.json'),
  planHook: (file, brainCmd, env) => planJsonHooks('codex', file, hookCommand(brainCmd, 'codex', env), 'Codex runs a new hook only after you trust it once (/hooks in Codex)'),
  planMcp: planCodex,
  sessionEnv: ['CODEX_THREAD_ID', 'CODEX_SESSION_ID'],
  sessionFromMeta,
};
