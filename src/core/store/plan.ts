// What one sync pushes and what it checks at the store first (the local half of sync.ts's care):
//   1. every changed local file is checked against the manifest (lake) or what was backed up
//      (manifest, meta); one that fails is kept out of the push and reported;
//   2. every file about to be pushed whose store copy may exist gets a store-side check (script.ts):
//      files in the ledger against what was backed up, new files against nothing (the store should
//      not have them), folders of new files the store has never had by one guard line each;
//   3. a rotating slice of unchanged files is checked too (a flipped bit changes no mtime).
// After a round whose step stopped before rsync ran (`again`), nextRound turns what the store
// reported into exact checks: our own hash at the store copy's length, or the file kept out.
import * as path from 'node:path';
import { hashRange } from '../floor/ranges';
import type { Env } from '../home';
import type { Finding } from './findings';
import { kindOf, type FloorFile } from './floorfiles';
import { EMPTY_SHA256, type Ledger, type LedgerEntry } from './ledger';
import { checkLocal, type Range } from './localcheck';
import { isGuard, scriptSafe, type ParsedCheck, type ScriptItem, type StoreCheck } from './script';
import { setting } from '../settings';

export interface Planned {
  entry: LedgerEntry;
  excluded: boolean;
}

export interface Plan {
  files: Map<string, FloorFile>;
  planned: Map<string, Planned>;
  findings: Finding[];
  /** Store-side checks and guards, most important first. */
  items: ScriptItem[];
  /** Items that must run before their files are pushed (a scrub check may wait for a later sync). */
  must: Set<ScriptItem>;
  /** The new files each guard line stands for. */
  guarded: Map<string, string[]>;
  lastScrubbed?: string;
}

export function planSync(home: string, env: Env, files: Map<string, FloorFile>, ranges: Map<string, Range[]>, ledger: Ledger, at: string): Plan {
  const p: Planning = { home, at, files, ranges, planned: new Map(), findings: [], must: new Set(), fresh: [] };
  const first: ScriptItem[] = [];
  const scrub: ScriptItem[] = [];
  const unchanged = planChanged(p, ledger, first);
  const { items: fresh, guarded } = planNew(p, ledger);
  const lastScrubbed = planScrub(p, env, ledger, unchanged, scrub);
  return { files, planned: p.planned, findings: p.findings, items: [...first, ...fresh, ...scrub], must: p.must, guarded, lastScrubbed };
}

/** What planSync gathers as it goes. */
interface Planning {
  home: string;
  at: string;
  files: Map<string, FloorFile>;
  ranges: Map<string, Range[]>;
  planned: Map<string, Planned>;
  findings: Finding[];
  must: Set<ScriptItem>;
  /** Files to push that the store should not have yet. */
  fresh: string[];
}

/** Checks ours locally; plans the push and the store-side check (`storeAt`: what the store copy
 * must start with, when not what the ledger says was backed up). */
function examine(p: Planning, f: FloorFile, e: LedgerEntry | undefined, to: ScriptItem[], storeAt?: { size: number; sha256: string }): void {
  const abs = path.join(p.home, f.rel);
  const kind = kindOf(f.rel);
  let lc;
  try {
    lc = checkLocal(abs, kind, p.ranges.get(f.rel), e ? { size: e.size, sha256: e.sha256 } : undefined);
  } catch (err) {
    lc = { ok: false, why: `cannot read it: ${(err as Error).message}`, extent: 0, extentSha: EMPTY_SHA256, badRanges: [] as Range[] };
  }
  const want = storeAt ?? (e && e.size > 0 ? { size: e.size, sha256: e.sha256 } : undefined);
  if (!lc.ok) {
    const fnd: Finding = {
      code: 'local-corrupt',
      path: f.rel,
      message: `${f.rel}: ${lc.why}. It is not pushed, so the store's copy is kept; restore it from the store (\`brain verify --store\` names the good copy)`,
      matches: kind === 'lake' ? 'store' : 'unknown',
      at: p.at,
    };
    p.findings.push(fnd);
    p.planned.set(f.rel, {
      excluded: true,
      entry: { ...(e ?? { size: 0, sha256: EMPTY_SHA256, synced_at: '' }), seen_size: f.size, seen_mtime: f.mtimeMs, problem: fnd },
    });
    if (want && scriptSafe(f.rel)) to.push({ rel: f.rel, size: want.size, sha256: want.sha256, localSize: f.size, repair: false });
    return;
  }
  p.planned.set(f.rel, { excluded: false, entry: { size: lc.extent, sha256: lc.extentSha, seen_size: f.size, seen_mtime: f.mtimeMs, synced_at: p.at } });
  if (!scriptSafe(f.rel)) {
    p.findings.push({ code: 'unsafe-name', path: f.rel, message: `${f.rel}: its name cannot be checked at the store before the push; rsync's own verification still applies`, at: p.at });
    return;
  }
  if (!want) {
    p.fresh.push(f.rel);
    return;
  }
  const c: StoreCheck = { rel: f.rel, size: want.size, sha256: want.sha256, localSize: f.size, repair: true };
  to.push(c);
  p.must.add(c);
}

