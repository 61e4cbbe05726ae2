// Where Crush keeps its sessions: one SQLite database per project, `<project>/.crush/crush.db`
// (the project's data folder, `data_dir`), each project Crush has opened listed in projects.json
// beside its global data (`$XDG_DATA_HOME/crush/`, ~/.local/share/crush; %LOCALAPPDATA%\crush on
// Windows; CRUSH_GLOBAL_DATA moves it). Tables: sessions, messages (parts: a JSON array).
import * as fs from 'node:fs';
import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';
import { isRowsFile, sessionFromRows, type DbOrigin, type DbTable } from '../kit/sqlite';
import { createHash } from 'node:crypto';

/** updated_at is set by Crush's triggers on every update (in seconds). */
export const CRUSH_TABLES: DbTable[] = [
  { name: 'sessions', key: ['id'], session: 'id', changed: 'updated_at' },
  { name: 'messages', key: ['id'], session: 'session_id', changed: 'updated_at' },
];

/** Crush's global data folder, where projects.json is. */
export function crushGlobalData(env: Env): string {
  const p = pathFor(env);
  if (env.CRUSH_GLOBAL_DATA) return env.CRUSH_GLOBAL_DATA;
  if (p === pathFor({ BRAIN_PLATFORM: 'win32' }) && env.LOCALAPPDATA) return p.join(env.LOCALAPPDATA, 'crush');
  return p.join(env.XDG_DATA_HOME || p.join(homeDir(env), '.local', 'share'), 'crush');
}

/** A lake folder per project: its folder's last name and a short hash of its whole path. */
export function projectPrefix(projectPath: string): string {
  const base = (projectPath.split(/[\\/]/).filter(Boolean).pop() ?? 'project').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return `${base}-${createHash('sha256').update(projectPath).digest('hex').slice(0, 8)}/`;
}

export const crushFiles: AgentFiles = {
  roots: () => [],
  databases(env: Env): DbOrigin[] {
    const p = pathFor(env);
    let list: unknown;
    try {
      list = JSON.parse(fs.readFileSync(p.join(crushGlobalData(env), 'projects.json'), 'utf8'));
    } catch {
      return [];
    }
    const projects = (list as { projects?: unknown })?.projects;
    if (!Array.isArray(projects)) return [];
    const out = new Map<string, DbOrigin>();
    for (const pr of projects as { path?: unknown; data_dir?: unknown }[]) {
      if (typeof pr?.path !== 'string' || !p.isAbsolute(pr.path)) continue;
      const dataDir = typeof pr.data_dir === 'string' && pr.data_dir ? (p.isAbsolute(pr.data_dir) ? pr.data_dir : p.join(pr.path, pr.data_dir)) : p.join(pr.path, '.crush');
      const file = p.join(dataDir, 'crush.db');
      if (!out.has(file)) out.set(file, { file, lakePrefix: projectPrefix(pr.path), tables: CRUSH_TABLES });
    }
    return [...out.values()].sort((a, b) => (a.file < b.file ? -1 : 1));
  },
  sessionOf: (rel) => (isRowsFile(rel) ? sessionFromRows(rel) : rel),
};
