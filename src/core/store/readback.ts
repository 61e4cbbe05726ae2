// Read-back: a copy is not a backup until bytes at the destination re-hash to the sha256 in OUR
// manifest (not the destination's copy of it, which could be wrong in the same way). Samples ranges
// at random by default (evidence, not proof); `all` re-hashes every range. Works on any folder that
// holds lake/ (a `brain backup` destination, a local store's <store>/<machine>/), and on an ssh
// store by first pulling the sampled files into a temporary folder (reading only, one connection).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { within } from '../safepath';
import type { Config } from '../config';
import { layout, type Env } from '../home';
import { hashRange } from '../floor/ranges';
import { manifestRanges, type Range } from './localcheck';
import { openTransport } from './transport';
import { sample } from '../sample';

export interface ReadbackProblem {
  kind: 'mismatch' | 'missing' | 'short' | 'manifest';
  path: string;
  message: string;
  line_from?: number;
  line_to?: number;
}

export interface ReadbackReport {
  dest: string;
  /** Ranges in our manifest. */
  ranges: number;
  /** Ranges re-hashed at the destination. */
  checked: number;
  files: number;
  bytes: number;
  problems: ReadbackProblem[];
}

export interface SampleOptions {
  all?: boolean;
  /** How many ranges to re-hash (default 64). */
  count?: number;
  seed?: number;
}

/** A random sample of ranges (every range with `all`), grouped by lake path. */
export function pickSample(ranges: Map<string, Range[]>, opts: SampleOptions = {}): Map<string, Range[]> {
  if (opts.all) return ranges;
  const flat: [string, Range][] = [];
  for (const [lp, rs] of ranges) for (const r of rs) flat.push([lp, r]);
  const out = new Map<string, Range[]>();
  for (const [lp, r] of sample(flat, Math.max(1, opts.count ?? 64), opts.seed ?? Date.now())) {
    let a = out.get(lp);
    if (!a) out.set(lp, (a = []));
    a.push(r);
  }
  return out;
}

/** Re-hashes the picked ranges under `destRoot` (which holds lake/...). */
export function readbackAt(destRoot: string, picked: Map<string, Range[]>, totalRanges: number): ReadbackReport {
  const rep: ReadbackReport = { dest: destRoot, ranges: totalRanges, checked: 0, files: picked.size, bytes: 0, problems: [] };
  for (const [lp, rs] of picked) {
    const abs = path.join(destRoot, lp);
    let size: number;
    try {
      size = fs.statSync(abs).size;
    } catch {
      rep.problems.push({ kind: 'missing', path: lp, message: `not at the destination (${rs.length} range${rs.length > 1 ? 's' : ''} expected)` });
      continue;
    }
    for (const r of rs) {
      rep.checked++;
      if (size < r.to) {
        rep.problems.push({ kind: 'short', path: lp, message: `is ${size} bytes, but lines ${r.line_from}-${r.line_to} end at byte ${r.to}`, line_from: r.line_from, line_to: r.line_to });
        continue;
      }
      const h = hashRange(abs, r.from, r.to);
      rep.bytes += r.to - r.from;
      if (h !== r.sha) {
        rep.problems.push({ kind: 'mismatch', path: lp, message: `lines ${r.line_from}-${r.line_to} (bytes ${r.from}-${r.to}) hash to ${h.slice(0, 12)}…, the manifest says ${r.sha.slice(0, 12)}…`, line_from: r.line_from, line_to: r.line_to });
      }
    }
  }
  return rep;
}

function sha256File(file: string, upTo: number): string {
  return upTo === 0 ? createHash('sha256').digest('hex') : hashRange(file, 0, upTo);
}

/** The destination's manifest must start with every complete line of ours that it holds. */
export function compareManifest(localManifest: string, destManifest: string): ReadbackProblem | null {
  let ls: number;
  let ds: number;
  try {
    ls = fs.statSync(localManifest).size;
  } catch {
    return null;
  }
  try {
    ds = fs.statSync(destManifest).size;
  } catch {
    return { kind: 'missing', path: 'manifest/manifest.jsonl', message: 'the manifest is not at the destination' };
  }
  const n = Math.min(ls, ds);
  if (sha256File(localManifest, n) !== sha256File(destManifest, n)) {
    return { kind: 'manifest', path: 'manifest/manifest.jsonl', message: `the destination's manifest differs from ours in its first ${n} bytes` };
  }
  return null;
}

/** Read-back of a local folder: our manifest's sampled ranges against `destRoot`. */
export function readbackFolder(home: string, destRoot: string, opts: SampleOptions & { manifest?: boolean } = {}): ReadbackReport {
  const { ranges } = manifestRanges(layout(home).manifest);
  let total = 0;
  for (const rs of ranges.values()) total += rs.length;
  const rep = readbackAt(destRoot, pickSample(ranges, opts), total);
  if (opts.manifest !== false) {
    const p = compareManifest(layout(home).manifest, path.join(destRoot, 'manifest', 'manifest.jsonl'));
    if (p) rep.problems.push(p);
  }
  return rep;
}

export type StoreReadback = { ok: true; report: ReadbackReport } | { ok: false; label: string; message: string; hint: string };

/** `brain verify --store`: the same read-back against the configured store's copy of this machine. */
export async function readbackStore(home: string, cfg: Config, env: Env, opts: SampleOptions = {}): Promise<StoreReadback> {
  const store = cfg.store;
  if (!store) return { ok: false, label: 'backup not set up', message: `${cfg.file} has no [store]`, hint: 'run `brain init --store PATH`' };
  // A local store is re-hashed where it lies: fetching it first would read every byte twice.
  if (!store.host) {
    const dest = within(store.path, cfg.machine, { what: 'the machine name' });
    if (!fs.existsSync(dest)) return { ok: false, label: 'nothing at the store', message: `${dest} does not exist: this machine has not synced yet`, hint: 'run `brain sync --now`' };
    const rep = readbackFolder(home, dest, opts);
    rep.dest = dest;
    return { ok: true, report: rep };
  }
  const t = openTransport(cfg, env);
  if (!(await t.ready())) {
    return { ok: false, label: `no ssh master for ${store.host}`, message: `no ssh master for ${store.host} (ssh_mux_only)`, hint: `open one (ssh -fN ${store.host}), then try again` };
  }
  const { ranges } = manifestRanges(layout(home).manifest);
  let total = 0;
  for (const rs of ranges.values()) total += rs.length;
  const picked = pickSample(ranges, opts);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-readback-'));
  try {
    const into = path.join(tmp, 'copy');
    fs.mkdirSync(into);
    // A file not at the store is left out of the copy: the read-back reports each one by name.
    const r = await t.fetch([...picked.keys(), 'manifest/manifest.jsonl'], into);
    if (!r.ok) return { ok: false, ...r.failure };
    const rep = readbackAt(into, picked, total);
    const mp = compareManifest(layout(home).manifest, path.join(into, 'manifest', 'manifest.jsonl'));
    if (mp) rep.problems.push(mp);
    rep.dest = `${t.label}/${cfg.machine}`;
    return { ok: true, report: rep };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