/** A file kept out of the push with its problem said again; the store copy is still checked
 * against what was backed up. */
function keepOut(p: Planning, f: FloorFile, e: LedgerEntry & { problem: Finding }, entry: LedgerEntry, to: ScriptItem[]): void {
  p.planned.set(f.rel, { excluded: true, entry });
  p.findings.push(e.problem);
  if (e.size > 0 && scriptSafe(f.rel)) to.push({ rel: f.rel, size: e.size, sha256: e.sha256, localSize: f.size, repair: false });
}

/** 1. Changed files (and files whose problem may have been fixed), their checks into `first`.
 * Returns the unchanged files backed up with bytes, in order: those a scrub may look at. */
function planChanged(p: Planning, ledger: Ledger, first: ScriptItem[]): string[] {
  const unchanged: string[] = [];
  for (const rel of [...p.files.keys()].sort()) {
    const f = p.files.get(rel)!;
    const e = ledger.files[rel];
    if (e?.problem?.code === 'store-longer') {
      planStoreLonger(p, f, e as LedgerEntry & { problem: Finding }, first);
      continue;
    }
    const changed = !e || e.seen_size !== f.size || e.seen_mtime !== f.mtimeMs;
    if (changed) examine(p, f, e, first);
    // Unchanged since it failed: keep it out of the push and keep saying so.
    else if (e.problem) keepOut(p, f, e as LedgerEntry & { problem: Finding }, e, first);
    else if (e.size > 0) unchanged.push(rel);
  }
  return unchanged;
}

/** A file whose store copy was longer than ours. */
function planStoreLonger(p: Planning, f: FloorFile, e: LedgerEntry & { problem: Finding }, first: ScriptItem[]): void {
  const sz = e.problem.store_size ?? 0;
  if (f.size < sz) {
    // Still shorter than the store's copy: not pushed (rsync would not append to it anyway, and
    // ours may grow past it before rsync looks).
    keepOut(p, f, e, { ...e, seen_size: f.size, seen_mtime: f.mtimeMs }, first);
    return;
  }
  // Ours has reached the store copy's length: the store copy must be ours up to there. If it
  // is, rsync appends the rest; if not, it is moved aside (kept) and ours is sent whole.
  let sha: string | null = null;
  try {
    sha = sz > 0 ? hashRange(path.join(p.home, f.rel), 0, sz) : EMPTY_SHA256;
  } catch {
    /* unreadable: examine reports it */
  }
  examine(p, f, { ...e, problem: undefined }, first, sha ? { size: sz, sha256: sha } : undefined);
}

/** 2. New files: by name in folders the store already has, by one guard per folder it never had.
 * Returns their checks and guards, and the new files each guard stands for. */
function planNew(p: Planning, ledger: Ledger): { items: ScriptItem[]; guarded: Map<string, string[]> } {
  const known = new Set<string>();
  for (const rel of Object.keys(ledger.files)) known.add(path.posix.dirname(rel));
  const guarded = new Map<string, string[]>();
  const items: ScriptItem[] = [];
  for (const rel of p.fresh) {
    const dir = path.posix.dirname(rel);
    if (known.has(dir)) {
      const c: StoreCheck = { rel, size: 0, sha256: EMPTY_SHA256, localSize: p.files.get(rel)!.size, repair: true };
      items.push(c);
      p.must.add(c);
      continue;
    }
    let g = guarded.get(dir);
    if (!g) {
      guarded.set(dir, (g = []));
      const item = { dir };
      items.push(item);
      p.must.add(item);
    }
    g.push(rel);
  }
  return { items, guarded };
}

