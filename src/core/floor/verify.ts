// verify: re-hash manifest ranges against lake files, check that each file's chunks are contiguous
// (no gap, no overlap, line numbers that follow), that line ranges hold the lines they claim, and
// that BRAIN_HOME's permissions are private. Works on any folder laid out like the floor, so the
// same code checks a store copy (<store>/<machine>/).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DIR_MODE, FILE_MODE } from '../home';
import { readManifest, type ManifestLine } from './manifest';
import { allOffsets } from './offsets';
import { openOrigin } from './origin';
import { firstDifference } from './ranges';
import { journalReach } from './journal';
import { spoolFiles } from './spool';
import { sample } from '../sample';
import { unsafeReason } from '../safepath';
import { openRegular } from '../safeopen';

export interface VerifyProblem {
  kind: 'mismatch' | 'missing' | 'short' | 'gap' | 'overlap' | 'lines' | 'unclaimed' | 'unmanifested' | 'permissions' | 'manifest' | 'origin' | 'unsafe-path';
  path: string;
  message: string;
  line?: ManifestLine;
}

export interface VerifyReport {
  root: string;
  chunks: number;
  checked: number;
  files: number;
  bytes_hashed: number;
  problems: VerifyProblem[];
  /** Lake bytes that an interrupted pass (a crash, a full disk) wrote and that a committed spool
   * entry will claim on the next capture: not a problem, a step not yet finished. */
  pending: { path: string; bytes: number }[];
}

export interface VerifyOptions {
  /** Re-hash only a random sample of this many ranges (contiguity is always checked in full). */
  sample?: number;
  seed?: number;
  /** Also compare each origin's current generation with the origin's prefix. */
  deep?: boolean;
  checkPermissions?: boolean;
  /** Restrict to lake paths for which this returns true. */
  filter?: (lakePath: string) => boolean;
}

