// The one way recall turns a lake_path into a file to open. The lake_path comes from a manifest (a
// store's is written by another machine), from the turn index built from those manifests, or from
// a tool argument: each goes through the guard (safepath.ts), so `..`, an absolute path, or a
// symlink anywhere below the machine's folder is refused and reported, never followed.
import { UnsafePathError, unsafeReason, within } from '../safepath';
import type { RefusedFile } from '../recall/types';

function notUnderLake(lakePath: string): string | null {
  return /^lake[\\/]/.test(lakePath) ? null : 'is not a path under lake/';
}

/** The absolute path of a floor file, checked on disk; throws UnsafePathError. `seen` caches the
 * folders found real within one call. */
export function lakeFile(dir: string, lakePath: string, seen?: Set<string>): string {
  const why = typeof lakePath === 'string' ? notUnderLake(lakePath) : null;
  if (why) throw new UnsafePathError(lakePath, dir, why, 'lake_path');
  return within(dir, lakePath, { what: 'lake_path', disk: true, file: true, seen });
}

/** Why recall refuses a floor file (null: it may be read). */
export function lakeFileProblem(dir: string, lakePath: string, seen?: Set<string>): string | null {
  if (typeof lakePath !== 'string') return 'is not a string';
  return notUnderLake(lakePath) ?? unsafeReason(dir, lakePath, { disk: true, file: true, seen });
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
