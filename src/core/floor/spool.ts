// The spool: watchers and hooks write here first (tmp + rename), the applier moves entries down to
// the lake. An entry is <id>.chunk (the bytes) plus <id>.json (the descriptor); the descriptor's
// rename is the commit point, so a half-written entry is never applied.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Lane, ManifestLine } from './manifest';
import type { OffsetRec } from './offsets';
import { writeFileAtomic } from './durable';
import { mkdirPrivate } from '../home';

export interface ChunkEntry {
  v: 1;
  kind: 'chunk';
  id: string;
  /** The manifest line this chunk becomes, complete. */
  line: ManifestLine;
  /** The origin's offsets record once this chunk is on the floor. */
  offsets: OffsetRec;
}

export interface MetaEntry {
  v: 1;
  kind: 'meta';
  id: string;
  lane: Lane;
  session: string;
  record: Record<string, unknown>;
}

export type SpoolEntry = ChunkEntry | MetaEntry;

let seq = 0;
/** Sortable, unique across processes: time, pid, counter. */
export function spoolId(): string {
  return `${Date.now().toString().padStart(14, '0')}-${String(process.pid).padStart(7, '0')}-${String(seq++).padStart(6, '0')}`;
}

/** Where entries the applier would not take are kept (beside the lanes' folders, not one of them). */
const REJECTED = '_rejected';
/** The journals of a pass that writes straight to the lake (journal.ts), beside the lanes' folders. */
export const JOURNAL = '_journal';

/** The lanes' folders in the spool: every folder but the one of rejected entries, which are kept
 * for a person to look at and never applied again, and the journals' folder. */
function laneNames(spoolDir: string): string[] {
  return fs.readdirSync(spoolDir).filter((n) => n !== REJECTED && n !== JOURNAL);
}

export function laneSpool(spoolDir: string, lane: string): string {
  return path.join(spoolDir, lane);
}

/** The files in every lane's folder of the spool (or in `sub` below each lane folder), as
 * [folder, name] pairs; lanes or folders that cannot be read are skipped. Reads only. */
export function spoolFiles(spoolDir: string, sub = ''): [dir: string, name: string][] {
  const out: [string, string][] = [];
  let lanes: string[];
  try {
    lanes = laneNames(spoolDir);
  } catch {
    return out;
  }
  for (const lane of lanes) {
    const dir = path.join(spoolDir, lane, sub);
    try {
      for (const n of fs.readdirSync(dir)) out.push([dir, n]);
    } catch {
      /* not a folder, or unreadable */
    }
  }
  return out;
}

export function commitEntry(spoolDir: string, entry: SpoolEntry): void {
  const dir = laneSpool(spoolDir, entry.kind === 'chunk' ? entry.line.lane : entry.lane);
  mkdirPrivate(dir);
  writeFileAtomic(path.join(dir, `${entry.id}.json`), JSON.stringify(entry) + '\n', { sync: false });
}

export interface ListedEntry {
  lane: string;
  dir: string;
  id: string;
  descriptor: string;
  chunk: string;
}

/** Committed entries of every lane, oldest first. Anything that is not a regular file (a symlink
 * someone placed in the spool) is moved aside to rejected/, never followed. */
export function listEntries(spoolDir: string, onRejected: (file: string, why: string) => void): ListedEntry[] {
  const out: ListedEntry[] = [];
  let lanes: string[];
  try {
    lanes = laneNames(spoolDir);
  } catch {
    return out;
  }
  for (const lane of lanes) {
    const dir = path.join(spoolDir, lane);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (!st.isDirectory()) {
      if (st.isSymbolicLink()) reject(spoolDir, dir, 'a symlink in the spool', onRejected);
      continue;
    }
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.json') || name.startsWith('.tmp-')) continue;
      const p = path.join(dir, name);
      const s = fs.lstatSync(p);
      if (!s.isFile()) {
        reject(spoolDir, p, 'not a regular file', onRejected);
        continue;
      }
      const id = name.slice(0, -5);
      out.push({ lane, dir, id, descriptor: p, chunk: path.join(dir, `${id}.chunk`) });
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Keeps a record of a chunk the applier would not take (one a pass refused before writing it) in
 * the rejected folder, for a person to look at; never applied. */
export function keepRefusal(spoolDir: string, id: string, record: Record<string, unknown>): void {
  const dest = path.join(spoolDir, REJECTED);
  mkdirPrivate(dest);
  writeFileAtomic(path.join(dest, `${Date.now()}-${id}.json`), JSON.stringify(record) + '\n', { sync: false });
}

/** Moves a spool file aside (never deletes: it may hold the only copy of some bytes). */
export function reject(spoolDir: string, file: string, why: string, onRejected: (file: string, why: string) => void): void {
  const dest = path.join(spoolDir, REJECTED);
  mkdirPrivate(dest);
  const to = path.join(dest, `${Date.now()}-${path.basename(file)}`);
  try {
    fs.renameSync(file, to);
    onRejected(to, why);
  } catch {
    onRejected(file, why);
  }
}
