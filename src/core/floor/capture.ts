// Capture: walk every agent's session folders, find new bytes, put them in the spool, apply. This
// is the pass: it takes the floor lock, hands each origin the walk lists (origins.ts) to the change
// classification (classify.ts), reads new bytes into the spool (chunk.ts) or lets an unterminated
// tail wait (pending.ts), applies in batches and writes the report.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agents } from '../agents';
import type { AgentPaths, OriginRoot } from '../agents';
import { BrainError, diskFull } from '../errors';
import { clearCaptureError, noteCaptureError } from './health';
import { ensureHome, type Env, type Layout } from '../home';
import { machineName } from '../machine';
import { Applier, type FloorEvent } from './apply';
import { checkBytesFromEnv, runChecks, type CheckDue } from './check';
import { classify, freeGeneration, heldUnderLegacy, recoverOffsets, rewriteDeferred } from './classify';
import { isFloorFailure, readNew } from './chunk';
import { writeFileAtomic } from './durable';
import type { Lane, ManifestLine } from './manifest';
import { displayPath, generationName, originLakeRel } from './names';
import { openOrigin } from './origin';
import { readOffsets, type OffsetRec } from './offsets';
import { walkOrigins } from './origins';
import { captureDatabase, DB_BUSY_MS } from './dbcapture';
import { capturePending, captureVanished, dropPending, pendingPath, readPending, type PendingDesc } from './pending';
import { waitLock, tryLock, type HeldLock } from './lock';
import { InlineHasher, WorkerHasher, type ChunkHasher } from './hasher';
import { Journal } from './journal';
import { setting } from '../settings';
import { UnchangedOrigins } from './unchanged';

export { fingerprints } from './classify';
export { isDir } from './origins';

export interface LaneCounts {
  files: number;
  new_files: number;
  bytes: number;
  lines: number;
  chunks: number;
  generations: number;
  pending: number;
  /** Rewrites of whole-file origins held back until the rewrite-quiet period passes. */
  deferred: number;
  warnings: number;
}

export interface CaptureReport {
  home: string;
  machine: string;
  lanes: Record<string, LaneCounts>;
  roots: { lane: Lane; dir: string; exists: boolean }[];
  events: FloorEvent[];
  /** Chunks the applier would not take in because the lake is not as the manifest says (also in
   * `events`): the pass failed for those files. */
  refused: FloorEvent[];
  /** The prefix check of this pass (check.ts): origins and bytes compared with the lake, changes
   * found (each opened a generation), and origins whose check is not finished. */
  prefix_check: { files: number; bytes: number; found: number; waiting: number };
  applied: number;
  busy: boolean;
}

export interface CaptureOptions {
  home: string;
  env?: Env;
  source?: ManifestLine['source'];
  /** An unterminated last line is captured anyway once its origin has been quiet this long. */
  quietMs?: number;
  /** Only these origin paths (watch mode); undefined = walk every root. */
  only?: Set<string>;
  /** Wait this long for the floor lock; 0 = skip the pass if another writer holds it. */
  lockWaitMs?: number;
  onProgress?: (p: { files: number; bytes: number }) => void;
  shouldStop?: () => boolean;
  /** The pass's clock (ms since the epoch), for the quiet periods; tests and the bench set it. */
  now?: number;
  /** How long a read of an agent's SQLite database waits for another process's lock. */
  dbBusyMs?: number;
}

// The quiet periods' defaults live with their settings (BRAIN_QUIET_SECONDS, BRAIN_REWRITE_QUIET_SECONDS).
export function rewriteQuietFromEnv(env: Env): number {
  return setting(env, 'BRAIN_REWRITE_QUIET_SECONDS') * 1000;
}
// A batch is committed with one flush of the lake (a journal and a manifest append): large
// batches make a first capture cost about what copying the files and one `sync` cost.
const BATCH_FILES = 4096;
/** Hashing sessions from 64 KiB up on the worker thread (8 MiB before: the few big files) took a
 * first capture of the 1 GB bench corpus from 14.9 s to 10.2 s on a loaded 2-core VM (medians of 3). */
const HASH_THREAD_BYTES = 64 << 10;
const BATCH_BYTES = 1 << 30;

