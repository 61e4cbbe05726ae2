// The floor as the sync sees it: every regular file under lake/, manifest/ and meta/, by path
// relative to BRAIN_HOME. Temp files of an unfinished atomic write are never part of it.
import * as path from 'node:path';
import { SYNCED_DIRS } from './paths';
import { statOrNull, walkTree } from '../walk';

export interface FloorFile {
  rel: string;
  size: number;
  mtimeMs: number;
}

export function isTransient(name: string): boolean {
  return name.startsWith('.tmp-') || name === '.checkpoint.json';
}

/** Walks the synced folders. `visit` may return true to stop early. */
export function walkFloor(home: string, visit: (f: FloorFile) => boolean | void): void {
  for (const d of SYNCED_DIRS) {
    const stopped = walkTree(
      path.join(home, d),
      (e) => {
        if (e.dir) return;
        const st = statOrNull(e.abs);
        return st ? visit({ rel: e.rel, size: st.size, mtimeMs: st.mtimeMs }) : undefined;
      },
      { prefix: d, skip: isTransient },
    );
    if (stopped) return;
  }
}

export function listFloor(home: string): Map<string, FloorFile> {
  const m = new Map<string, FloorFile>();
  walkFloor(home, (f) => {
    m.set(f.rel, f);
  });
  return m;
}

export function kindOf(rel: string): 'lake' | 'manifest' | 'meta' {
  if (rel.startsWith('lake/')) return 'lake';
  if (rel.startsWith('manifest/')) return 'manifest';
  return 'meta';
}
