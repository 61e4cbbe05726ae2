// How recall reports a floor file the lake_path guard (index/lakepath.ts) refused.
import * as path from 'node:path';
import { UnsafePathError } from '../safepath';
import { lakeFileProblem } from '../index/lakepath';
import type { RefusedFile } from './types';

/** A floor file checked on disk once for a whole search: its absolute path, which the search's
 * reads of it (chunks, parse, citations) then open without following a symlink, or why it is
 * refused. `seen`: folders found real earlier in the same search. */
export function checkedLake(dir: string, lakePath: string, seen: Set<string>): { abs: string; problem: null } | { abs: null; problem: string } {
  const problem = lakeFileProblem(dir, lakePath, seen);
  // The guard refuses `..` and absolute paths, so the join stays inside dir (as its own does).
  return problem ? { abs: null, problem } : { abs: path.join(dir, lakePath), problem: null };
}

/** A refused file as recall reports it, from the error the guard threw (null: another error). */
export function refusalOf(machine: string, lakePath: string, e: unknown): RefusedFile | null {
  if (!(e instanceof UnsafePathError)) return null;
  return { machine, lake_path: lakePath, problem: e.reason };
}

/** Adds a refusal once (the same file can come up in several tiers of one search). */
export function noteRefused(list: RefusedFile[], r: RefusedFile): void {
  if (!list.some((x) => x.machine === r.machine && x.lake_path === r.lake_path)) list.push(r);
}
