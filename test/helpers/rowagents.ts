// Row-record agents through the whole pipeline without a database pass: a database's current rows
// are written as the row-record files a first pass records (rowrecords.ts), and a registry is made
// in which the agent reads those files from a folder (a root) instead of its databases. Capture
// copies them byte for byte into lake/<lane>/, so the index, search, show, the cache's views and
// stats read exactly what they read after a real pass.
import * as fs from 'node:fs';
import { AgentRegistry, BUILTIN, type Agent } from '../../src/core/agents';
import { ROWS_SUFFIX } from '../../src/core/agents/kit/sqlite';
import { rowRecords, writeLake } from './rowrecords';

/** Writes the row records of `db` (the tables the agent declares for its `which`th database)
 * under `dir`, each under the database's lake prefix; returns their lake-relative names. */
export function stageRows(agent: Agent, env: NodeJS.ProcessEnv, db: string, dir: string, which = 0): string[] {
  const origin = agent.databases?.(env)[which];
  if (!origin) throw new Error(`${agent.lane} declares no database ${which}`);
  const names: string[] = [];
  for (const [name, lines] of rowRecords(db, origin.tables)) {
    writeLake(dir, origin.lakePrefix + name, lines);
    names.push(origin.lakePrefix + name);
  }
  return names.sort();
}

/** The built-in registry with `lane` reading row-record files from `dir`. */
export function filesRegistry(lane: string, dir: string): AgentRegistry {
  const a = BUILTIN.byLane(lane);
  if (!a) throw new Error(`no agent ${lane}`);
  const asFiles: Agent = { ...a, databases: undefined, roots: () => [{ dir, lakePrefix: '', include: (rel: string) => rel.endsWith(ROWS_SUFFIX) }] };
  return new AgentRegistry(BUILTIN.list.map((x) => (x.lane === lane ? asFiles : x)));
}

export function readLines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

