// Where OpenCode keeps its sessions: a SQLite database in its data folder, `$XDG_DATA_HOME/opencode`
// (~/.local/share/opencode on every OS: OpenCode uses the XDG folders on macOS and Windows too),
// `opencode.db`, or `opencode-<channel>.db` for another release channel, or wherever OPENCODE_DB
// names (a path relative to the data folder, or absolute). Before the database, sessions were JSON
// files under storage/{session,message,part}/: those are recorded as files, as any file origin.
import * as fs from 'node:fs';
import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';
import { sessionFromRows, isRowsFile, type DbOrigin, type DbTable } from '../kit/sqlite';

/** OpenCode's tables that hold sessions (its drizzle schema; session_message and todo exist in
 * newer versions only: a table a database lacks is read as empty). Every one has time_updated,
 * set by each write of the row. */
export const OPENCODE_TABLES: DbTable[] = [
  { name: 'session', key: ['id'], session: 'id', changed: 'time_updated' },
  { name: 'message', key: ['id'], session: 'session_id', changed: 'time_updated' },
  { name: 'part', key: ['id'], session: 'session_id', changed: 'time_updated' },
  { name: 'session_message', key: ['id'], session: 'session_id', changed: 'time_updated' },
  { name: 'todo', key: ['session_id', 'position'], session: 'session_id', changed: 'time_updated' },
];

const CHANNEL_DB = /^[a-z]+(-[A-Za-z0-9._-]+)?\.db$/;

/** An OpenCode-family agent's files: `name` is its data folder and database stem ('opencode',
 * 'kilo'), `dbEnv` the variable that moves the database. */
export function openCodeFamily(name: string, dbEnv: string | null): AgentFiles {
  const dataDir = (env: Env) => {
    const p = pathFor(env);
    return p.join(env.XDG_DATA_HOME || p.join(homeDir(env), '.local', 'share'), name);
  };
  return {
    roots(env: Env) {
      return [
        {
          dir: pathFor(env).join(dataDir(env), 'storage'),
          lakePrefix: 'storage/',
          include: (rel) => /^(session\/[^/]+\/[^/]+|message\/[^/]+\/[^/]+|part\/[^/]+\/[^/]+)\.json$/.test(rel),
        },
      ];
    },
    databases(env: Env): DbOrigin[] {
      const p = pathFor(env);
      const dir = dataDir(env);
      const files = new Set<string>();
      const named = dbEnv ? env[dbEnv] : undefined;
      if (named && named !== ':memory:') files.add(p.isAbsolute(named) ? named : p.join(dir, named));
      let names: string[] = [];
      try {
        names = fs.readdirSync(dir);
      } catch {
        names = [];
      }
      for (const n of names) if (CHANNEL_DB.test(n) && (n === `${name}.db` || n.startsWith(`${name}-`))) files.add(p.join(dir, n));
      if (files.size === 0) files.add(p.join(dir, `${name}.db`));
      return [...files].sort().map((file) => {
        const base = p.basename(file);
        // The default database's sessions at the top of the lane; another channel's in a folder.
        const prefix = base === `${name}.db` && p.dirname(file) === dir ? '' : `${base.replace(/\.db$/, '')}/`;
        return { file, lakePrefix: prefix, tables: OPENCODE_TABLES };
      });
    },
    // storage/session/<project>/<session>.json, storage/message/<session>/<message>.json,
    // storage/part/<message>/<part>.json (a part names only its message).
    sessionOf: (rel) => {
      if (isRowsFile(rel)) return sessionFromRows(rel);
      const m = /^storage\/(session|message|part)\/([^/]+)\/([^/]+)\.json$/.exec(rel);
      if (m) return m[1] === 'session' ? m[3] : m[2];
      return sessionFromName(rel);
    },
    // The legacy JSON files are rewritten whole on every update of their message or part.
    rewritesWhole: (rel) => rel.startsWith('storage/') && rel.endsWith('.json'),
  };
}

export const openCodeFiles = openCodeFamily('opencode', 'OPENCODE_DB');
