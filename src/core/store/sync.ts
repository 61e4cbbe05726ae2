// One sync: check what is about to be pushed, push it in one rsync, record the result.
//
// Under a non-blocking kernel lock (locks/sync.lock, released when the holder dies): a second sync
// exits at once; `--now` first leaves a pending mark, and the holder syncs again before it lets go
// (and re-checks after unlocking, for a mark left in between).
//
// Corruption, the careful part. rsync --append-verify appends to a store file shorter than ours and
// then checks the whole file; when that check fails it re-sends the whole file, silently replacing
// the store's copy, and it skips store files as long as ours or longer without looking at them. So
// no store copy reaches rsync unless it has been shown to be a prefix of ours:
//   1. Before the push, every changed local file is checked (plan.ts): lake files against every
//      manifest range, manifest/meta files against the sha256 of what was already backed up
//      (ledger). A file that fails is excluded from the push (--exclude-from) and reported; the
//      store's copy, the backup of record, is never overwritten by it.
//   2. On the store side, before rsync runs and in the same connection (script.ts), each file about
//      to be pushed whose store copy may exist, and a rotating slice of the unchanged ones, is
//      checked: the store's first N bytes must hash to what we sent. A store copy that differs while
//      ours verifies is moved aside to .brain/replaced/<stamp>/ (kept, never deleted) and rsync
//      sends ours whole: that is the repair, and it is reported. A store copy holding bytes nobody
//      compared with ours (longer than what we sent, or than our whole file) stops the step before
//      rsync runs; the next round checks it against our own bytes at its length (a prefix of ours:
//      appended to; not: moved aside) or, while it is longer than ours, keeps ours out of the push.
//   3. rsync's own "failed verification" warnings are still read, for what the checks cannot
//      foresee (the store changing between the check and rsync).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readConfig, type Config } from '../config';
import { noteFailure } from '../failures';
import { tryLock } from '../floor/lock';
import { writeFileAtomic } from '../floor/durable';
import { layout, mkdirPrivate, type Env } from '../home';
import type { Finding } from './findings';
import { listFloor, walkFloor, type FloorFile } from './floorfiles';
import { readLedger, writeLedger, type Ledger } from './ledger';
import { manifestRanges } from './localcheck';
import { SYNCED_DIRS, syncPaths } from './paths';
import { deferItems, nextRound, planSync } from './plan';
import { fitItems, isGuard, type Owner, type ScriptItem } from './script';
import { ensureFloorId, manifestHead } from './floorid';
import { findingsLabel, mtimeOf, readState, writeState, type SyncState } from './state';
import { excludeLine, muxCheck, push, storeLabel, type RsyncRun } from './transport';
import { applyVerdicts, noteRound, type Seen, type VerdictInput } from './verdicts';
import { VERSION } from './version';
import { setting } from '../settings';

