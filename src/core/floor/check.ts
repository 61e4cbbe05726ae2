// The prefix check. Capture tells an append from a rewrite by the first and last 4 KiB of what the
// floor holds (O(1) per pass), so a byte changed in between, followed by growth, would pass for an
// append and the lake would no longer equal the origin. Each origin that grows past bytes already
// on the floor is therefore checked whole, in slices: every full pass compares up to a budget of
// those bytes with the lake copy, the checks waiting longest first, each one resuming where it
// stopped and wrapping round until it has covered the whole captured prefix once. A difference
// opens a new generation.
import * as fs from 'node:fs';
import type { Env } from '../home';

/** Bytes of the origins (and as many of the lake) a full pass compares at most. */
export const DEFAULT_CHECK_BYTES = 64 << 20;

export function checkBytesFromEnv(env: Env): number {
  const v = Number(env.BRAIN_PREFIX_CHECK_BYTES);
  return env.BRAIN_PREFIX_CHECK_BYTES !== undefined && env.BRAIN_PREFIX_CHECK_BYTES !== '' && Number.isFinite(v) && v >= 0
    ? Math.floor(v)
    : DEFAULT_CHECK_BYTES;
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
