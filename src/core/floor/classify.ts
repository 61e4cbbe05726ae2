// Change classification: what became of an origin since the floor last took from it. An append is
// told from a rewrite in O(1): stat, and a 4 KiB fingerprint at each end of what the floor holds; a
// full prefix comparison happens only for a same-size change (and in verify --deep). A new inode, a
// truncation or a rewrite opens a new generation, under a lake name no other origin holds.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Layout } from '../home';
import type { Applier, FloorEvent } from './apply';
import type { Lane } from './manifest';
import { generationName } from './names';
import { FP_WINDOW, readOffsets, writeOffsets, type OffsetRec } from './offsets';
import { firstDifference } from './ranges';

/** `unchanged`: nothing to read since the last look; `append`: new bytes follow what the floor
 * holds; `generation`: the floor's copy no longer leads to the origin, for `reason`. */
export type Change = { kind: 'unchanged' } | { kind: 'append' } | { kind: 'generation'; reason: string };

/** `forced`: a change the prefix check found, which opens a generation whatever else is seen. */
export function classify(fd: number, st: fs.Stats, off: OffsetRec, root: string, forced?: string): Change {
  const generation = (reason: string): Change => ({ kind: 'generation', reason });
  if (forced) return generation(forced);
  if (st.ino !== off.ino || st.dev !== off.dev) return generation('replaced (new inode)');
  if (st.size < off.consumed) return generation(`truncated (${st.size} < ${off.consumed} bytes)`);
  // Unchanged since we last looked. Only a waiting unterminated line may be due.
  if (st.size === off.size && st.mtimeMs === off.mtime_ms) return { kind: 'unchanged' };
  if (off.consumed > 0 && !fingerprintOk(fd, off)) return generation('rewritten (prefix changed)');
  if (st.size === off.consumed && !samePrefix(fd, path.join(root, off.lake_path), off.consumed))
    return generation('rewritten (same size, different bytes)');
  if (off.unterminated && st.size > off.consumed) return generation('continued a line that was captured unterminated');
  return { kind: 'append' };
}

/** Whether a rewrite of a file rewritten whole on every update waits. Its versions are kept when it
 * goes quiet (the last change always), or once per quiet period while it keeps changing; a burst of
 * rewrites (a streamed reply) becomes one generation, not one per rewrite. */
export function rewriteDeferred(l: Layout, off: OffsetRec, st: fs.Stats, now: number, rewriteQuietMs: number): boolean {
  const quiet = now - st.mtimeMs >= rewriteQuietMs;
  const since = off.deferred_since ?? null;
  if (!quiet && (since === null || now - since < rewriteQuietMs)) {
    if (since === null) writeOffsets(l.offsets, { ...off, deferred_since: now });
    return true;
  }
  return false;
}

/** Offsets lost but the lake holds the origin: rebuild the record from the manifest, with no origin
 * identity, so the next check compares the whole prefix (fingerprint mismatch -> new generation). */
export function recoverOffsets(l: Layout, applier: Applier, lane: Lane, baseRel: string, display: string, now: number): OffsetRec | null {
  const claims = applier.fullClaims();
  let gen = 0;
  for (let g = 1; ; g++) {
    if (!claims.has(`lake/${lane}/${generationName(baseRel, g)}`)) break;
    gen = g;
  }
  if (gen === 0) return null;
  const lakePath = `lake/${lane}/${generationName(baseRel, gen)}`;
  const c = claims.get(lakePath)!;
  const lakeFd = fs.openSync(path.join(l.root, lakePath), 'r');
  try {
    return {
      v: 1,
      lane,
      origin: display,
      base_rel: baseRel,
      gen,
      lake_path: lakePath,
      consumed: c.byte_to,
      lines: c.line_to,
      unterminated: false,
      dev: -1,
      ino: -1,
      size: -1,
      mtime_ms: -1,
      ...fingerprints(lakeFd, c.byte_to),
      updated_at: new Date(now).toISOString(),
    };
  } finally {
    fs.closeSync(lakeFd);
  }
}

/** Whether a floor written by an earlier version holds this origin under its old lake name (one
 * shaped like a generation or an escape): the offsets there, or else the manifest's claims on that
 * lake file, are this origin's (another origin may hold that name: the one whose escape it is).
 * Asked only for such names, and only until the new name is in use. */
export function heldUnderLegacy(l: Layout, applier: Applier, lane: Lane, rel: string, legacy: string, display: string): boolean {
  if (readOffsets(l.offsets, lane, rel)) return false;
  const off = readOffsets(l.offsets, lane, legacy);
  if (off) return off.origin === display;
  if (!fs.existsSync(path.join(l.lake, lane, legacy))) return false;
  return applier.fullClaims().get(`lake/${lane}/${legacy}`)?.origin === display;
}

/** The first generation from `g` whose lake name no other origin holds: a floor written by an
 * earlier version may keep an origin named like a generation (`x.g2.jsonl`) under that name. */
export function freeGeneration(l: Layout, applier: Applier, events: FloorEvent[], lane: Lane, baseRel: string, g: number, display: string): number {
  for (; ; g++) {
    const rel = generationName(baseRel, g);
    if (!fs.existsSync(path.join(l.lake, lane, rel))) return g;
    // An unclaimed file there is what an interrupted pass left of this generation: the applier
    // cuts what no manifest line claims and writes the chunk again.
    const owner = readOffsets(l.offsets, lane, rel)?.origin ?? applier.fullClaims().get(`lake/${lane}/${rel}`)?.origin;
    if (owner === undefined) return g;
    if (owner !== display) {
      events.push({
        code: 'generation-name-taken',
        path: display,
        message: `lake/${lane}/${rel} holds ${owner} (named like a generation by an earlier version); generation ${g + 1} is tried instead`,
      });
    }
  }
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function readAt(fd: number, from: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  let done = 0;
  while (done < len) {
    const n = fs.readSync(fd, b, done, len - done, from + done);
    if (n === 0) break;
    done += n;
  }
  return b.subarray(0, done);
}

/** Hashes of the first and last 4 KiB of [0, end). */
export function fingerprints(fd: number, end: number): { head_sha: string; tail_sha: string } {
  const headLen = Math.min(FP_WINDOW, end);
  const tailFrom = Math.max(0, end - FP_WINDOW);
  return { head_sha: sha256(readAt(fd, 0, headLen)), tail_sha: sha256(readAt(fd, tailFrom, end - tailFrom)) };
}

function fingerprintOk(fd: number, off: OffsetRec): boolean {
  const fp = fingerprints(fd, off.consumed);
  return fp.head_sha === off.head_sha && (off.tail_sha === '' || fp.tail_sha === off.tail_sha);
}

/** Full comparison of the origin's first `len` bytes with the lake file (rare: same-size changes). */
function samePrefix(fd: number, lake: string, len: number): boolean {
  let lfd: number;
  try {
    lfd = fs.openSync(lake, 'r');
  } catch {
    return false;
  }
  try {
    return firstDifference(fd, lfd, len) === -1;
  } finally {
    fs.closeSync(lfd);
  }
}