/** Rounds of store-side checks in one sync (see plan.ts); past that the store is changing under us. */
const MAX_ROUNDS = 5;

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
  /** Take <store>/<machine>/ over even if it is recorded for another floor (floorid.ts). */
  adopt?: boolean;
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
  const at = startIso;
  const plan = planSync(home, env, files, ranges, ledger, at);
  const { planned, findings } = plan;
  const stamp = stampOf(start);
  const owner: Owner = { id: ensureFloorId(home), head: manifestHead(home), adopt: !!opts.adopt };
  const stageDir = stageVersion(home, cfg, startIso);
  const sources = SYNCED_DIRS.map((d) => path.join(home, d)).filter((d) => fs.existsSync(d));
  sources.push(stageDir);
  mkdirPrivate(p.dir);

  // Rounds: a store-side step that finds store copies not shown to be ours stops before rsync runs
  // and is asked again with exact checks (plan.ts); each round is one connection.
  let items: ScriptItem[] = [];
  const deferred: string[] = [];
  const seen = new Map<string, Seen>();
  const kept: VerdictInput['kept'] = [];
  const pushOnce = (stampNow: string, want: ScriptItem[]) => {
    // Files whose check does not fit in the script are not pushed now; the next sync takes them.
    const fitted = fitItems(store, cfg.machine, want, stampNow, owner);
    items = fitted.fit;
    deferred.push(...deferItems(plan, fitted.rest));
    const excluded = [...planned.entries()].filter(([, v]) => v.excluded).map(([k]) => k);
    writeFileAtomic(p.excludes, ['.tmp-*', '.checkpoint.json', ...[...excluded, ...deferred].map(excludeLine)].join('\n') + '\n', { sync: false });
    const out = new Set([...excluded, ...deferred]);
    let toSend = 0;
    for (const [rel, f] of files) if (!out.has(rel)) toSend += Math.max(0, f.size - (ledger.files[rel]?.size ?? 0));
    return push({ cfg, env, sources, excludeFrom: p.excludes, items, stamp: stampNow, owner, extra: opts.extraRsync, toSend });
  };
  let owned: string | undefined;
  const pushRounds = async (first: ScriptItem[]): Promise<RsyncRun> => {
    let r = await pushOnce(stamp, first);
    for (let round = 1; ; round++) {
      noteRound(seen, r.checks);
      owned ??= r.owned;
      if (!r.again) return r;
      if (round >= MAX_ROUNDS) {
        r.failure = {
          label: 'store copy changing',
          message: `the store's copies kept changing while ${round} rounds of checks looked at them, so nothing was pushed over them`,
          hint: `check that no other machine writes to ${where}/${cfg.machine}/ (\`brain machines\`), then run \`brain sync --now\``,
        };
        return r;
      }
      const next = nextRound(home, plan, items, r.checks, r.dirs);
      kept.push(...next.kept);
      r = await pushOnce(stamp, next.items);
    }
  };
  let run = await pushRounds(plan.items);
  if (deferred.length > 0 && !run.failure) touch(p.pending, Date.now());
  // A refusal or a store that keeps changing is not the connection's fault: no retry for those.
  const retryable = run.failure && !run.interrupted && !['machine name taken', 'store copy changing'].includes(run.failure.label);
  if (retryable && store.ssh_mux_only && (await muxCheck(cfg, env))) {
    // Over a live master a retry costs no prompt and no touch: one, after a delay.
    await new Promise((res) => setTimeout(res, setting(env, 'BRAIN_RETRY_DELAY') * 1000));
    // The checks run again: a store copy moved aside is now missing, one half-sent is checked anew.
    if (await muxCheck(cfg, env)) run = await pushRounds(items);
  }

  // What the store-side checks found (they ran even if rsync failed afterwards).
  const recheck = applyVerdicts({ plan, ledger, seen, items, kept, stamp, at });
  for (const rel of run.failedVerification) {
    const pl = planned.get(rel);
    if (pl?.excluded) continue;
    const c = seen.get(rel)?.last;
    findings.push({
      code: 'store-replaced',
      path: rel,
      message:
        c && c.status === 'ok'
          ? `${rel}: the store's copy changed between the check and rsync (something else writes there); rsync sent our verified copy again`
          : `${rel}: rsync found the store's copy differed from ours ("failed verification") and sent our verified copy again`,
      matches: 'local',
      at,
    });
  }

  const lastScrubbed = plan.lastScrubbed;
  const checks = items.filter((i) => !isGuard(i));
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
      message: `synced to ${where}: ${sentFiles} file${sentFiles === 1 ? '' : 's'} updated, ${st ? st.sent : '?'} bytes sent, ${checks.length} checked at the store, in ${(run.ms / 1000).toFixed(1)}s${owned === 'adopted' ? `; ${cfg.machine}/ there was taken over by this floor (--adopt)` : owned === 'matched' ? `; ${cfg.machine}/ there is recorded as this floor's (its manifest starts like ours)` : ''}`,
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
