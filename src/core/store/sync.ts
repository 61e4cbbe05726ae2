// One sync: check what is about to be pushed, push it in one rsync, record the result.
//
// Under a non-blocking kernel lock (locks/sync.lock, released when the holder dies): a second sync
// exits at once; `--now` first leaves a pending mark, and the holder syncs again before it lets go
// (and re-checks after unlocking, for a mark left in between).
//
// Corruption, the careful part. rsync --append-verify appends to a store file shorter than ours and
// then checks the whole file; when that check fails it re-sends the whole file, silently replacing
// the store's copy, and it skips store files as long as ours or longer without looking at them. So:
//   1. Before the push, every changed local file is checked: lake files against every manifest
//      range, manifest/meta files against the sha256 of what was already backed up (ledger). A file
//      that fails is excluded from the push (--exclude-from) and reported; the store's copy, the
//      backup of record, is never overwritten by it.
//   2. On the store side, before rsync runs and in the same connection (script.ts), each file about
//      to grow, and a rotating slice of the unchanged ones, is checked against the ledger: the
//      store's first N bytes must still hash to what we sent. A store copy that differs while ours
//      verifies is moved aside to .brain/replaced/<stamp>/ (kept, never deleted) and rsync sends ours
//      whole: that is the repair, and it is reported. A store copy longer than ours is reported and
//      not pushed over.
//   3. rsync's own "failed verification" warnings are still read, for the one case the checks
//      cannot foresee (a store tail past what we vouched for, e.g. an interrupted earlier sync).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readConfig, type Config } from '../config';
import { noteFailure } from '../failures';
import { tryLock } from '../floor/lock';
import { writeFileAtomic } from '../floor/durable';
import { layout, mkdirPrivate, type Env } from '../home';
import { hashRange } from '../floor/ranges';
import type { Finding } from './findings';
import { kindOf, listFloor, walkFloor, type FloorFile } from './floorfiles';
import { EMPTY_SHA256, readLedger, writeLedger, type Ledger, type LedgerEntry } from './ledger';
import { checkLocal, manifestRanges, type Range } from './localcheck';
import { SYNCED_DIRS, syncPaths } from './paths';
import { scriptSafe, type StoreCheck } from './script';
import { findingsLabel, mtimeOf, readState, writeState, type SyncState } from './state';
import { envNumber, excludeLine, muxCheck, push, storeLabel, type RsyncRun } from './transport';
import { VERSION } from './version';

export type SyncOutcome =
  | { kind: 'busy'; pendingMarked: boolean }
  | { kind: 'not-configured'; message: string; hint?: string }
  | { kind: 'nothing' }
  | { kind: 'done'; state: SyncState; run?: RsyncRun };

export interface SyncOptions {
  /** Sync even if nothing changed; if another sync holds the lock, leave a pending mark. */
  now?: boolean;
  env?: Env;
  /** Extra rsync arguments (tests and bench). */
  extraRsync?: string[];
}

function touch(file: string, atMs: number): void {
  mkdirPrivate(path.dirname(file));
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  const t = new Date(atMs);
  fs.utimesSync(file, t, t);
}

/** Is there anything to sync? A floor file newer than last-ok whose stat differs from the ledger.
 * A last-ok in the future (the clock went back) makes everything due. */
export function isDue(home: string, now = Date.now()): boolean {
  const p = syncPaths(home);
  if (fs.existsSync(p.recheck)) return true;
  const lastOk = mtimeOf(p.lastOk);
  if (lastOk === null || lastOk > now) {
    let any = false;
    walkFloor(home, () => (any = true));
    return any;
  }
  const newer: FloorFile[] = [];
  walkFloor(home, (f) => {
    if (f.mtimeMs >= lastOk) newer.push(f);
  });
  if (newer.length === 0) return false;
  const ledger = readLedger(p.ledger);
  return newer.some((f) => {
    const e = ledger.files[f.rel];
    return !e || e.seen_size !== f.size || e.seen_mtime !== f.mtimeMs;
  });
}

