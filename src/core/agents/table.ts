// The table docs/agents.md shows (scripts/agents-table.mjs writes it, a test compares): every agent
// of the registry with where it is read from on each platform, so the page can never list an agent
// the program does not record, or miss one it does.
import type { Env } from '../home';
import { agents } from './index';
import type { AgentDef } from './types';

const PLATFORMS: { name: string; env: Env; home: string }[] = [
  { name: 'Linux', env: { HOME: '/home/you', BRAIN_PLATFORM: 'linux' }, home: '/home/you' },
  { name: 'macOS', env: { HOME: '/Users/you', BRAIN_PLATFORM: 'darwin' }, home: '/Users/you' },
  {
    name: 'Windows',
    env: { HOME: 'C:\\Users\\you', USERPROFILE: 'C:\\Users\\you', BRAIN_PLATFORM: 'win32', APPDATA: 'C:\\Users\\you\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\you\\AppData\\Local' },
    home: 'C:\\Users\\you',
  },
];

type WithDatabases = AgentDef & { databases?: (env: Env) => { file: string }[] };

/** Folders and database files an agent is read from under `env`, with the home folder shown as ~. */
function places(a: WithDatabases, env: Env, home: string): string[] {
  const dirs = a.roots(env).map((r) => r.dir);
  const dbs = typeof a.databases === 'function' ? a.databases(env).map((d) => d.file) : [];
  const tilde = (p: string) => (p === home ? '~' : p.startsWith(home) ? `~${p.slice(home.length)}` : p);
  return [...new Set([...dirs, ...dbs].map(tilde))];
}

const cell = (xs: string[]) => (xs.length ? xs.map((x) => `\`${x.replace(/\|/g, '\\|')}\``).join('<br>') : '—');

/** One Markdown table, a row per agent in registry order. */
export function agentsTable(): string {
  const head = `| agent | lane | ${PLATFORMS.map((p) => p.name).join(' | ')} | moved by |`;
  const rule = `| --- | --- | ${PLATFORMS.map(() => '---').join(' | ')} | --- |`;
  const rows = agents().map((a) => {
    const where = PLATFORMS.map((p) => cell(places(a as WithDatabases, p.env, p.home)));
    return `| ${a.label} | \`${a.lane}\` | ${where.join(' | ')} | ${cell([...a.env])} |`;
  });
  return [head, rule, ...rows].join('\n');
}

/** How many agents the registry records (the page's heading says it). */
export function agentCount(): number {
  return agents().length;
}
