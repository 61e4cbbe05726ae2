// Which floor this is. Machine names default to the host name, and two machines with one name
// would otherwise share <store>/<machine>/ without a word: one machine's files never reach the
// store while its sync says ok, or the live copy flips between them. So each floor gets a random
// id, made once in BRAIN_HOME/floor-id (kept with the floor: a restored BRAIN_HOME is the same
// floor), and the first sync records it in <store>/<machine>/.brain/floor-id. A sync into a folder
// recorded for another floor is refused before anything there is touched (script.ts).
//
// Folders written before there was an id are taken over by the floor whose manifest starts like
// the store's copy of it (the manifest is append-only, and its first line holds a capture time and
// a sha256: another floor's does not match). `brain sync --adopt` takes a folder over explicitly:
// the same machine set up again from nothing has a new id and a manifest of its own.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsyncDir, tmpName, writeFileAtomic } from '../floor/durable';
import { FILE_MODE, layout } from '../home';

const ID_RE = /^[0-9a-f]{32}$/;
/** The manifest's first line is enough to tell floors apart; a longer one is cut here. */
const HEAD_MAX = 64 * 1024;

export function floorIdPath(home: string): string {
  return path.join(home, 'floor-id');
}

export function readFloorId(home: string): string | null {
  try {
    const id = fs.readFileSync(floorIdPath(home), 'utf8').trim();
    return ID_RE.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** This floor's id, made (durably, once) when there is none. */
export function ensureFloorId(home: string): string {
  const have = readFloorId(home);
  if (have) return have;
  const file = floorIdPath(home);
  const id = randomBytes(16).toString('hex');
  if (fs.existsSync(file)) {
    // Unreadable as an id (edited by hand?): a new one. The store then refuses this floor until
    // `brain sync --adopt`, which is what a floor that cannot say who it is should get.
    writeFileAtomic(file, `${id}\n`);
    return id;
  }
  // Written whole and flushed, then linked into place: two processes making one at the same time
  // agree on whichever link came first.
  const tmp = tmpName(file);
  const fd = fs.openSync(tmp, 'w', FILE_MODE);
  try {
    fs.writeSync(fd, `${id}\n`);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
    fsyncDir(path.dirname(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return readFloorId(home) ?? id;
}

/** The first line of this floor's manifest (its length and sha256), null while it is empty. */
export function manifestHead(home: string): { size: number; sha256: string } | null {
  let fd: number;
  try {
    fd = fs.openSync(layout(home).manifest, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(HEAD_MAX);
    const n = fs.readSync(fd, buf, 0, HEAD_MAX, 0);
    if (n === 0) return null;
    const nl = buf.subarray(0, n).indexOf(10);
    const size = nl >= 0 ? nl + 1 : n;
    return { size, sha256: createHash('sha256').update(buf.subarray(0, size)).digest('hex') };
  } finally {
    fs.closeSync(fd);
  }
}