/** 3. A rotating slice of unchanged files: their local copy is re-verified and their store copy
 * checked, so every file is looked at again over time. Returns the last file of the slice. */
function planScrub(p: Planning, env: Env, ledger: Ledger, unchanged: string[], scrub: ScriptItem[]): string | undefined {
  const budget = setting(env, 'BRAIN_SCRUB_BYTES');
  const maxFiles = setting(env, 'BRAIN_SCRUB_FILES');
  let startIdx = 0;
  if (ledger.scrub_after) {
    const i = unchanged.findIndex((r) => r > ledger.scrub_after!);
    startIdx = i < 0 ? 0 : i;
  }
  let used = 0;
  let lastScrubbed: string | undefined;
  for (let k = 0; k < unchanged.length && k < maxFiles; k++) {
    const rel = unchanged[(startIdx + k) % unchanged.length];
    const e = ledger.files[rel];
    if (k > 0 && used + e.size > budget) break;
    used += e.size;
    lastScrubbed = rel;
    if (!scriptSafe(rel)) continue;
    examine(p, p.files.get(rel)!, e, scrub);
    const pl = p.planned.get(rel);
    // Unchanged and still verifying: its ledger entry stays as it was (same bytes vouched for).
    if (pl && !pl.excluded) pl.entry = { ...e };
  }
  // A scrub check need not run before its (unchanged) file is pushed: it may wait for a later sync.
  for (const i of scrub) p.must.delete(i);
  return lastScrubbed;
}

/** Keeps the files of items that did not fit out of this push (they stay due for the next one). */
export function deferItems(plan: Plan, items: ScriptItem[]): string[] {
  const out: string[] = [];
  for (const i of items) {
    if (!plan.must.has(i)) continue;
    for (const rel of isGuard(i) ? (plan.guarded.get(i.dir) ?? []) : [i.rel]) {
      if (plan.planned.get(rel)?.excluded) continue;
      plan.planned.delete(rel);
      out.push(rel);
    }
  }
  return out;
}

export interface Round {
  /** The items for the next round. */
  items: ScriptItem[];
  /** Files kept out of the push from now on, each with why. */
  kept: { rel: string; status: ParsedCheck['status']; size: number }[];
}

/**
 * After a step that stopped before rsync ran: each file about to be pushed whose store copy was
 * not shown to be a prefix of ours gets an exact check (our hash at the store copy's length) or is
 * kept out of the push (a store copy longer than ours, or one that differs and could not be moved);
 * the new files of a guarded folder that exists are checked by name.
 */
export function nextRound(home: string, plan: Plan, items: ScriptItem[], checks: Map<string, ParsedCheck>, dirs: string[]): Round {
  const next: ScriptItem[] = [];
  const kept: Round['kept'] = [];
  const present = new Set(dirs);
  for (const i of items) {
    if (isGuard(i)) {
      if (!present.has(i.dir)) {
        next.push(i);
        continue;
      }
      for (const rel of plan.guarded.get(i.dir) ?? []) {
        if (plan.planned.get(rel)?.excluded) continue;
        const c: StoreCheck = { rel, size: 0, sha256: EMPTY_SHA256, localSize: plan.files.get(rel)!.size, repair: true };
        next.push(c);
        plan.must.add(c);
      }
      continue;
    }
    const r = checks.get(i.rel);
    if (!i.repair || !r || r.status === 'ok' || r.status === 'missing' || r.status === 'moved') {
      next.push(i);
      continue;
    }
    if ((r.status === 'unknown' || r.status === 'short') && r.size <= i.localSize) {
      let sha: string | null = null;
      try {
        sha = hashRange(path.join(home, i.rel), 0, r.size);
      } catch {
        /* unreadable now: kept out below */
      }
      if (sha) {
        const c: StoreCheck = { ...i, size: r.size, sha256: sha };
        next.push(c);
        plan.must.add(c);
        continue;
      }
    }
    const pl = plan.planned.get(i.rel);
    if (pl) pl.excluded = true;
    kept.push({ rel: i.rel, status: r.status, size: r.size });
    next.push({ ...i, repair: false });
  }
  return { items: next, kept };
}
