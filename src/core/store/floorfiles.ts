// The floor as the sync sees it: every regular file under lake/, manifest/ and meta/, by path
// relative to BRAIN_HOME. Temp files of an unfinished atomic write are never part of it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SYNCED_DIRS } from './paths';

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
  let stop = false;
  const walk = (abs: string, rel: string) => {
    let ents: fs.Dirent[];
    try {
      ents = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of ents) {
      if (stop) return;
      if (isTransient(e.name)) continue;
      const a = path.join(abs, e.name);
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(a, r);
      else if (e.isFile()) {
        let st: fs.Stats;
        try {
          st = fs.statSync(a);
        } catch {
          continue;
        }
        if (visit({ rel: r, size: st.size, mtimeMs: st.mtimeMs }) === true) stop = true;
      }
    }
  };
  for (const d of SYNCED_DIRS) {
    if (stop) return;
    walk(path.join(home, d), d);
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