export function verifyFloor(root: string, opts: VerifyOptions = {}): VerifyReport {
  const rep: VerifyReport = { root, chunks: 0, checked: 0, files: 0, bytes_hashed: 0, problems: [], pending: [] };
  const pending = pendingClaims(root);
  const manifestFile = path.join(root, 'manifest', 'manifest.jsonl');
  const m = readManifest(manifestFile);
  for (const b of m.bad) rep.problems.push({ kind: 'manifest', path: manifestFile, message: `line ${b.lineNo} is not a manifest record: ${b.text.slice(0, 80)}` });
  const byFile = new Map<string, ManifestLine[]>();
  for (const line of m.lines) {
    if (opts.filter && !opts.filter(line.lake_path)) continue;
    let a = byFile.get(line.lake_path);
    if (!a) byFile.set(line.lake_path, (a = []));
    a.push(line);
  }
  rep.chunks = [...byFile.values()].reduce((n, a) => n + a.length, 0);
  const claimedEnd = new Map<string, number>();
  let sampled: Set<ManifestLine> | null = null;
  if (opts.sample !== undefined && opts.sample < rep.chunks) {
    sampled = new Set(sample([...byFile.values()].flat(), opts.sample, opts.seed ?? Date.now()));
  }
  for (const [lp, chunks] of byFile) {
    rep.files++;
    chunks.sort((a, b) => a.byte_from - b.byte_from);
    // A manifest line is input (a store's was written by another machine): its path goes through
    // the guard, and one that leaves the floor or meets a symlink is reported, not read.
    const unsafe = /^lake\//.test(lp) ? unsafeReason(root, lp, { disk: true, file: true }) : 'is not under lake/';
    if (unsafe) {
      rep.problems.push({ kind: 'unsafe-path', path: lp, message: `lake_path named by ${chunks.length} manifest line(s) ${unsafe}: not read (nothing outside the floor is followed)` });
      continue;
    }
    const file = path.join(root, lp);
    let size = -1;
    try {
      size = fs.statSync(file).size;
    } catch {
      rep.problems.push({ kind: 'missing', path: lp, message: `lake file named by ${chunks.length} manifest line(s) is missing` });
      continue;
    }
    let expectByte = 0;
    let expectLine = 1;
    for (const c of chunks) {
      if (c.byte_from > expectByte) rep.problems.push({ kind: 'gap', path: lp, message: `bytes ${expectByte}-${c.byte_from} are claimed by no manifest line`, line: c });
      else if (c.byte_from < expectByte) rep.problems.push({ kind: 'overlap', path: lp, message: `chunk ${c.byte_from}-${c.byte_to} overlaps the previous one (ends at ${expectByte})`, line: c });
      else if (c.line_from !== expectLine) rep.problems.push({ kind: 'lines', path: lp, message: `chunk ${c.byte_from}-${c.byte_to} starts at line ${c.line_from}, expected ${expectLine}`, line: c });
      expectByte = c.byte_to;
      expectLine = c.line_to + 1;
      if (sampled && !sampled.has(c)) continue;
      rep.checked++;
      if (size < c.byte_to) {
        rep.problems.push({ kind: 'short', path: lp, message: `file is ${size} bytes; manifest claims bytes ${c.byte_from}-${c.byte_to} (lines ${c.line_from}-${c.line_to})`, line: c });
        continue;
      }
      const { sha, newlines, lastByte } = hashAndCount(file, c.byte_from, c.byte_to);
      rep.bytes_hashed += c.byte_to - c.byte_from;
      if (sha !== c.chunk_sha256) {
        rep.problems.push({ kind: 'mismatch', path: lp, message: `lines ${c.line_from}-${c.line_to} (bytes ${c.byte_from}-${c.byte_to}) hash ${sha.slice(0, 12)}…, manifest says ${c.chunk_sha256.slice(0, 12)}…`, line: c });
        continue;
      }
      const expected = c.line_to - c.line_from + 1;
      const got = newlines + (lastByte === 10 ? 0 : 1);
      if (got !== expected || (!c.unterminated && lastByte !== 10)) {
        rep.problems.push({ kind: 'lines', path: lp, message: `bytes ${c.byte_from}-${c.byte_to} hold ${got} line(s), manifest says ${expected} (lines ${c.line_from}-${c.line_to})`, line: c });
      }
    }
    claimedEnd.set(lp, expectByte);
    if (!sampled && size > expectByte) {
      if ((pending.get(lp) ?? -1) >= size) rep.pending.push({ path: lp, bytes: size - expectByte });
      else rep.problems.push({ kind: 'unclaimed', path: lp, message: `${size - expectByte} bytes after byte ${expectByte} are claimed by no manifest line` });
    }
  }
  if (!opts.filter) {
    for (const lp of listLake(root)) {
      if (byFile.has(lp)) continue;
      if (fs.lstatSync(path.join(root, lp), { throwIfNoEntry: false })?.isSymbolicLink()) {
        rep.problems.push({ kind: 'unsafe-path', path: lp, message: 'a symlink in the lake (recall and verify never follow it): remove it' });
        continue;
      }
      const size = fileSizeOf(path.join(root, lp));
      if ((pending.get(lp) ?? -1) >= size) rep.pending.push({ path: lp, bytes: size });
      else rep.problems.push({ kind: 'unmanifested', path: lp, message: 'lake file has no manifest line' });
    }
  }
  recheckUnclaimed(root, rep, manifestFile, m.length, claimedEnd);
  if (opts.checkPermissions) checkPermissions(root, rep);
  if (opts.deep) deepCompare(root, byFile, rep);
  return rep;
}

/** How far the committed chunk entries waiting in the spool reach, per lake file. Read only: the
 * spool is not touched (a store copy has none). */
function pendingClaims(root: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [dir, n] of spoolFiles(path.join(root, 'spool'))) {
    if (!n.endsWith('.json') || n.startsWith('.tmp-')) continue;
    try {
      const p = path.join(dir, n);
      if (!fs.lstatSync(p).isFile()) continue;
      const e = JSON.parse(fs.readFileSync(p, 'utf8')) as { kind?: string; line?: { lake_path?: unknown; byte_to?: unknown } };
      if (e.kind !== 'chunk' || typeof e.line?.lake_path !== 'string' || typeof e.line.byte_to !== 'number') continue;
      out.set(e.line.lake_path, Math.max(out.get(e.line.lake_path) ?? 0, e.line.byte_to));
    } catch {
      /* not an entry this check can read: capture decides what it is */
    }
  }
  journalReach(path.join(root, 'spool'), out);
  return out;
}

