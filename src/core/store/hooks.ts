// Harness hooks that run `brain hook <agent>` at session start, so each session's repo metadata
// (git common dir, branch, commit, cwd) is taken inside the session's own process tree while it is
// still true. brain owns only its own entries in these shared files: a hook whose command runs
// `brain … hook …` (whatever path older installs wrote). Everything else is left exactly as it is,
// and a file that does not parse is never rewritten (the plan says so and names the file).
//   Claude Code  $CLAUDE_CONFIG_DIR/settings.json   hooks.SessionStart[].hooks[] {type, command}
//   Codex        $CODEX_HOME/hooks.json              the same shape (Codex asks the user to trust it)
//   Pi           ~/.pi/agent/extensions/agent-brain.ts  an extension file brain owns whole
// cursor-agent has no session-start hook; its sessions are captured without meta records.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ccConfigDir } from '../agents/cc/paths';
import { codexHome } from '../agents/codex/paths';
import { piAgentDir } from '../agents/pi/paths';
import type { Env } from '../home';
import { writeFileAtomic } from '../floor/durable';

export type HookAgent = 'cc' | 'codex' | 'pi';

export interface HookPlanItem {
  agent: HookAgent;
  file: string;
  /** create: file missing; add: our entry missing; update: ours is there but different (or doubled);
   * ok: nothing to do; unparsable: left alone; foreign: a file of that name that is not ours. */
  action: 'create' | 'add' | 'update' | 'ok' | 'unparsable' | 'foreign';
  detail: string;
  /** New content when action is create/add/update. */
  content?: string;
  note?: string;
}

/** A command that runs brain's hook verb: `brain hook cc`, `'/x/bin/brain' hook cc`, `node /x/bin/brain hook pi`. */
export const OWN_COMMAND = /(^|[\s'"/])brain['"]?\s+hook(\s|$)/;

function shQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function hookCommand(brainCmd: string[], agent: HookAgent): string {
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

/** Plans one JSON settings file of the Claude Code shape. */
function planJsonHooks(agent: HookAgent, file: string, command: string, note?: string): HookPlanItem {
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

export const PI_MARKER = '// agent-brain: written by `brain init`';

export function piExtension(brainCmd: string[]): string {
  return [
    PI_MARKER + '; `brain init` owns this whole file and rewrites it.',
    '// Runs `brain hook pi` at session start, so the session\'s repo metadata is recorded. It never',
    '// blocks pi: the hook runs detached and its failures are ignored.',
    'import { spawn } from "node:child_process";',
    '',
    `const BRAIN: string[] = ${JSON.stringify(brainCmd)};`,
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
    '      const child = spawn(BRAIN[0], [...BRAIN.slice(1), "hook", "pi"], { stdio: ["pipe", "ignore", "ignore"], detached: true });',
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

function planPi(file: string, brainCmd: string[]): HookPlanItem {
  const want = piExtension(brainCmd);
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

export function hookFiles(env: Env): Record<HookAgent, string> {
  return {
    cc: path.join(ccConfigDir(env), 'settings.json'),
    codex: path.join(codexHome(env), 'hooks.json'),
    pi: path.join(piAgentDir(env), 'extensions', 'agent-brain.ts'),
  };
}

/** What `brain init` would do to the hook files. Doctor runs the same plan without writing. */
export function planHooks(brainCmd: string[], env: Env): HookPlanItem[] {
  const f = hookFiles(env);
  return [
    planJsonHooks('cc', f.cc, hookCommand(brainCmd, 'cc')),
    planJsonHooks('codex', f.codex, hookCommand(brainCmd, 'codex'), 'Codex runs a new hook only after you trust it once (/hooks in Codex)'),
    planPi(f.pi, brainCmd),
  ];
}

export function applyHooks(plan: HookPlanItem[]): HookPlanItem[] {
  for (const p of plan) {
    if (!p.content || !['create', 'add', 'update'].includes(p.action)) continue;
    let mode = 0o600;
    let target = p.file;
    try {
      // A settings file kept in a dotfiles repo is often a symlink: write through it, not over it.
      target = fs.realpathSync(p.file);
      mode = fs.statSync(target).mode & 0o777;
    } catch {
      /* new file: private */
    }
    writeFileAtomic(target, p.content);
    fs.chmodSync(target, mode);
  }
  return plan;
}