export async function runSync(home: string, opts: SyncOptions = {}, depth = 0): Promise<SyncOutcome> {
  const env = opts.env ?? process.env;
  const p = syncPaths(home);
  const r = readConfig(home, env);
  if (r.kind === 'missing') return { kind: 'not-configured', message: `no config at ${r.file}`, hint: 'run `brain init --store PATH` (or HOST:PATH)' };
  if (r.kind === 'invalid') return { kind: 'not-configured', message: r.error.message, hint: r.error.hint };
  const cfg = r.config;
  if (!cfg.store) return { kind: 'not-configured', message: `${cfg.file} has no [store]`, hint: 'run `brain init --store PATH` (or HOST:PATH)' };
  mkdirPrivate(p.locks);
  const lock = await tryLock(p.locks, 'sync');
  if (!lock) {
    if (opts.now) touch(p.pending, Date.now());
    return { kind: 'busy', pendingMarked: !!opts.now };
  }
  let outcome: SyncOutcome = { kind: 'nothing' };
  try {
    let force = !!opts.now;
    for (let round = 0; round < 10; round++) {
      fs.rmSync(p.pending, { force: true });
      if (!force && !isDue(home)) break;
      outcome = await syncOnce(home, cfg, env, opts);
      // Stopped by a signal: the caller is going away, nothing more is started.
      if (outcome.kind === 'done' && outcome.run?.interrupted) return outcome;
      if (!fs.existsSync(p.pending)) break;
      force = true;
    }
  } finally {
    lock.release();
  }
  // A --now that arrived after our last look but before the release found the lock held: honour it.
  if (fs.existsSync(p.pending) && depth < 3) {
    const again = await runSync(home, { ...opts, now: true }, depth + 1);
    if (again.kind === 'done') return again;
  }
  return outcome;
}

function stageVersion(home: string, cfg: Config, startIso: string): string {
  const p = syncPaths(home);
  const dir = path.join(p.stage, '.brain');
  const file = path.join(dir, `${VERSION}.json`);
  // One file per version, written once: --append-verify would not update a file whose length
  // stayed the same, and a second rsync for a status file would cost a second connection.
  if (!fs.existsSync(file)) {
    writeFileAtomic(
      file,
      JSON.stringify({ version: VERSION, machine: cfg.machine, first_sync: startIso, platform: `${os.platform()}-${os.arch()}`, node: process.version }) + '\n',
    );
  }
  return dir;
}

function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}

interface Planned {
  entry: LedgerEntry;
  excluded: boolean;
}

