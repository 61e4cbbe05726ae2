// The phases of one sync (sync.ts runs them in order under the sync lock):
//   plan      what is pushed and what the store checks first: local checks, ledger, owner, stage
//   push      the rounds of store-side checks + rsync, each round one connection (transport.ts)
//   reconcile what the store-side checks and rsync's own warnings found, as findings
//   commit    the ledger, last-ok and state.json: the new ledger only when the push worked
// Each takes what the previous one returned; only commit writes the sync's bookkeeping.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Config } from '../config';
import { noteFailure } from '../floor/failures';
import { writeFileAtomic } from '../floor/durable';
import { layout, mkdirPrivate, type Env } from '../home';
import type { Finding } from './findings';
import { listFloor } from './floorfiles';
import { ensureFloorId, manifestHead } from './floorid';
import { readLedger, writeLedger, type Ledger } from './ledger';
import { manifestRanges } from './localcheck';
import { SYNCED_DIRS, syncPaths } from './paths';
import { deferItems, nextRound, planSync, type Plan } from './plan';
import { fitItems, isGuard, type Owner, type ScriptItem } from './script';
import { findingsLabel, noteUnsynced, readState, touch, writeState, type SyncState } from './state';
import { excludeLine, storeLabel, type RsyncRun } from './rsync';
import type { StoreTransport } from './transport';
import { applyVerdicts, noteRound, type Seen, type VerdictInput } from './verdicts';
import { VERSION } from './version';

/** Rounds of store-side checks in one sync (see plan.ts); past that the store is changing under us. */
const MAX_ROUNDS = 5;

type StateBase = Omit<SyncState, 'status' | 'message' | 'warning' | 'findings'>;

/** What the plan phase decided; read by every later phase. */
export interface Prepared {
  start: number;
  /** The sync's start (ISO): the time of its findings and of last_ok when it works. */
  at: string;
  /** Names this sync's folder of moved-aside store copies (.brain/replaced/<stamp>/). */
  stamp: string;
  base: StateBase;
  plan: Plan;
  ledger: Ledger;
  owner: Owner;
  /** Absolute folders rsync copies into <store>/<machine>/. */
  sources: string[];
}

/** What the push phase did. */
export interface Pushed {
  run: RsyncRun;
  /** The last round's store-side items. */
  items: ScriptItem[];
  seen: Map<string, Seen>;
  kept: VerdictInput['kept'];
  /** How this floor came to own <machine>/ at the store, when a round said. */
  owned?: string;
}

export function stateBase(home: string, cfg: Config, startIso: string): StateBase {
  return { v: 1, time: startIso, store: storeLabel(cfg), machine: cfg.machine, last_ok: readState(home)?.last_ok };
}

function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
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

/** Plan phase: checks the floor locally and decides what the store checks before the push. */
export function preparePush(home: string, cfg: Config, env: Env, start: number, adopt: boolean): Prepared {
  const p = syncPaths(home);
  const at = new Date(start).toISOString();
  // The manifest is read before the floor is listed: the capture writes lake bytes before the
  // manifest line that claims them, so no claim read here can exceed a size listed after.
  const { ranges } = manifestRanges(layout(home).manifest);
  const files = listFloor(home);
  const ledger = readLedger(p.ledger);
  const plan = planSync(home, env, files, ranges, ledger, at);
  const owner: Owner = { id: ensureFloorId(home), head: manifestHead(home), adopt };
  const stageDir = stageVersion(home, cfg, at);
  const sources = SYNCED_DIRS.map((d) => path.join(home, d)).filter((d) => fs.existsSync(d));
  sources.push(stageDir);
  mkdirPrivate(p.dir);
  return { start, at, stamp: stampOf(start), base: stateBase(home, cfg, at), plan, ledger, owner, sources };
}

/** Push phase: rounds of store-side checks and rsync until a round pushes (or fails). A round that
 * finds store copies not shown to be ours stops before rsync runs and is asked again with exact
 * checks (plan.ts). The transport may retry a failed connection (withRetry); the rounds never do. */
