// What every agent folder declares: where its session files live (with the agent's own env
// override), which files under that root are sessions, and how a session id is read from a path.
// Dialects (lines -> turns) live beside these in each agent's folder.
import type { Env } from '../home';
import type { Lane } from '../floor/manifest';

export interface OriginRoot {
  /** Absolute directory that is walked. */
  dir: string;
  /** Prefix inside lake/<lane>/ for files under this root ('' for none), so two roots never collide. */
  lakePrefix: string;
  /** Relative path (with '/' separators, relative to dir) of a file: is it a session file? */
  include(rel: string): boolean;
}

export interface AgentPaths {
  lane: Lane;
  /** Long agent name written in the manifest's `agent` field. */
  agent: string;
  /** Human label. */
  label: string;
  roots(env: Env): OriginRoot[];
  /** Session id from a path relative to the lane (lake-relative, without the generation suffix). */
  sessionOf(rel: string): string;
  /** Files the agent rewrites whole on every update (a legacy .json): their versions are captured
   * as generations at most once per rewrite-quiet period while they keep changing. */
  rewritesWhole?(rel: string): boolean;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Session id = the last UUID in the file name, else the file name without its extensions. */
export function sessionFromName(rel: string): string {
  const base = rel.split('/').pop() ?? rel;
  const all = base.match(new RegExp(UUID.source, 'gi'));
  if (all && all.length > 0) return all[all.length - 1].toLowerCase();
  return base.replace(/(\.meta)?\.(jsonl|json|txt)$/i, '');
}
