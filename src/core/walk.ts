// One recursive directory walk for the modules that list a tree of files: it never follows a
// symlink, skips folders it cannot read, and stops when the visitor returns true.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface WalkEntry {
  abs: string;
  /** Path relative to the walk's root, '/'-separated, prefixed with `prefix` when given. */
  rel: string;
  dir: boolean;
}

export function walkTree(root: string, visit: (e: WalkEntry) => boolean | void, opts: { prefix?: string; skip?: (name: string) => boolean } = {}): boolean {
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
      if (opts.skip?.(e.name)) continue;
      const a = path.join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (visit({ abs: a, rel: r, dir: true }) === true) stop = true;
        else walk(a, r);
      } else if (e.isFile() && visit({ abs: a, rel: r, dir: false }) === true) stop = true;
    }
  };
  walk(root, opts.prefix ?? '');
  return stop;
}

/** stat, or null when the file vanished since it was listed. */
export function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}