export async function pushRounds(home: string, cfg: Config, prep: Prepared, t: StoreTransport, extra?: string[]): Promise<Pushed> {
  const p = syncPaths(home);
  const { plan, ledger, owner, stamp } = prep;
  const store = cfg.store!;
  const seen = new Map<string, Seen>();
  const kept: VerdictInput['kept'] = [];
  const deferred: string[] = [];
  let items: ScriptItem[] = [];
  let owned: string | undefined;
  const pushOnce = (want: ScriptItem[]) => {
    // Files whose check does not fit in the script are not pushed now; the next sync takes them.
    const fitted = fitItems(store, cfg.machine, want, stamp, owner);
    items = fitted.fit;
    deferred.push(...deferItems(plan, fitted.rest));
    const excluded = [...plan.planned.entries()].filter(([, v]) => v.excluded).map(([k]) => k);
    writeFileAtomic(p.excludes, ['.tmp-*', '.checkpoint.json', ...[...excluded, ...deferred].map(excludeLine)].join('\n') + '\n', { sync: false });
    const out = new Set([...excluded, ...deferred]);
    let toSend = 0;
    for (const [rel, f] of plan.files) if (!out.has(rel)) toSend += Math.max(0, f.size - (ledger.files[rel]?.size ?? 0));
    return t.push({ sources: prep.sources, excludeFrom: p.excludes, items, stamp, owner, extra, toSend });
  };
  let r = await pushOnce(plan.items);
  for (let round = 1; ; round++) {
    for (const run of [...(r.earlier ?? []), r]) {
      noteRound(seen, run.checks);
      owned ??= run.owned;
    }
    if (!r.again) break;
    if (round >= MAX_ROUNDS) {
      r.failure = {
        label: 'store copy changing',
        message: `the store's copies kept changing while ${round} rounds of checks looked at them, so nothing was pushed over them`,
        hint: `check that no other machine writes to ${storeLabel(cfg)}/${cfg.machine}/ (\`brain machines\`), then run \`brain sync --now\``,
      };
      break;
    }
    const next = nextRound(home, plan, items, r.checks, r.dirs);
    kept.push(...next.kept);
    r = await pushOnce(next.items);
  }
  if (deferred.length > 0 && !r.failure) touch(p.pending, Date.now());
  return { run: r, items, seen, kept, owned };
}

/** Reconcile phase: what the store-side checks found (they ran even if rsync failed afterwards) and
 * what rsync's own warnings add, as findings on the plan. Returns whether the next sync must look
 * at some file afresh. */
export function reconcile(prep: Prepared, pushed: Pushed): boolean {
  const { plan, ledger, stamp, at } = prep;
  const { seen, items, kept, run } = pushed;
  const recheck = applyVerdicts({ plan, ledger, seen, items, kept, stamp, at });
  for (const rel of run.failedVerification) {
    if (plan.planned.get(rel)?.excluded) continue;
    const c = seen.get(rel)?.last;
    plan.findings.push({
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
  return recheck;
}

/** Commit phase: the ledger, last-ok and state.json. A push that worked records everything it
 * planned; a failed one keeps the old ledger and carries only the problems found before it. */
export function commit(home: string, cfg: Config, prep: Prepared, pushed: Pushed, recheck: boolean): SyncState {
  const p = syncPaths(home);
  const { plan, ledger, base, at } = prep;
  const { run, owned } = pushed;
  const findings = plan.findings;
  const newLedger: Ledger = { v: 1, files: { ...ledger.files }, scrub_after: plan.lastScrubbed ?? ledger.scrub_after };
  let state: SyncState;
  if (!run.failure) {
    for (const [rel, pl] of plan.planned) newLedger.files[rel] = pl.entry;
    writeLedger(p.ledger, newLedger);
    touch(p.lastOk, prep.start);
    fs.rmSync(p.unsyncedSince, { force: true });
    if (recheck) touch(p.recheck, Date.now());
    else fs.rmSync(p.recheck, { force: true });
    const st = run.stats;
    const sentFiles = run.transferred.length;
    const checked = pushed.items.filter((i) => !isGuard(i)).length;
    const label = findingsLabel(findings);
    state = {
      ...base,
      status: 'ok',
      last_ok: at,
      message: `synced to ${base.store}: ${sentFiles} file${sentFiles === 1 ? '' : 's'} updated, ${st ? st.sent : '?'} bytes sent, ${checked} checked at the store, in ${(run.ms / 1000).toFixed(1)}s${owned === 'adopted' ? `; ${cfg.machine}/ there was taken over by this floor (--adopt)` : owned === 'matched' ? `; ${cfg.machine}/ there is recorded as this floor's (its manifest starts like ours)` : ''}`,
      warning: label,
      hint: label ? hintFor(findings) : undefined,
      findings,
      stats: st ? { ...st, ms: run.ms } : undefined,
    };
  } else {
    // Problems found before the push still hold; the rest of the ledger waits for a sync that works.
    for (const [rel, pl] of plan.planned) if (pl.entry.problem) newLedger.files[rel] = { ...(ledger.files[rel] ?? pl.entry), problem: pl.entry.problem, seen_size: pl.entry.seen_size, seen_mtime: pl.entry.seen_mtime };
    newLedger.scrub_after = ledger.scrub_after;
    writeLedger(p.ledger, newLedger);
    noteUnsynced(home);
    const f = run.failure;
    noteFailure(home, { kind: 'sync', label: f.label, message: f.message });
    state = { ...base, status: 'failed', message: f.message, warning: `backup failing: ${f.label}`, hint: f.hint, findings };
  }
  writeState(home, state);
  return state;
}

function hintFor(findings: Finding[]): string {
  if (findings.some((f) => f.code === 'local-corrupt')) return 'run `brain verify --store` to see which copy matches the manifest; the store keeps the good one';
  if (findings.some((f) => f.code === 'store-longer')) return 'check that no other machine uses this machine name (`brain machines`)';
  return 'see `brain status` for the files';
}
