// The walk: every agent's origin roots listed for a capture pass, or only the paths the watcher
// saw change. Symbolic links are never followed; a folder that cannot be listed is said and the
// walk goes on without it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agents } from '../agents';
import type { AgentPaths, OriginRoot } from '../agents';
import type { Env } from '../home';
import type { Lane } from './manifest';
import { displayPath } from './names';

/** The pass the walk hands each origin to. */
export interface WalkHost {
  readonly stopped: boolean;
  warn(lane: Lane, code: string, p: string, message: string, hint?: string): void;
  file(agent: AgentPaths, root: OriginRoot, abs: Buffer, segs: Buffer[]): void;
}

/** Each root of each agent, noted in `roots`; `only` = the origin paths to look at (watch mode),
 * undefined = every file under the roots. */
export function walkOrigins(env: Env, only: Set<string> | undefined, roots: { lane: Lane; dir: string; exists: boolean }[], h: WalkHost): void {
  for (const agent of agents()) {
    for (const root of agent.roots(env)) {
      const exists = isDir(root.dir);
      roots.push({ lane: agent.lane, dir: root.dir, exists });
      if (!exists) continue;
      if (only) {
        // Each origin once, however the watcher spelled it (`a//b`, `a/./b`).
        for (const p of new Set([...only].map((x) => path.resolve(x)))) {
          const rel = path.relative(root.dir, p);
          if (rel.startsWith('..') || path.isAbsolute(rel) || !root.include(rel.split(path.sep).join('/'))) continue;
          h.file(agent, root, Buffer.from(p), rel.split(path.sep).map((s) => Buffer.from(s)));
        }
      } else walk(h, agent, root, Buffer.from(root.dir), [], '');
      if (h.stopped) break;
    }
  }
}

const SLASH = Buffer.from('/');

/** `rel`: the folder's path under the root, as UTF-8 text ('' for the root), grown a name at a
 * time (a pass walks every session of a store: thousands of files). */
function walk(h: WalkHost, agent: AgentPaths, root: OriginRoot, dir: Buffer, segs: Buffer[], rel: string): void {
  let ents: fs.Dirent<Buffer>[];
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
  } catch (e) {
    h.warn(agent.lane, 'unreadable', displayPath(dir), `cannot list folder: ${(e as Error).message}`, 'check its permissions');
    return;
  }
  for (const ent of ents) {
    if (h.stopped) return;
    const child = Buffer.concat([dir, SLASH, ent.name]);
    const name = ent.name.toString('utf8');
    const childRel = rel ? `${rel}/${name}` : name;
    if (ent.isSymbolicLink()) {
      // Never followed: a link could point outside the agent's folder or loop.
      if (root.include(childRel) || isDirNoFollow(child)) {
        h.warn(agent.lane, 'symlink-skipped', displayPath(child), 'symbolic link not followed');
      }
      continue;
    }
    if (ent.isDirectory()) {
      if (!root.flat) walk(h, agent, root, child, [...segs, ent.name], childRel);
    }
    // A FIFO, socket or device named like a session too: file() says what it is and skips it.
    else if (root.include(childRel)) h.file(agent, root, child, [...segs, ent.name]);
  }
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isDirNoFollow(p: Buffer): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
