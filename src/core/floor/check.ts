// The prefix check. Capture tells an append from a rewrite by the first and last 4 KiB of what the
// floor holds (O(1) per pass), so a byte changed in between, followed by growth, would pass for an
// append and the lake would no longer equal the origin. Each origin that grows past bytes already
// on the floor is therefore checked whole, in slices: every full pass compares up to a budget of
// those bytes with the lake copy, the checks waiting longest first, each one resuming where it
// stopped and wrapping round until it has covered the whole captured prefix once. A difference
// opens a new generation.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentPaths } from '../agents';
import { diskFull } from '../errors';
import type { Env, Layout } from '../home';
import type { Lane } from './manifest';
import { readOffsets, writeOffsets } from './offsets';
import { openOrigin } from './origin';
import { setting } from '../settings';

/** Bytes of the origins (and as many of the lake) a full pass compares at most. */
export function checkBytesFromEnv(env: Env): number {
  return setting(env, 'BRAIN_PREFIX_CHECK_BYTES');
}

const BLOCK = 1 << 20;

export interface SliceResult {
  /** First offset (of the block) where the origin differs from the lake, or -1. */
  diff: number;
  /** Where the next slice starts. */
  pos: number;
  compared: number;
}

/** Compares up to `budget` bytes of [0, end) of two open files from `pos`, wrapping round at `end`.
 * A file that ends early differs there. */
export function compareSlice(originFd: number, lakeFd: number, end: number, pos: number, budget: number): SliceResult {
  const size = Math.min(BLOCK, Math.max(1, budget));
  const a = Buffer.allocUnsafe(size);
  const b = Buffer.allocUnsafe(size);
  let at = pos >= end ? 0 : pos;
  let compared = 0;
  while (compared < budget && end > 0) {
    const want = Math.min(size, end - at, budget - compared);
    const n1 = readFull(originFd, a, want, at);
    const n2 = readFull(lakeFd, b, want, at);
    if (n1 !== want || n2 !== want || !a.subarray(0, want).equals(b.subarray(0, want))) return { diff: at, pos: at, compared: compared + want };
    compared += want;
    at += want;
    if (at >= end) at = 0;
  }
  return { diff: -1, pos: at, compared };
}

function readFull(fd: number, buf: Buffer, len: number, pos: number): number {
  let done = 0;
  while (done < len) {
    const n = fs.readSync(fd, buf, done, len - done, pos + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** An origin whose prefix check is due. */
export interface CheckDue {
  agent: AgentPaths;
  lane: Lane;
  abs: Buffer;
  display: string;
  baseRel: string;
  at: number;
  /** Asked for in this pass and perhaps not yet in the offsets (a growth that left only a tail). */
  left: number;
  pos: number;
}

export interface CheckHost {
  l: Layout;
  now: number;
  budget: number;
  counts: { files: number; bytes: number; found: number; waiting: number };
  stopped(): boolean;
  /** The origin differs from the lake from `at`: open a generation (fd and st are the origin's). */
  changed(c: CheckDue, fd: number, st: fs.Stats, at: number): void;
  failed(c: CheckDue, e: Error): void;
}

/** Runs the checks due, the one waiting longest first, until the budget is spent. */
export function runChecks(due: CheckDue[], h: CheckHost): void {
  let budget = h.budget;
  due.sort((a, b) => a.at - b.at || (a.baseRel < b.baseRel ? -1 : a.baseRel > b.baseRel ? 1 : 0));
  for (const c of due) {
    const off = readOffsets(h.l.offsets, c.lane, c.baseRel);
    if (!off) continue;
    const left = off.check_left ?? c.left;
    if (left <= 0 || off.consumed <= 0) continue;
    if (budget <= 0 || h.stopped()) {
      h.counts.waiting++;
      continue;
    }
    const o = openOrigin(c.abs);
    if (!('fd' in o)) continue; // gone or no longer a file: the next pass sees it
    try {
      // Replaced or shrunk since the walk: the next pass opens a generation for that anyway.
      if (o.st.ino !== off.ino || o.st.dev !== off.dev || o.st.size < off.consumed) continue;
      let lakeFd: number;
      try {
        lakeFd = fs.openSync(path.join(h.l.root, off.lake_path), 'r');
      } catch {
        continue; // a lake file gone is for verify to report; there is nothing to compare with
      }
      let r: SliceResult;
      try {
        r = compareSlice(o.fd, lakeFd, off.consumed, off.check_pos ?? c.pos, Math.min(budget, left));
      } finally {
        fs.closeSync(lakeFd);
      }
      budget -= r.compared;
      h.counts.files++;
      h.counts.bytes += r.compared;
      if (r.diff >= 0) {
        h.counts.found++;
        h.changed(c, o.fd, o.st, r.diff);
        continue;
      }
      const rest = left - r.compared;
      if (rest > 0) h.counts.waiting++;
      const { check_left: _l, check_pos: _p, check_at: _a, ...plain } = off;
      writeOffsets(h.l.offsets, rest > 0 ? { ...plain, check_left: rest, check_pos: r.pos, check_at: h.now } : plain);
    } catch (e) {
      if (diskFull(e, h.l.root)) throw e;
      h.failed(c, e as Error);
    } finally {
      fs.closeSync(o.fd);
    }
  }
}