function emptyCounts(): LaneCounts {
  return { files: 0, new_files: 0, bytes: 0, lines: 0, chunks: 0, generations: 0, pending: 0, deferred: 0, warnings: 0 };
}

export function quietFromEnv(env: Env): number {
  return setting(env, 'BRAIN_QUIET_SECONDS') * 1000;
}

/** One capture pass under the floor lock. */
export async function capture(opts: CaptureOptions): Promise<CaptureReport> {
  const home = path.resolve(opts.home);
  try {
    const r = await captureOnce(opts);
    if (r.refused.length > 0) noteCaptureError(home, refusedError(r.refused));
    else if (!r.busy) clearCaptureError(home);
    return r;
  } catch (e) {
    const err = diskFull(e, home) ?? e;
    noteCaptureError(home, err);
    throw err;
  }
}

async function captureOnce(opts: CaptureOptions): Promise<CaptureReport> {
  const env = opts.env ?? process.env;
  const l = ensureHome(opts.home);
  const report: CaptureReport = {
    home: l.root,
    machine: machineName(l.root, env),
    lanes: Object.fromEntries(agents().map((a) => [a.lane, emptyCounts()])),
    roots: [],
    events: [],
    refused: [],
    prefix_check: { files: 0, bytes: 0, found: 0, waiting: 0 },
    applied: 0,
    busy: false,
  };
  const lock: HeldLock | null = opts.lockWaitMs
    ? await waitLock(l.locks, 'floor', opts.lockWaitMs)
    : await tryLock(l.locks, 'floor');
  if (!lock) {
    report.busy = true;
    return report;
  }
  const applier = new Applier(l);
  try {
    report.applied += applier.recover().applied.length;
    const pass = new Pass(l, report, applier, {
      source: opts.source ?? 'record',
      quietMs: opts.quietMs ?? quietFromEnv(env),
      rewriteQuietMs: rewriteQuietFromEnv(env),
      checkBytes: checkBytesFromEnv(env),
      onProgress: opts.onProgress,
      shouldStop: opts.shouldStop,
      now: opts.now,
    });
    try {
      walkOrigins(env, opts.only, report.roots, pass);
      pass.flush();
      if (!pass.stopped) pass.databases(env, opts.only, opts.dbBusyMs ?? DB_BUSY_MS);
      if (!pass.stopped) pass.vanished();
      pass.flush();
      // Only in full passes: the watcher's passes for the files that just changed stay O(new bytes)
      // (and it asks for a full pass when checks are waiting).
      if (!opts.only && !pass.stopped) pass.checkPrefixes();
      else report.prefix_check.waiting = pass.checksDue();
      pass.flush();
      // Only a full pass sees every origin, so only its list replaces the last one.
      if (!opts.only && !pass.stopped) pass.unchanged.save();
    } finally {
      pass.dispose();
    }
    report.events.push(...applier.events);
    report.refused = report.events.filter((e) => e.refused);
    writeFileAtomic(
      path.join(l.health, 'capture.json'),
      JSON.stringify({ at: new Date().toISOString(), pid: process.pid, applied: report.applied, lanes: report.lanes, events: report.events.slice(-50) }) + '\n',
      { sync: false },
    );
  } finally {
    applier.close();
    lock.release();
  }
  return report;
}

/** The error a pass with refused chunks leaves for status, doctor and the status bar. */
export function refusedError(refused: FloorEvent[]): BrainError {
  const first = refused[0];
  return new BrainError(
    'append-refused',
    `${refused.length} chunk(s) not recorded: ${first.path}: ${first.message}${refused.length > 1 ? ` (and ${refused.length - 1} more)` : ''}`,
    first.hint,
  );
}
interface PassOpts {
  source: ManifestLine['source'];
  quietMs: number;
  rewriteQuietMs: number;
  checkBytes: number;
  onProgress?: (p: { files: number; bytes: number }) => void;
  shouldStop?: () => boolean;
  now?: number;
}

class Pass {
  private checks = new Map<string, CheckDue>();
  private batchFiles = 0;
  private batchBytes = 0;
  /** The origins (lane/base_rel) whose chunks the uncommitted batch holds. */
  private batchOrigins = new Set<string>();
  /** Entries this pass put in the spool (unterminated tails taken in), applied at the flush. */
  private spooled = 0;
  readonly journal: Journal;
  readonly unchanged: UnchangedOrigins;
  stopped = false;
  private progress = { files: 0, bytes: 0 };
  readonly now: number;

