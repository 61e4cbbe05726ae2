// Registering `brain mcp` with each harness that speaks MCP. brain owns one entry named "brain" in
// each, and only while it runs brain's mcp verb; anything else there is left alone, and a file that
// does not parse is never written (the harness's own CLI included: Claude Code would "repair" a
// broken ~/.claude.json by rewriting it, so it is not run on one).
//   Claude Code  user scope, kept in $CLAUDE_CONFIG_DIR/.claude.json (default ~/.claude.json) under
//                mcpServers; changed only through `claude mcp add|remove --scope user`, so Claude
//                Code writes its own (large, busy) file. Without `claude` on PATH: the exact command.
//   Codex        $CODEX_HOME/config.toml: a [mcp_servers.brain] table between two marker comments,
//                appended to the file as it is (comments, order and spacing kept); a later init
//                replaces only what is between the markers. Codex passes MCP servers almost no
//                environment, so BRAIN_HOME / BRAIN_MACHINE are written into the table when set.
//   Pi           has no MCP (its skill uses the CLI).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { codexHome } from '../agents/codex/paths';
import { homeDir, type Env } from '../home';
import { writeFileAtomic } from '../floor/durable';
import { HARNESS_BIN, harnessPresent, which } from './detect';

export const SERVER_NAME = 'brain';

export interface McpServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Environment a harness may not pass on, pinned into the registration when set. */
const PINNED_ENV = ['BRAIN_HOME', 'BRAIN_MACHINE'] as const;

export function mcpSpec(brainCmd: string[], env: Env): McpServerSpec {
  const e: Record<string, string> = {};
  for (const k of PINNED_ENV) {
    const v = env[k];
    if (v) e[k] = k === 'BRAIN_HOME' ? path.resolve(v) : v;
  }
  return { command: brainCmd[0], args: [...brainCmd.slice(1), 'mcp'], env: e };
}

/** A registration that runs brain's mcp verb (whatever path an older install wrote). */
export function runsBrainMcp(command: unknown, args: unknown): boolean {
  if (typeof command !== 'string' || !Array.isArray(args) || args[args.length - 1] !== 'mcp') return false;
  const parts = [command, ...args.slice(0, -1)].map((x) => path.basename(String(x)));
  return parts.some((p) => p === 'brain' || p === 'cli.js');
}

function sameEnv(a: unknown, b: Record<string, string>): boolean {
  const x = a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
  const ka = Object.keys(x).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && x[k] === b[k]);
}

function sameSpec(o: Record<string, unknown>, s: McpServerSpec): boolean {
  return o.command === s.command && Array.isArray(o.args) && o.args.length === s.args.length && o.args.every((a, i) => a === s.args[i]) && sameEnv(o.env, s.env);
}

export interface RegPlan {
  harness: 'cc' | 'codex';
  file: string;
  /** absent: harness not on this machine; ok; add / update: to do; foreign: a "brain" entry that
   * is not brain's; unparsable: the file cannot be read as its format (left alone). */
  action: 'absent' | 'ok' | 'add' | 'update' | 'foreign' | 'unparsable';
  detail: string;
  /** Claude Code: the commands that make it right (run them, or print them without `claude`). */
  commands?: string[][];
  /** Codex: the file's new text. */
  content?: string;
}

export function shQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

// ---------------------------------------------------------------- Claude Code

export function claudeUserConfig(env: Env): string {
  return env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(homeDir(env), '.claude.json');
}

export function claudeAddCommand(spec: McpServerSpec): string[] {
  const envArgs = Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return ['claude', 'mcp', 'add', '--scope', 'user', SERVER_NAME, ...envArgs, '--', spec.command, ...spec.args];
}

export function planClaude(spec: McpServerSpec, env: Env): RegPlan {
  const file = claudeUserConfig(env);
  const base = { harness: 'cc' as const, file };
  if (!harnessPresent('cc', env)) return { ...base, action: 'absent', detail: 'Claude Code not found (no claude on PATH, no config folder)' };
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
  if (!cur) return { ...base, action: 'add', detail: 'registers brain mcp (user scope)', commands: [add] };
  if (!runsBrainMcp(cur.command, cur.args)) {
    return { ...base, action: 'foreign', detail: `a user-scope MCP server named "${SERVER_NAME}" that does not run brain mcp (${String(cur.command)}); left alone` };
  }
  if ((cur.type ?? 'stdio') === 'stdio' && sameSpec(cur, spec)) return { ...base, action: 'ok', detail: `brain mcp registered (${[spec.command, ...spec.args].join(' ')})` };
  return {
    ...base,
    action: 'update',
    detail: `re-registers brain mcp: it runs ${[String(cur.command), ...((cur.args as string[]) ?? [])].join(' ')}`,
    commands: [['claude', 'mcp', 'remove', '--scope', 'user', SERVER_NAME], add],
  };
}

export interface ApplyResult {
  plan: RegPlan;
  /** What was done: 'applied', 'printed' (no CLI to run), or 'failed' with why. */
  outcome: 'applied' | 'printed' | 'failed' | 'none';
  message?: string;
}

/** Runs the plan's `claude` commands with the claude on PATH; without one, leaves them to print. */
export function applyClaude(plan: RegPlan, env: Env, spec: McpServerSpec): ApplyResult {
  if (!plan.commands || (plan.action !== 'add' && plan.action !== 'update')) return { plan, outcome: 'none' };
  const bin = which(HARNESS_BIN.cc, env);
  if (!bin) return { plan, outcome: 'printed', message: plan.commands.map((c) => c.map(shQuote).join(' ')).join(' && ') };
  // Registering a server is no reason to phone home: without this, `claude mcp add` (2.1.197)
  // connects to api.anthropic.com.
  const runEnv = { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } as NodeJS.ProcessEnv;
  for (const c of plan.commands) {
    const r = spawnSync(bin, c.slice(1), { env: runEnv, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) {
      return { plan, outcome: 'failed', message: `${c.map(shQuote).join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout || r.error?.message || '').trim().split('\n').pop()}` };
    }
  }
  const after = planClaude(spec, env);
  if (after.action !== 'ok') return { plan, outcome: 'failed', message: `after \`claude mcp add\`, ${after.file}: ${after.detail}` };
  return { plan, outcome: 'applied' };
}

// ---------------------------------------------------------------- Codex

export const CODEX_BEGIN = '# agent-brain: brain mcp (the recall tools). `brain init` owns this table, down to the end marker.';
export const CODEX_END = '# agent-brain: end';

export function codexConfigFile(env: Env): string {
  return path.join(codexHome(env), 'config.toml');
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
  const base = { harness: 'codex' as const, file };
  if (!harnessPresent('codex', env)) return { ...base, action: 'absent', detail: 'Codex not found (no codex on PATH, no CODEX_HOME folder)' };
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

/** Writes the planned config.toml: through a symlink, keeping the file's mode. */
export function applyCodex(plan: RegPlan): ApplyResult {
  if (!plan.content || (plan.action !== 'add' && plan.action !== 'update')) return { plan, outcome: 'none' };
  let target = plan.file;
  let mode = 0o600;
  try {
    target = fs.realpathSync(plan.file);
    mode = fs.statSync(target).mode & 0o777;
  } catch {
    /* a new file: private */
  }
  writeFileAtomic(target, plan.content);
  fs.chmodSync(target, mode);
  return { plan, outcome: 'applied' };
}
