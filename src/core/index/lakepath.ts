// The one way a lake_path becomes a file to open. The lake_path comes from a manifest (a store's is
// written by another machine), from the turn index built from those manifests, or from a tool
// argument: each goes through the guard (safepath.ts), so `..`, an absolute path, or a symlink
// anywhere below the machine's folder is refused and reported, never followed. Both the index
// (reading a file's new bytes) and recall use it.
import { UnsafePathError, unsafeReason, within } from '../safepath';

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

/** Why a floor file is refused (null: it may be read). */
export function lakeFileProblem(dir: string, lakePath: string, seen?: Set<string>): string | null {
  if (typeof lakePath !== 'string') return 'is not a string';
  return notUnderLake(lakePath) ?? unsafeReason(dir, lakePath, { disk: true, file: true, seen });
}