  constructor(
    readonly l: Layout,
    readonly report: CaptureReport,
    readonly applier: Applier,
    readonly o: PassOpts,
  ) {
    this.now = o.now ?? Date.now();
    this.journal = new Journal(l);
    this.unchanged = new UnchangedOrigins(l.offsets);
  }

  warn(lane: Lane, code: string, p: string, message: string, hint?: string): void {
    this.report.events.push({ code, path: p, message, hint });
    this.report.lanes[lane].warnings++;
  }

  file(agent: AgentPaths, root: OriginRoot, abs: Buffer, segs: Buffer[]): void {
    const lane = agent.lane;
    if (this.unchanged.passBy(abs)) {
      this.report.lanes[lane].files++;
      this.passed();
      return;
    }
    const display = displayPath(abs);
    let name = originLakeRel(root.lakePrefix, segs);
    // A root that has its own prefix now: an origin the floor already holds under the old name
    // keeps it (heldUnderLegacy below), so a floor written before is not recorded again.
    if (!name.legacy && root.legacyPrefix !== undefined && root.legacyPrefix !== root.lakePrefix) {
      const old = originLakeRel(root.legacyPrefix, segs);
      name = { ...name, legacy: { rel: old.rel, escaped: old.escaped } };
    }
    const held = name.legacy && heldUnderLegacy(this.l, this.applier, lane, name.rel, name.legacy.rel, display);
    const baseRel = held ? name.legacy!.rel : name.rel;
    if (held ? name.legacy!.escaped : name.escaped) {
      this.warn(lane, 'name-escaped', display, `name stored in the lake as ${lane}/${baseRel}`);
    }
    const o = openOrigin(abs);
    if ('error' in o) {
      this.warn(lane, 'unreadable', display, `cannot read: ${o.error.message}`, 'check its permissions; nothing else is affected');
      return;
    }
    if ('skip' in o) {
      // A vanished file is handled by vanished(); the others are said on every pass, as they stay.
      if (o.skip === 'symlink') this.warn(lane, 'symlink-skipped', display, 'symbolic link not followed');
      else if (o.skip === 'special') this.warn(lane, 'not-a-file', display, `skipped: ${o.kind}, not a regular file (it is never opened, so it cannot hold up recording)`, 'nothing to do unless an agent meant to write a session there');
      return;
    }
    const { fd, st } = o;
    try {
      this.report.lanes[lane].files++;
      const plain = !name.legacy && !name.escaped;
      if (this.captureFd(agent, lane, fd, st, abs, display, baseRel) === 'untouched' && plain) this.unchanged.note(abs, st);
    } catch (e) {
      // A full disk is the floor's, not this file's: stop the pass (capture() says what to do); so
      // is any failure to write the floor (a symlink planted in the lake, a lake that is a file).
      if (diskFull(e, this.l.root) || isFloorFailure(e)) throw e;
      this.warn(lane, 'capture-failed', display, `capture failed: ${(e as Error).message}`, 'other files were captured; run `brain record` again');
    } finally {
      fs.closeSync(fd);
    }
    this.passed();
  }

  private passed(): void {
    this.progress.files++;
    this.o.onProgress?.(this.progress);
    if (this.o.shouldStop?.()) this.stopped = true;
  }