async function syncOnce(home: string, cfg: Config, env: Env, opts: SyncOptions): Promise<SyncOutcome> {
  const p = syncPaths(home);
  const l = layout(home);
  const start = Date.now();
  const startIso = new Date(start).toISOString();
  const store = cfg.store!;
  const where = storeLabel(cfg);
  const base: Omit<SyncState, 'status' | 'message' | 'warning' | 'findings'> = {
    v: 1,
    time: startIso,
    store: where,
    machine: cfg.machine,
    last_ok: readState(home)?.last_ok,
  };

  if (store.ssh_mux_only && !(await muxCheck(cfg, env))) {
    const state: SyncState = {
      ...base,
      status: 'skipped',
      message: `no ssh master for ${store.host}: sync skipped (ssh_mux_only)`,
      warning: `no ssh master for ${store.host}`,
      hint: `open one (ssh -fN ${store.host} with ControlMaster and ControlPath set in ~/.ssh/config), then run \`brain sync --now\``,
      findings: carriedProblems(readLedger(p.ledger)),
    };
    noteUnsynced(home);
    writeState(home, state);
    return { kind: 'done', state };
  }

  // The manifest is read before the floor is listed: the capture writes lake bytes before the
  // manifest line that claims them, so no claim read here can exceed a size listed after.
  const { ranges } = manifestRanges(l.manifest);
  const files = listFloor(home);
  const ledger = readLedger(p.ledger);
  const findings: Finding[] = [];
  const checks: StoreCheck[] = [];
  const planned = new Map<string, Planned>();
  const checkFor = new Map<string, StoreCheck>();
  const at = startIso;
  const rels = [...files.keys()].sort();

  const addCheck = (c: StoreCheck) => {
    checks.push(c);
    checkFor.set(c.rel, c);
  };

  const examine = (f: FloorFile, e: LedgerEntry | undefined): void => {
    const abs = path.join(home, f.rel);
    const kind = kindOf(f.rel);
    let lc;
    try {
      lc = checkLocal(abs, kind, ranges.get(f.rel), e ? { size: e.size, sha256: e.sha256 } : undefined);
    } catch (err) {
      lc = { ok: false, why: `cannot read it: ${(err as Error).message}`, extent: 0, extentSha: EMPTY_SHA256, badRanges: [] as Range[] };
    }
    if (!lc.ok) {
      const fnd: Finding = {
        code: 'local-corrupt',
        path: f.rel,
        message: `${f.rel}: ${lc.why}. It is not pushed, so the store's copy is kept; restore it from the store (\`brain verify --store\` names the good copy)`,
        matches: kind === 'lake' ? 'store' : 'unknown',
        at,
      };
      findings.push(fnd);
      planned.set(f.rel, {
        excluded: true,
        entry: { ...(e ?? { size: 0, sha256: EMPTY_SHA256, synced_at: '' }), seen_size: f.size, seen_mtime: f.mtimeMs, problem: fnd },
      });
      if (e && e.size > 0) addCheck({ rel: f.rel, size: e.size, sha256: e.sha256, localSize: f.size, repair: false });
      return;
    }
    planned.set(f.rel, { excluded: false, entry: { size: lc.extent, sha256: lc.extentSha, seen_size: f.size, seen_mtime: f.mtimeMs, synced_at: startIso } });
    if (e && e.size > 0) {
      if (scriptSafe(f.rel)) addCheck({ rel: f.rel, size: e.size, sha256: e.sha256, localSize: f.size, repair: true });
      else findings.push({ code: 'unsafe-name', path: f.rel, message: `${f.rel}: its name cannot be checked at the store before the push; rsync's own verification still applies`, at });
    }
  };

  // 1. Changed files (and files whose problem may have been fixed).
  const unchanged: string[] = [];
  for (const rel of rels) {
    const f = files.get(rel)!;
    const e = ledger.files[rel];
    if (e?.problem?.code === 'store-longer') {
      // The store holds bytes we never sent. Ours is not pushed over them until the store's copy is
      // shown to be a prefix of ours (rsync would otherwise re-send ours whole over it), changed or not.
      const sz = e.problem.store_size ?? 0;
      planned.set(rel, { excluded: true, entry: { ...e, seen_size: f.size, seen_mtime: f.mtimeMs } });
      findings.push(e.problem);
      if (scriptSafe(rel)) {
        if (f.size >= sz) {
          let sha: string | null = null;
          try {
            sha = sz > 0 ? hashRange(path.join(home, rel), 0, sz) : EMPTY_SHA256;
          } catch {
            /* unreadable: keep the problem */
          }
          if (sha) addCheck({ rel, size: sz, sha256: sha, localSize: f.size, repair: false });
        } else if (e.size > 0) addCheck({ rel, size: e.size, sha256: e.sha256, localSize: f.size, repair: false });
      }
      continue;
    }
    const changed = !e || e.seen_size !== f.size || e.seen_mtime !== f.mtimeMs;
    if (changed) {
      examine(f, e);
      continue;
    }
    if (e.problem) {
      // Unchanged since it failed: keep it out of the push and keep saying so.
      planned.set(rel, { excluded: true, entry: e });
      findings.push(e.problem);
      if (e.size > 0 && scriptSafe(rel)) addCheck({ rel, size: e.size, sha256: e.sha256, localSize: f.size, repair: false });
      continue;
    }
    if (e.size > 0) unchanged.push(rel);
  }

  // 2. A rotating slice of unchanged files: their local copy is re-verified (a flipped bit does not
  // change an mtime) and their store copy checked, so every file is looked at again over time.
  const budget = envNumber(env, 'BRAIN_SCRUB_BYTES', 64 * 1024 * 1024);
  const maxFiles = envNumber(env, 'BRAIN_SCRUB_FILES', 200);
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
    const f = files.get(rel)!;
    const before = planned.size;
    examine(f, e);
    const pl = planned.get(rel);
    if (pl && !pl.excluded) {
      // Unchanged and still verifying: keep its ledger entry as it was (same bytes vouched for).
      pl.entry = { ...e };
    }
    void before;
  }

  // Files the ledger knows that are gone locally are left alone: the store keeps them.
  const excluded = [...planned.entries()].filter(([, v]) => v.excluded).map(([k]) => k);
  mkdirPrivate(p.dir);
  writeFileAtomic(p.excludes, ['.tmp-*', '.checkpoint.json', ...excluded.map(excludeLine)].join('\n') + '\n', { sync: false });
  const stageDir = stageVersion(home, cfg, startIso);
  const sources = SYNCED_DIRS.map((d) => path.join(home, d)).filter((d) => fs.existsSync(d));
  sources.push(stageDir);
  const stamp = stampOf(start);
  let toSend = 0;
  for (const [rel, f] of files) {
    if (planned.get(rel)?.excluded) continue;
    toSend += Math.max(0, f.size - (ledger.files[rel]?.size ?? 0));
  }

  let run = await push({ cfg, env, sources, excludeFrom: p.excludes, checks, stamp, extra: opts.extraRsync, toSend });
  if (run.failure && !run.interrupted && store.ssh_mux_only && (await muxCheck(cfg, env))) {
    // Over a live master a retry costs no prompt and no touch: one, after a delay.
    await new Promise((res) => setTimeout(res, envNumber(env, 'BRAIN_RETRY_DELAY', 30) * 1000));
    if (await muxCheck(cfg, env)) {
      // The checks already ran (and any move aside happened): the retry re-checks the same files.
      run = await push({ cfg, env, sources, excludeFrom: p.excludes, checks, stamp: stampOf(Date.now()), extra: opts.extraRsync, toSend });
    }
  }

  let recheck = false;
  const clearProblem = (rel: string, prob: Finding) => {
    recheck = true;
    const e = ledger.files[rel];
    // seen_size -1: the next sync looks at the file afresh (checks and pushes it).
    if (e) planned.set(rel, { excluded: true, entry: { ...e, problem: undefined, seen_size: -1 } });
    const i = findings.indexOf(prob);
    if (i >= 0) findings.splice(i, 1);
  };

  // What the store-side checks found (they ran even if rsync failed afterwards).
  for (const [rel, c] of run.checks) {
    const want = checkFor.get(rel);
    if (!want) continue;
    const pl = planned.get(rel);
    const prob = pl?.entry.problem;
    switch (c.status) {
      case 'moved':
        findings.push({
          code: 'store-repaired',
          path: rel,
          message: `${rel}: the store's copy (${c.size} bytes) differed from what was backed up; our copy verifies${kindOf(rel) === 'lake' ? ' against the manifest' : ''}, so the store's copy was moved aside to .brain/replaced/${stamp}/${rel} and ours sent again`,
          matches: 'local',
          at,
        });
        break;
      case 'differs':
        if (prob && prob.code === 'local-corrupt') {
          prob.matches = 'neither';
          prob.message += `; the store's copy differs from what was backed up too, so neither side matches`;
        } else if (prob && prob.code === 'store-longer') {
          prob.message = `${rel}: the store's copy (${c.size} bytes) holds bytes that differ from ours within its first ${want.size}; it is left as it is and ours is not pushed over it`;
        } else {
          findings.push({ code: 'store-differs', path: rel, message: `${rel}: the store's copy differs from what was backed up and could not be moved aside; it was left as it is`, matches: 'local', at });
        }
        break;
      case 'longer': {
        if (prob && prob.code === 'local-corrupt') {
          prob.message += `; the store's copy is longer (${c.size} bytes)`;
          break;
        }
        const fnd: Finding = {
          code: 'store-longer',
          path: rel,
          message: `${rel}: the store's copy is ${c.size} bytes, longer than ours (${want.localSize}); it is left as it is and ours is not pushed over it (another machine with the same name, or a local file that lost its end?)`,
          matches: 'unknown',
          store_size: c.size,
          at: prob?.code === 'store-longer' ? prob.at : at,
        };
        if (prob && prob.code === 'store-longer') {
          const i = findings.indexOf(prob);
          if (i >= 0) findings.splice(i, 1);
        }
        findings.push(fnd);
        const e = pl?.entry ?? ledger.files[rel];
        if (e) planned.set(rel, { excluded: true, entry: { ...e, problem: fnd } });
        break;
      }
      case 'ok':
        if (prob && prob.code === 'local-corrupt') {
          prob.message = prob.message.replace(/; the store's copy.*$/, '') + `; the store's copy still matches what was backed up`;
          prob.matches = 'store';
        } else if (prob && prob.code === 'store-longer') {
          // The store's copy is a prefix of ours now (ours grew past it): from the next sync on it
          // is pushed again, and rsync appends our bytes after the store's.
          clearProblem(rel, prob);
        }
        break;
      case 'short':
        if (prob && prob.code === 'store-longer') {
          // Someone cut the store's copy back: re-check it as a prefix of ours at its new length
          // before anything is pushed over it.
          prob.store_size = c.size;
          prob.message = `${rel}: the store's copy is now ${c.size} bytes; it is checked against ours before ours is pushed again`;
          const e = pl?.entry ?? ledger.files[rel];
          if (e) planned.set(rel, { excluded: true, entry: { ...e, problem: prob } });
          break;
        }
        findings.push({ code: 'store-short', path: rel, message: `${rel}: the store held ${c.size} of the ${want.size} bytes backed up; rsync appended the rest and verified the whole file`, at });
        break;
      case 'missing':
        if (prob && prob.code === 'store-longer') clearProblem(rel, prob);
        else if (!prob) findings.push({ code: 'store-missing', path: rel, message: `${rel}: it was gone from the store; sent again`, at });
        break;
    }
  }
  for (const rel of run.failedVerification) {
    const pl = planned.get(rel);
    if (pl?.excluded) continue;
    const c = run.checks.get(rel);
    findings.push({
      code: 'store-replaced',
      path: rel,
      message:
        c && c.status === 'ok'
          ? `${rel}: the store's bytes past what was backed up differed from ours (an interrupted earlier write); rsync sent our verified copy again`
          : `${rel}: rsync found the store's copy differed from ours ("failed verification") and sent our verified copy again`,
      matches: 'local',
      at,
    });
  }

  const newLedger: Ledger = { v: 1, files: { ...ledger.files }, scrub_after: lastScrubbed ?? ledger.scrub_after };
  let state: SyncState;
  if (!run.failure) {
    for (const [rel, pl] of planned) newLedger.files[rel] = pl.entry;
    writeLedger(p.ledger, newLedger);
    touch(p.lastOk, start);
    fs.rmSync(p.unsyncedSince, { force: true });
    if (recheck) touch(p.recheck, Date.now());
    else fs.rmSync(p.recheck, { force: true });
    const st = run.stats;
    const sentFiles = run.transferred.length;
    const label = findingsLabel(findings);
    state = {
      ...base,
      status: 'ok',
      last_ok: startIso,
      message: `synced to ${where}: ${sentFiles} file${sentFiles === 1 ? '' : 's'} updated, ${st ? st.sent : '?'} bytes sent, ${checks.length} checked at the store, in ${(run.ms / 1000).toFixed(1)}s`,
      warning: label,
      hint: label ? hintFor(findings) : undefined,
      findings,
      stats: st ? { ...st, ms: run.ms } : undefined,
    };
  } else {
    // Problems found before the push still hold; the rest of the ledger waits for a sync that works.
    for (const [rel, pl] of planned) if (pl.entry.problem) newLedger.files[rel] = { ...(ledger.files[rel] ?? pl.entry), problem: pl.entry.problem, seen_size: pl.entry.seen_size, seen_mtime: pl.entry.seen_mtime };
    newLedger.scrub_after = ledger.scrub_after;
    writeLedger(p.ledger, newLedger);
    noteUnsynced(home);
    const f = run.failure;
    noteFailure(home, { kind: 'sync', label: f.label, message: f.message });
    state = {
      ...base,
      status: 'failed',
      message: f.message,
      warning: `backup failing: ${f.label}`,
      hint: f.hint,
      findings,
    };
  }
  writeState(home, state);
  return { kind: 'done', state, run };
}

function hintFor(findings: Finding[]): string {
  if (findings.some((f) => f.code === 'local-corrupt')) return 'run `brain verify --store` to see which copy matches the manifest; the store keeps the good one';
  if (findings.some((f) => f.code === 'store-longer')) return 'check that no other machine uses this machine name (`brain machines`)';
  return 'see `brain status` for the files';
}

function carriedProblems(ledger: Ledger): Finding[] {
  return Object.values(ledger.files)
    .map((e) => e.problem)
    .filter((x): x is Finding => !!x);
}

/** Marks when a change first started waiting (for "backup stale"). */
export function noteUnsynced(home: string): void {
  const p = syncPaths(home);
  if (!fs.existsSync(p.unsyncedSince)) touch(p.unsyncedSince, Date.now());
}
