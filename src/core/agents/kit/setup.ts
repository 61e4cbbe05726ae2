// What the agents' harness.ts files share: finding a CLI, brain's own hook entries in a JSON
// settings file, and recognising brain's MCP registration. Reads only; core/harness and
// core/setup/hooks.ts write what a plan says.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Env } from '../../home';
import type { AgentHarness, HookPlanItem, McpServerSpec } from '../harness';

/** An executable named `name` on env.PATH, as an absolute path. */
export function which(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.resolve(dir, name);
    try {
      const st = fs.statSync(p);
      if (st.isFile()) {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      }
    } catch {
      /* not here */
    }
  }
  return null;
}

/** The harness is on this machine: its CLI on PATH, or its settings folder. */
export function harnessPresent(h: AgentHarness, env: Env): boolean {
  return which(h.bin, env) !== null || fs.existsSync(h.configDir(env));
}

export function shQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command that runs brain's hook verb: `brain hook cc`, `'/x/bin/brain' hook cc`, `node /x/bin/brain hook pi`. */
export const OWN_COMMAND = /(^|[\s'"/])brain['"]?\s+hook(\s|$)/;

export function hookCommand(brainCmd: string[], agent: string): string {
  return [...brainCmd.map(shQuote), 'hook', agent].join(' ');
}

interface HookEntry {
  type?: string;
  command?: string;
  [k: string]: unknown;
}
interface HookGroup {
  matcher?: string;
  hooks?: HookEntry[];
  [k: string]: unknown;
}

/** Plans a JSON settings file whose hooks.SessionStart[] holds {hooks: [{type, command}]} groups
 * (Claude Code's shape, which Codex's hooks.json shares). */
export function planJsonHooks(agent: string, file: string, command: string, note?: string): HookPlanItem {
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      return { agent, file, action: 'unparsable', detail: `cannot read it: ${(e as Error).message}` };
    }
  }
  if (text === null) {
    const doc = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command }] }] } };
    return { agent, file, action: 'create', detail: 'adds the SessionStart hook', content: JSON.stringify(doc, null, 2) + '\n', note };
  }
  let doc: Record<string, unknown>;
  try {
    const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    doc = parsed as Record<string, unknown>;
  } catch (e) {
    return { agent, file, action: 'unparsable', detail: `not valid JSON (${(e as Error).message}); left untouched: fix it, then run \`brain init\` again` };
  }
  const hooks = (doc.hooks ?? {}) as Record<string, unknown>;
  if (typeof hooks !== 'object' || Array.isArray(hooks)) {
    return { agent, file, action: 'unparsable', detail: '"hooks" is not an object; left untouched' };
  }
  const groups = hooks.SessionStart;
  if (groups !== undefined && !Array.isArray(groups)) {
    return { agent, file, action: 'unparsable', detail: '"hooks.SessionStart" is not a list; left untouched' };
  }
  const list = (groups ?? []) as HookGroup[];
  let ours = 0;
  let exact = 0;
  for (const g of list) {
    for (const h of Array.isArray(g?.hooks) ? g.hooks : []) {
      if (typeof h?.command === 'string' && OWN_COMMAND.test(h.command)) {
        ours++;
        if (h.command === command && (h.type ?? 'command') === 'command' && !g.matcher) exact++;
      }
    }
  }
  if (ours === 1 && exact === 1) return { agent, file, action: 'ok', detail: 'SessionStart hook installed', note };
  // Remove only our entries (and groups that held nothing else), then add one.
  const kept: HookGroup[] = [];
  for (const g of list) {
    if (!g || !Array.isArray(g.hooks)) {
      kept.push(g);
      continue;
    }
    const rest = g.hooks.filter((h) => !(typeof h?.command === 'string' && OWN_COMMAND.test(h.command)));
    if (rest.length === g.hooks.length) kept.push(g);
    else if (rest.length > 0) kept.push({ ...g, hooks: rest });
  }
  kept.push({ hooks: [{ type: 'command', command }] });
  const next = { ...doc, hooks: { ...hooks, SessionStart: kept } };
  return {
    agent,
    file,
    action: ours === 0 ? 'add' : 'update',
    detail: ours === 0 ? 'adds the SessionStart hook' : `replaces ${ours} older brain hook entr${ours > 1 ? 'ies' : 'y'} with the current command`,
    content: JSON.stringify(next, null, 2) + '\n',
    note,
  };
}

export const SERVER_NAME = 'brain';

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

/** A registration that starts exactly `s`. */
export function sameSpec(o: Record<string, unknown>, s: McpServerSpec): boolean {
  return o.command === s.command && Array.isArray(o.args) && o.args.length === s.args.length && o.args.every((a, i) => a === s.args[i]) && sameEnv(o.env, s.env);
}

