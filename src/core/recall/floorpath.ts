// How recall reports a floor file the lake_path guard (index/lakepath.ts) refused.
import { UnsafePathError } from '../safepath';
import type { RefusedFile } from './types';

/** A refused file as recall reports it, from the error the guard threw (null: another error). */
export function refusalOf(machine: string, lakePath: string, e: unknown): RefusedFile | null {
  if (!(e instanceof UnsafePathError)) return null;
  return { machine, lake_path: lakePath, problem: e.reason };
}

/** Adds a refusal once (the same file can come up in several tiers of one search). */
export function noteRefused(list: RefusedFile[], r: RefusedFile): void {
  if (!list.some((x) => x.machine === r.machine && x.lake_path === r.lake_path)) list.push(r);
}