/** A pass that runs while verify reads may start a batch or commit one (its manifest lines written,
 * its journal removed) between verify's reads of the journals, the manifest and a lake file's size,
 * so bytes seen as claimed by nothing can be a step in progress. Each such finding is looked at
 * again a few times over about a second, against fresh journals and the manifest's new lines:
 * bytes a pass has claimed or journalled meanwhile are no problem; bytes nothing claims for that
 * long stay reported. */
function recheckUnclaimed(root: string, rep: VerifyReport, manifestFile: string, manifestLength: number, claimedEnd: Map<string, number>): void {
  let suspects = rep.problems.filter((p) => p.kind === 'unclaimed' || p.kind === 'unmanifested');
  let from = manifestLength;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let round = 1; round <= 4 && suspects.length; round++) {
    Atomics.wait(pause, 0, 0, 100 * round);
    const pending = pendingClaims(root);
    const more = readManifest(manifestFile, from);
    from = more.length;
    for (const l of more.lines) claimedEnd.set(l.lake_path, Math.max(claimedEnd.get(l.lake_path) ?? 0, l.byte_to));
    const still: VerifyProblem[] = [];
    for (const p of suspects) {
      const size = fileSizeOf(path.join(root, p.path));
      const claimed = claimedEnd.get(p.path) ?? 0;
      const reach = pending.get(p.path) ?? -1;
      if (claimed >= size || reach >= size) {
        rep.problems.splice(rep.problems.indexOf(p), 1);
        if (claimed < size) rep.pending.push({ path: p.path, bytes: size - claimed });
      } else still.push(p);
    }
    suspects = still;
  }
}

function fileSizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function hashAndCount(file: string, from: number, to: number): { sha: string; newlines: number; lastByte: number } {
  const h = createHash('sha256');
  const fd = openRegular(file);
  let newlines = 0;
  let lastByte = -1;
  try {
    const buf = Buffer.allocUnsafe(Math.min(4 << 20, Math.max(1, to - from)));
    let pos = from;
    while (pos < to) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
      if (n === 0) break;
      const b = buf.subarray(0, n);
      h.update(b);
      let i = b.indexOf(10);
      while (i >= 0) {
        newlines++;
        i = b.indexOf(10, i + 1);
      }
      lastByte = b[n - 1];
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { sha: h.digest('hex'), newlines, lastByte };
}

function listLake(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    let ents: fs.Dirent[];
    try {
      ents = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of ents) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (!e.name.startsWith('.tmp-')) out.push(r);
    }
  };
  walk(path.join(root, 'lake'), 'lake');
  return out;
}

function checkPermissions(root: string, rep: VerifyReport): void {
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode & 0o077) rep.problems.push({ kind: 'permissions', path: p, message: `folder mode ${mode.toString(8)}, expected ${DIR_MODE.toString(8)}`, });
      for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    } else if (st.isFile() && mode & 0o077) {
      rep.problems.push({ kind: 'permissions', path: p, message: `file mode ${mode.toString(8)}, expected ${FILE_MODE.toString(8)}` });
    }
  };
  walk(root);
}

function deepCompare(root: string, byFile: Map<string, ManifestLine[]>, rep: VerifyReport): void {
  for (const off of allOffsets(path.join(root, 'offsets'))) {
    const chunks = byFile.get(off.lake_path);
    if (!chunks || chunks.length === 0 || off.rows) continue;
    const end = chunks[chunks.length - 1].byte_to;
    // Origin gone (swept by its agent: the floor is now the only copy) or no longer a regular file:
    // nothing to compare.
    const o = openOrigin(off.origin_raw ? Buffer.from(off.origin_raw, 'base64') : off.origin);
    if (!('fd' in o)) continue;
    const ofd = o.fd;
    try {
      const lake = path.join(root, off.lake_path);
      const lfd = fs.openSync(lake, 'r');
      try {
        const at = firstDifference(ofd, lfd, end, true);
        if (at >= 0) rep.problems.push({ kind: 'origin', path: off.lake_path, message: `origin ${off.origin} differs from the lake at byte ${at} (0-based offset; rewritten since capture; the next record opens a new generation)` });
      } finally {
        fs.closeSync(lfd);
      }
    } finally {
      fs.closeSync(ofd);
    }
  }
}
