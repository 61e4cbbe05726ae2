// Checks a local floor file before it is pushed. rsync --append-verify re-sends a whole file when
// the store's copy fails its verification, so a local file that went bad would overwrite the
// store's good copy: the store is the backup of record, so a file that fails here is excluded from
// the push (rsync --exclude-from) and reported. One sequential read per file computes everything:
// each manifest range's sha256, the sha256 of the prefix the store already holds (what the
// store-side check compares with), and the sha256 of the extent we now vouch for.
import { createHash, type Hash } from 'node:crypto';
import * as fs from 'node:fs';
import { readManifest } from '../floor/manifest';

export interface Range {
  from: number;
  to: number;
  sha: string;
  line_from: number;
  line_to: number;
}

/** Manifest ranges per lake path (relative to BRAIN_HOME), sorted by byte_from. */
export function manifestRanges(manifestFile: string): { ranges: Map<string, Range[]>; bad: number } {
  const r = readManifest(manifestFile);
  const m = new Map<string, Range[]>();
  for (const l of r.lines) {
    let a = m.get(l.lake_path);
    if (!a) m.set(l.lake_path, (a = []));
    a.push({ from: l.byte_from, to: l.byte_to, sha: l.chunk_sha256, line_from: l.line_from, line_to: l.line_to });
  }
  for (const a of m.values()) a.sort((x, y) => x.from - y.from || x.to - y.to);
  return { ranges: m, bad: r.bad.length };
}

export interface LocalCheck {
  ok: boolean;
  /** Why not ok: names the lines or bytes. */
  why?: string;
  /** The extent we vouch for: manifest-claimed bytes (lake), complete lines (manifest), all (meta). */
  extent: number;
  extentSha: string;
  /** sha256 of [0, prev.size) when a previous size was given; null if the file is shorter. */
  prevSha?: string | null;
  /** Failing ranges (lake files). */
  badRanges: Range[];
}

const BLOCK = 1 << 20;

function lastNewlineEnd(fd: number, size: number): number {
  const buf = Buffer.allocUnsafe(Math.min(size, 64 * 1024) || 1);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - buf.length);
    const n = fs.readSync(fd, buf, 0, end - start, start);
    const i = buf.subarray(0, n).lastIndexOf(10);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

/**
 * Checks `abs`. kind 'lake': every manifest range must hash to its sha256 and lie inside the file.
 * kind 'manifest' / 'meta': the bytes the store already holds (prev) must be unchanged.
 */
export function checkLocal(abs: string, kind: 'lake' | 'manifest' | 'meta', ranges: Range[] | undefined, prev: { size: number; sha256: string } | undefined): LocalCheck {
  const fd = fs.openSync(abs, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    let extent = size;
    let why: string | undefined;
    const rs = kind === 'lake' ? (ranges ?? []).filter((r) => r.to > r.from) : [];
    if (kind === 'lake' && rs.length > 0) {
      const claimed = rs.reduce((m, r) => Math.max(m, r.to), 0);
      if (claimed > size) why = `the file is ${size} bytes but the manifest claims ${claimed}`;
      extent = Math.min(claimed, size);
    } else if (kind === 'lake') {
      // No claim yet (the capture renames a chunk into place before writing its manifest line):
      // nothing to vouch for, so the store-side check has nothing to compare.
      extent = 0;
    } else if (kind === 'manifest') {
      // A torn last line may still be cut by the capture's recovery: vouch for complete lines only.
      extent = lastNewlineEnd(fd, size);
    }
    const prevSize = prev && prev.size > 0 ? prev.size : 0;
    const end = Math.max(extent, Math.min(prevSize, size));
    const overall = createHash('sha256');
    let prevSha: string | null | undefined = prev ? (prevSize === 0 ? createHash('sha256').digest('hex') : undefined) : undefined;
    let extentSha: string | undefined = extent === 0 ? createHash('sha256').digest('hex') : undefined;
    const bad: Range[] = [];
    let ri = 0;
    let cur: Hash | undefined;
    const buf = Buffer.allocUnsafe(BLOCK);
    let pos = 0;
    while (pos < end) {
      const want = Math.min(BLOCK, end - pos);
      const n = fs.readSync(fd, buf, 0, want, pos);
      if (n <= 0) break;
      let off = 0;
      while (off < n) {
        const at = pos + off;
        // Next boundary inside this block: a range edge, the previous size, or the extent.
        let next = pos + n;
        const r = rs[ri];
        if (r) {
          if (at < r.from) next = Math.min(next, r.from);
          else next = Math.min(next, r.to);
        }
        if (prevSha === undefined && prevSize > at) next = Math.min(next, prevSize);
        if (extentSha === undefined && extent > at) next = Math.min(next, extent);
        const slice = buf.subarray(off, off + (next - at));
        overall.update(slice);
        if (r && at >= r.from && at < r.to) {
          if (!cur) cur = createHash('sha256');
          cur.update(slice);
        }
        off += next - at;
        const now = pos + off;
        if (r && now === r.to && cur) {
          if (cur.digest('hex') !== r.sha) bad.push(r);
          cur = undefined;
          ri++;
          // Overlapping or duplicate claims (a re-applied chunk) are checked on their own below.
          while (rs[ri] && rs[ri].from < now) {
            extraCheck(fd, rs[ri], bad);
            ri++;
          }
        }
        if (prevSha === undefined && now === prevSize) prevSha = overall.copy().digest('hex');
        if (extentSha === undefined && now === extent) extentSha = overall.copy().digest('hex');
      }
      pos += n;
    }
    if (prev && prevSha === undefined) prevSha = null;
    if (extentSha === undefined) extentSha = overall.digest('hex');
    if (bad.length > 0) {
      const shown = bad.slice(0, 3).map((r) => `lines ${r.line_from}-${r.line_to}`).join(', ');
      why = `${bad.length} manifest range${bad.length > 1 ? 's' : ''} no longer match${bad.length > 1 ? '' : 'es'} (${shown}${bad.length > 3 ? ', …' : ''})`;
    }
    if (kind !== 'lake' && prev && prevSize > 0) {
      if (prevSha === null) why = `the file is ${size} bytes, shorter than the ${prevSize} already backed up`;
      else if (prevSha !== prev.sha256) why = `its first ${prevSize} bytes, already backed up, have changed`;
    }
    if (kind === 'lake' && prev && prevSize > 0 && prevSha === null && !why) {
      why = `the file is ${size} bytes, shorter than the ${prevSize} already backed up`;
    }
    return { ok: !why, why, extent, extentSha, prevSha, badRanges: bad };
  } finally {
    fs.closeSync(fd);
  }
}

function extraCheck(fd: number, r: Range, bad: Range[]): void {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, r.to - r.from)));
  let p = r.from;
  while (p < r.to) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, r.to - p), p);
    if (n <= 0) {
      bad.push(r);
      return;
    }
    h.update(buf.subarray(0, n));
    p += n;
  }
  if (h.digest('hex') !== r.sha) bad.push(r);
}