  /** `forced`: a change the prefix check found, which opens a generation whatever else is seen.
   * 'untouched': the origin needed nothing (its offsets record says it is all on the floor, with
   * no check due and no tail waiting), read from a record this pass did not make. */
  private captureFd(agent: AgentPaths, lane: Lane, fd: number, st: fs.Stats, abs: Buffer, display: string, baseRel: string, forced?: string): 'untouched' | void {
    // An origin met twice in one batch (named twice in a watch pass) would be read again from
    // offsets its uncommitted chunk has not moved yet, and its bytes claimed twice: commit first.
    if (this.batchOrigins.has(`${lane}/${baseRel}`)) this.flush();
    const stored = readOffsets(this.l.offsets, lane, baseRel);
    let off = stored;
    if (!off) off = recoverOffsets(this.l, this.applier, lane, baseRel, display, this.now);
    const due = { agent, lane, abs, display, baseRel };
    if (off?.check_left && !forced) this.noteCheck({ ...due, at: off.check_at ?? 0, left: off.check_left, pos: off.check_pos ?? 0 });
    const pendingFile = pendingPath(this.l, lane, baseRel);
    const waits = this.mayWait(lane, pendingFile);
    const pending = waits ? readPending(pendingFile) : null;
    let gen = off?.gen ?? 1;
    let consumed = off?.consumed ?? 0;
    let lines = off?.lines ?? 0;
    let reason: string | null = null;
    if (off) {
      const change = classify(fd, st, off, this.l.root, forced);
      if (change.kind === 'unchanged') {
        // Unchanged since we last looked. Only a waiting unterminated line may be due.
        if (pending && this.now - st.mtimeMs >= this.o.quietMs) {
          this.fromPending(pending, 'quiet');
        }
        return stored && !waits && !off.check_left && !off.deferred_since ? 'untouched' : undefined;
      }
      if (change.kind === 'generation') reason = change.reason;
      if (reason && agent.rewritesWhole?.(baseRel) && rewriteDeferred(this.l, off, st, this.now, this.o.rewriteQuietMs)) {
        this.report.lanes[lane].deferred++;
        return;
      }
      if (reason) {
        gen = off.gen + 1;
        consumed = 0;
        lines = 0;
      }
    }
    if (reason) gen = freeGeneration(this.l, this.applier, this.report.events, lane, baseRel, gen, display);
    let pendingWaits = !!pending;
    if (pending && (reason || pending.gen !== gen || pending.byte_from !== consumed)) {
      dropPending(pendingFile);
      pendingWaits = false;
    }
    const lakeRel = `${lane}/${generationName(baseRel, gen)}`;
    const lakePath = `lake/${lakeRel}`;
    if (reason) {
      this.report.lanes[lane].generations++;
      this.report.events.push({ code: 'generation-opened', path: display, message: `${reason}: generation ${gen} opened as ${lakePath}; earlier generations kept` });
    }
    if (st.size === consumed) {
      if (off && !reason) this.touchOffsets(off, st);
      return;
    }
    if (pending && !reason && pending.size === st.size && pending.mtime_ms === st.mtimeMs) {
      if (this.now - st.mtimeMs >= this.o.quietMs) this.fromPending(pending, 'quiet');
      return;
    }
    const session = agent.sessionOf(baseRel);
    // Growth past bytes already on the floor: those bytes are to be checked whole (check.ts). The
    // check keeps its place in the rotation and in the queue, and starts a full round again.
    const check =
      off && !reason && consumed > 0
        ? { check_left: consumed, check_pos: off.check_pos ?? 0, check_at: off.check_left ? (off.check_at ?? this.now) : this.now }
        : {};
    if (check.check_left) this.noteCheck({ ...due, at: check.check_at, left: check.check_left, pos: check.check_pos });
    const ownOff: OffsetRec = {
      v: 1,
      lane,
      origin: display,
      ...(display !== abs.toString('utf8') ? { origin_raw: abs.toString('base64') } : {}),
      base_rel: baseRel,
      gen,
      lake_path: lakePath,
      consumed,
      lines,
      unterminated: false,
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtime_ms: st.mtimeMs,
      head_sha: off?.head_sha ?? '',
      tail_sha: off?.tail_sha ?? '',
      updated_at: '',
      ...check,
    };
    const counts = this.report.lanes[lane];
    const tails = counts.pending;
    const bytes = readNew(this, counts, agent, lane, fd, st, abs, session, ownOff, pendingFile, pendingWaits, !off || !!reason, stored);
    if (counts.pending > tails) this.pendingNames.get(lane)?.add(path.basename(pendingFile));
    if (bytes === 0) return;
    this.batchOrigins.add(`${lane}/${baseRel}`);
    this.progress.bytes += bytes;
    this.batchFiles++;
    this.batchBytes += bytes;
    if (this.batchFiles >= BATCH_FILES || this.batchBytes >= BATCH_BYTES) this.flush();
  }

  private inline = new InlineHasher();
  private worker: WorkerHasher | null = null;

  /** Reads of 64 KiB and more hash on a second core while this thread writes them to the lake
   * (a first capture: most sessions); small ones (the common append) are not worth a thread. */
  hasherFor(bytes: number): ChunkHasher {
    if (bytes < HASH_THREAD_BYTES || !setting(process.env, 'BRAIN_HASH_THREAD')) return this.inline;
    this.worker ??= new WorkerHasher();
    return this.worker;
  }

  dispose(): void {
    this.worker?.dispose();
    this.worker = null;
    this.journal.close();
  }

  /** The pending tails of each lane when first asked, and those this pass wrote: most origins
   * have none, and a listing costs less than a failed open each. */
  private pendingNames = new Map<Lane, Set<string>>();

  private mayWait(lane: Lane, pendingFile: string): boolean {
    let names = this.pendingNames.get(lane);
    if (!names) {
      try {
        names = new Set(fs.readdirSync(path.dirname(pendingFile)));
      } catch {
        names = new Set();
      }
      this.pendingNames.set(lane, names);
    }
    return names.has(path.basename(pendingFile));
  }

  private noteCheck(c: CheckDue): void {
    this.checks.set(`${c.lane}/${c.baseRel}`, c);
  }

  checksDue(): number {
    return this.checks.size;
  }

  /** The prefix checks due, within this pass's budget; a change found opens a generation. */
  checkPrefixes(): void {
    runChecks([...this.checks.values()], {
      l: this.l,
      now: this.now,
      budget: this.o.checkBytes,
      counts: this.report.prefix_check,
      stopped: () => this.stopped,
      changed: (c, fd, st, at) =>
        this.captureFd(c.agent, c.lane, fd, st, c.abs, c.display, c.baseRel, `changed inside (the bytes from ${at} differ from the lake; found by the prefix check)`),
      failed: (c, e) => this.warn(c.lane, 'check-failed', c.display, `prefix check failed: ${e.message}`, 'it is tried again by the next pass'),
    });
  }

  /** Commits the batch written to the lake, then applies what this pass has put in the spool. */
  flush(): void {
    if (this.journal.active) this.report.applied += this.journal.commit(this.applier).length;
    if (this.spooled > 0) this.report.applied += this.applier.applyAll().applied.length;
    this.spooled = 0;
    this.batchFiles = 0;
    this.batchBytes = 0;
    this.batchOrigins.clear();
  }

  private touchOffsets(off: OffsetRec, st: fs.Stats): void {
    if (off.size === st.size && off.mtime_ms === st.mtimeMs) return;
    writeFileAtomic(
      path.join(this.l.offsets, off.lane, `${off.base_rel}.offset.json`),
      JSON.stringify({ ...off, size: st.size, mtime_ms: st.mtimeMs }) + '\n',
      { sync: false },
    );
  }

  /** Captures a waiting unterminated tail as a flagged chunk: its origin went quiet. */
  private fromPending(p: PendingDesc, why: 'quiet'): void {
    if (capturePending(this, p, why)) this.spooled++;
  }

  /** Each agent's SQLite databases (dbcapture.ts); in watch mode only those whose file or -wal
   * is among the paths seen changing. */
  databases(env: Env, only: Set<string> | undefined, busyMs: number): void {
    const seen = only ? new Set([...only].map((p) => path.resolve(p))) : null;
    for (const agent of agents()) {
      for (const db of agent.databases?.(env) ?? []) {
        if (this.stopped) return;
        this.report.roots.push({ lane: agent.lane, dir: db.file, exists: fs.existsSync(db.file) });
        if (seen && !seen.has(path.resolve(db.file)) && !seen.has(path.resolve(`${db.file}-wal`))) continue;
        try {
          captureDatabase({ l: this.l, now: this.now, report: this.report, applier: this.applier, source: this.o.source, busyMs, warn: (...a) => this.warn(...a) }, agent, db);
        } catch (e) {
          if (diskFull(e, this.l.root) || isFloorFailure(e)) throw e;
          this.warn(agent.lane, 'capture-failed', db.file, `capture failed: ${(e as Error).message}`, 'other files were captured; run `brain record` again');
        }
        this.passed();
      }
    }
  }

  /** Pending tails whose origin is gone are captured now: no byte is ever withheld. */
  vanished(): void {
    this.spooled += captureVanished(this);
  }
}
