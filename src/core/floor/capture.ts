// Capture: walk every agent's session folders, find new bytes, put them in the spool, apply.
// Detection costs O(new bytes) per origin: stat, and a 4 KiB fingerprint at each end of what the
// floor holds; a full prefix comparison happens only for a same-size change (and in verify --deep).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agents } from '../agents';
import type { AgentPaths, OriginRoot } from '../agents';
import { BrainError, diskFull } from '../errors';
import { clearCaptureError, noteCaptureError } from './health';
import { ensureHome, FILE_MODE, mkdirPrivate, type Env, type Layout } from '../home';
import { machineName } from '../machine';
import { Applier, type FloorEvent } from './apply';
import { crashPoint } from './crash';
import { writeAll, writeFileAtomic } from './durable';
import type { Lane, ManifestLine } from './manifest';
import { displayPath, generationName, originLakeRel } from './names';
import { openOrigin } from './origin';
import { checkBytesFromEnv, runChecks, type CheckDue } from './check';
import { FP_WINDOW, readOffsets, writeOffsets, type OffsetRec } from './offsets';
import { countNewlines, firstDifference } from './ranges';
import { commitEntry, laneSpool, spoolFiles, spoolId, type ChunkEntry } from './spool';
import { waitLock, tryLock, type HeldLock } from './lock';
import { InlineHasher, WorkerHasher, type ChunkHasher } from './hasher';
import { setting } from '../settings';

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
}

export const DEFAULT_QUIET_MS = 10 * 60_000;
export const DEFAULT_REWRITE_QUIET_MS = 30_000;

export function rewriteQuietFromEnv(env: Env): number {
  return setting(env, 'BRAIN_REWRITE_QUIET_SECONDS') * 1000;
}
const BLOCK = 4 << 20;
const BATCH_FILES = 128;
const BATCH_BYTES = 256 << 20;

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
      for (const agent of agents()) {
        for (const root of agent.roots(env)) {
          const exists = isDir(root.dir);
          report.roots.push({ lane: agent.lane, dir: root.dir, exists });
          if (!exists) continue;
          if (opts.only) {
            for (const p of opts.only) {
              const rel = path.relative(root.dir, p);
              if (rel.startsWith('..') || path.isAbsolute(rel) || !root.include(rel.split(path.sep).join('/'))) continue;
              pass.file(agent, root, Buffer.from(p), rel.split(path.sep).map((s) => Buffer.from(s)));
            }
          } else pass.walk(agent, root, Buffer.from(root.dir), []);
          if (pass.stopped) break;
        }
      }
      pass.flush();
      if (!pass.stopped) pass.vanished();
      pass.flush();
      // Only in full passes: the watcher's passes for the files that just changed stay O(new bytes)
      // (and it asks for a full pass when checks are waiting).
      if (!opts.only && !pass.stopped) pass.checkPrefixes();
      else report.prefix_check.waiting = pass.checksDue();
      pass.flush();
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

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
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

interface PendingDesc {
  v: 1;
  lane: Lane;
  agent: string;
  session: string;
  base_rel: string;
  origin_raw: string; // base64 of the raw origin path, to check whether it still exists
  origin: string;
  offsets: OffsetRec | null; // the floor's state this tail follows
  gen: number;
  lake_path: string;
  byte_from: number;
  line_from: number;
  len: number;
  size: number;
  mtime_ms: number;
}

class Pass {
  private checks = new Map<string, CheckDue>();
  private batchFiles = 0;
  private batchBytes = 0;
  stopped = false;
  private progress = { files: 0, bytes: 0 };
  private now: number;

  constructor(
    readonly l: Layout,
    readonly report: CaptureReport,
    readonly applier: Applier,
    readonly o: PassOpts,
  ) {
    this.now = o.now ?? Date.now();
  }

  private warn(lane: Lane, code: string, p: string, message: string, hint?: string): void {
    this.report.events.push({ code, path: p, message, hint });
    this.report.lanes[lane].warnings++;
  }

  walk(agent: AgentPaths, root: OriginRoot, dir: Buffer, segs: Buffer[]): void {
    let ents: fs.Dirent<Buffer>[];
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (e) {
      this.warn(agent.lane, 'unreadable', displayPath(dir), `cannot list folder: ${(e as Error).message}`, 'check its permissions');
      return;
    }
    for (const ent of ents) {
      if (this.stopped) return;
      const child = Buffer.concat([dir, Buffer.from('/'), ent.name]);
      const childSegs = [...segs, ent.name];
      const rel = childSegs.map((s) => s.toString('utf8')).join('/');
      if (ent.isSymbolicLink()) {
        // Never followed: a link could point outside the agent's folder or loop.
        if (root.include(rel) || isDirNoFollow(child)) {
          this.warn(agent.lane, 'symlink-skipped', displayPath(child), 'symbolic link not followed');
        }
        continue;
      }
      if (ent.isDirectory()) this.walk(agent, root, child, childSegs);
      // A FIFO, socket or device named like a session too: file() says what it is and skips it.
      else if (root.include(rel)) this.file(agent, root, child, childSegs);
    }
  }

  file(agent: AgentPaths, root: OriginRoot, abs: Buffer, segs: Buffer[]): void {
    const lane = agent.lane;
    const display = displayPath(abs);
    const name = originLakeRel(root.lakePrefix, segs);
    const held = name.legacy && this.heldUnderLegacy(lane, name.rel, name.legacy.rel, display);
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
      this.captureFd(agent, lane, fd, st, abs, display, baseRel);
    } catch (e) {
      // A full disk is the floor's, not this file's: stop the pass (capture() says what to do).
      if (diskFull(e, this.l.root)) throw e;
      this.warn(lane, 'capture-failed', display, `capture failed: ${(e as Error).message}`, 'other files were captured; run `brain record` again');
    } finally {
      fs.closeSync(fd);
    }
    this.progress.files++;
    this.o.onProgress?.(this.progress);
    if (this.o.shouldStop?.()) this.stopped = true;
  }

  /** `forced`: a change the prefix check found, which opens a generation whatever else is seen. */
  private captureFd(agent: AgentPaths, lane: Lane, fd: number, st: fs.Stats, abs: Buffer, display: string, baseRel: string, forced?: string): void {
    let off = readOffsets(this.l.offsets, lane, baseRel);
    if (!off) off = this.recoverOffsets(lane, baseRel, display);
    const due = { agent, lane, abs, display, baseRel };
    if (off?.check_left && !forced) this.noteCheck({ ...due, at: off.check_at ?? 0, left: off.check_left, pos: off.check_pos ?? 0 });
    const pendingFile = this.pendingPath(lane, baseRel);
    const pending = readPending(pendingFile);
    let gen = off?.gen ?? 1;
    let consumed = off?.consumed ?? 0;
    let lines = off?.lines ?? 0;
    let reason: string | null = null;
    if (off) {
      if (forced) reason = forced;
      else if (st.ino !== off.ino || st.dev !== off.dev) reason = 'replaced (new inode)';
      else if (st.size < off.consumed) reason = `truncated (${st.size} < ${off.consumed} bytes)`;
      else if (st.size === off.size && st.mtimeMs === off.mtime_ms) {
        // Unchanged since we last looked. Only a waiting unterminated line may be due.
        if (pending && this.now - st.mtimeMs >= this.o.quietMs) {
          this.fromPending(pending, 'quiet');
        }
        return;
      } else if (off.consumed > 0 && !fingerprintOk(fd, off)) reason = 'rewritten (prefix changed)';
      else if (st.size === off.consumed && !samePrefix(fd, path.join(this.l.root, off.lake_path), off.consumed))
        reason = 'rewritten (same size, different bytes)';
      else if (off.unterminated && st.size > off.consumed)
        reason = 'continued a line that was captured unterminated';
      if (reason && agent.rewritesWhole?.(baseRel)) {
        // A file rewritten whole on every update: its versions are kept when it goes quiet (the
        // last change always), or once per quiet period while it keeps changing; a burst of
        // rewrites (a streamed reply) becomes one generation, not one per rewrite.
        const quiet = this.now - st.mtimeMs >= this.o.rewriteQuietMs;
        const since = off.deferred_since ?? null;
        if (!quiet && (since === null || this.now - since < this.o.rewriteQuietMs)) {
          if (since === null) writeOffsets(this.l.offsets, { ...off, deferred_since: this.now });
          this.report.lanes[lane].deferred++;
          return;
        }
      }
      if (reason) {
        gen = off.gen + 1;
        consumed = 0;
        lines = 0;
      }
    }
    if (reason) gen = this.freeGeneration(lane, baseRel, gen, display);
    if (pending && (reason || pending.gen !== gen || pending.byte_from !== consumed)) dropPending(pendingFile);
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
    this.readNew(agent, lane, fd, st, abs, session, ownOff, pendingFile, !off || !!reason);
  }

  /** Reads [consumed, size) into a spool chunk; the complete lines are committed, an unterminated
   * tail waits in spool/<lane>/pending/ unless it is due (quiet origin, or a whole JSON document). */
  private readNew(
    agent: AgentPaths,
    lane: Lane,
    fd: number,
    st: fs.Stats,
    abs: Buffer,
    session: string,
    base: OffsetRec,
    pendingFile: string,
    isNew: boolean,
  ): void {
    const dir = laneSpool(this.l.spool, lane);
    mkdirPrivate(dir);
    const id = spoolId();
    const tmp = path.join(dir, `.tmp-${id}.chunk`);
    const out = fs.openSync(tmp, 'wx', FILE_MODE);
    let closed = false;
    try {
      fs.fchmodSync(out, FILE_MODE);
      const hasher = this.hasherFor(st.size - base.consumed);
      hasher.begin();
      let nl = 0;
      let lastNl = -1;
      let pos = base.consumed;
      let head: Buffer | null = null;
      while (pos < st.size) {
        const buf = hasher.slot();
        const n = fs.readSync(fd, buf, 0, Math.min(buf.length, st.size - pos), pos);
        if (n === 0) break;
        const block = buf.subarray(0, n);
        if (!head) head = Buffer.from(block.subarray(0, Math.min(n, 65536)));
        const li = block.lastIndexOf(10);
        // Hand the block to the hasher first: on a large pass it is hashed on another core while
        // this thread writes it to the spool.
        hasher.block(buf, n, li);
        if (li >= 0) {
          nl += countNewlines(block, 0, li + 1);
          lastNl = pos + li;
        }
        writeAll(out, block);
        if (pos === base.consumed) crashPoint('mid-spool-write');
        pos += n;
      }
      const digests = hasher.end();
      const end = pos;
      const complete = lastNl >= 0 ? lastNl + 1 : base.consumed;
      let chunkEnd = complete;
      let digest = digests.atNewline;
      let lineCount = nl;
      let unterminated = false;
      let source = this.o.source;
      if (end > complete) {
        const quiet = this.now - st.mtimeMs >= this.o.quietMs;
        const jsonDoc = !quiet && base.consumed === 0 && isJsonDocument(tmp, abs);
        if (quiet || jsonDoc) {
          chunkEnd = end;
          digest = digests.full;
          lineCount = nl + 1;
          unterminated = true;
          if (quiet) source = 'quiet';
        } else {
          this.writePending(pendingFile, tmp, complete - base.consumed, end - complete, {
            v: 1,
            lane,
            agent: agent.agent,
            session,
            base_rel: base.base_rel,
            origin_raw: abs.toString('base64'),
            origin: base.origin,
            offsets: null,
            gen: base.gen,
            lake_path: base.lake_path,
            byte_from: complete,
            line_from: base.lines + nl + 1,
            len: end - complete,
            size: st.size,
            mtime_ms: st.mtimeMs,
          });
          this.report.lanes[lane].pending++;
          fs.ftruncateSync(out, complete - base.consumed);
        }
      } else dropPending(pendingFile);
      fs.closeSync(out);
      closed = true;
      if (chunkEnd === base.consumed) {
        fs.rmSync(tmp, { force: true });
        return;
      }
      const after: OffsetRec = {
        ...base,
        consumed: chunkEnd,
        lines: base.lines + lineCount,
        unterminated,
        ...fingerprints(fd, chunkEnd),
        updated_at: new Date(this.now).toISOString(),
      };
      // The pending tail (if any) must know the floor state it follows, for a vanished origin.
      const p = readPending(pendingFile);
      if (p) writeFileAtomic(pendingFile, JSON.stringify({ ...p, offsets: after }) + '\n', { sync: false });
      const line: ManifestLine = {
        v: 1,
        lane,
        agent: agent.agent,
        session,
        gen: base.gen,
        byte_from: base.consumed,
        byte_to: chunkEnd,
        line_from: base.lines + 1,
        line_to: base.lines + lineCount,
        chunk_sha256: digest,
        captured_at: new Date().toISOString(),
        event_ts_first: firstTimestamp(head),
        machine_id: this.report.machine,
        origin_path: base.origin,
        source,
        lake_path: base.lake_path,
        ...(unterminated ? { unterminated: true } : {}),
      };
      fs.renameSync(tmp, path.join(dir, `${id}.chunk`));
      crashPoint('after-spool-chunk');
      commitEntry(this.l.spool, { v: 1, kind: 'chunk', id, line, offsets: after } satisfies ChunkEntry);
      crashPoint('after-spool-commit');
      const c = this.report.lanes[lane];
      c.chunks++;
      c.bytes += chunkEnd - base.consumed;
      c.lines += lineCount;
      if (isNew && base.gen === 1) c.new_files++;
      this.progress.bytes += chunkEnd - base.consumed;
      this.batchFiles++;
      this.batchBytes += chunkEnd - base.consumed;
      if (this.batchFiles >= BATCH_FILES || this.batchBytes >= BATCH_BYTES) this.flush();
    } finally {
      if (!closed) {
        fs.closeSync(out);
        fs.rmSync(tmp, { force: true });
      }
    }
  }

  private inline = new InlineHasher();
  private worker: WorkerHasher | null = null;

  /** Big reads hash on a second core; small ones (the common append) are not worth a thread. */
  private hasherFor(bytes: number): ChunkHasher {
    if (bytes < 8 << 20 || !setting(process.env, 'BRAIN_HASH_THREAD')) return this.inline;
    this.worker ??= new WorkerHasher();
    return this.worker;
  }

  dispose(): void {
    this.worker?.dispose();
    this.worker = null;
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

  /** Applies what this pass has put in the spool. */
  flush(): void {
    if (this.batchFiles === 0) return;
    this.report.applied += this.applier.applyAll().applied.length;
    this.batchFiles = 0;
    this.batchBytes = 0;
  }

  private touchOffsets(off: OffsetRec, st: fs.Stats): void {
    if (off.size === st.size && off.mtime_ms === st.mtimeMs) return;
    writeFileAtomic(
      path.join(this.l.offsets, off.lane, `${off.base_rel}.offset.json`),
      JSON.stringify({ ...off, size: st.size, mtime_ms: st.mtimeMs }) + '\n',
      { sync: false },
    );
  }

  /** Offsets lost but the lake holds the origin: rebuild the record from the manifest, with no origin
   * identity, so the next check compares the whole prefix (fingerprint mismatch -> new generation). */
  private recoverOffsets(lane: Lane, baseRel: string, display: string): OffsetRec | null {
    const claims = this.applier.fullClaims();
    let gen = 0;
    for (let g = 1; ; g++) {
      if (!claims.has(`lake/${lane}/${generationName(baseRel, g)}`)) break;
      gen = g;
    }
    if (gen === 0) return null;
    const lakePath = `lake/${lane}/${generationName(baseRel, gen)}`;
    const c = claims.get(lakePath)!;
    const lakeFd = fs.openSync(path.join(this.l.root, lakePath), 'r');
    try {
      return {
        v: 1,
        lane,
        origin: display,
        base_rel: baseRel,
        gen,
        lake_path: lakePath,
        consumed: c.byte_to,
        lines: c.line_to,
        unterminated: false,
        dev: -1,
        ino: -1,
        size: -1,
        mtime_ms: -1,
        ...fingerprints(lakeFd, c.byte_to),
        updated_at: new Date(this.now).toISOString(),
      };
    } finally {
      fs.closeSync(lakeFd);
    }
  }

  /** Whether a floor written by an earlier version holds this origin under its old lake name (one
   * shaped like a generation or an escape): the offsets there, or else the manifest's claims on that
   * lake file, are this origin's (another origin may hold that name: the one whose escape it is).
   * Asked only for such names, and only until the new name is in use. */
  private heldUnderLegacy(lane: Lane, rel: string, legacy: string, display: string): boolean {
    if (readOffsets(this.l.offsets, lane, rel)) return false;
    const off = readOffsets(this.l.offsets, lane, legacy);
    if (off) return off.origin === display;
    if (!fs.existsSync(path.join(this.l.lake, lane, legacy))) return false;
    return this.applier.fullClaims().get(`lake/${lane}/${legacy}`)?.origin === display;
  }

  /** The first generation from `g` whose lake name no other origin holds: a floor written by an
   * earlier version may keep an origin named like a generation (`x.g2.jsonl`) under that name. */
  private freeGeneration(lane: Lane, baseRel: string, g: number, display: string): number {
    for (; ; g++) {
      const rel = generationName(baseRel, g);
      if (!fs.existsSync(path.join(this.l.lake, lane, rel))) return g;
      // An unclaimed file there is what an interrupted pass left of this generation: the applier
      // cuts what no manifest line claims and writes the chunk again.
      const owner = readOffsets(this.l.offsets, lane, rel)?.origin ?? this.applier.fullClaims().get(`lake/${lane}/${rel}`)?.origin;
      if (owner === undefined) return g;
      if (owner !== display) {
        this.report.events.push({
          code: 'generation-name-taken',
          path: display,
          message: `lake/${lane}/${rel} holds ${owner} (named like a generation by an earlier version); generation ${g + 1} is tried instead`,
        });
      }
    }
  }

  private pendingPath(lane: Lane, baseRel: string): string {
    return path.join(laneSpool(this.l.spool, lane), 'pending', `${createHash('sha256').update(baseRel).digest('hex').slice(0, 24)}.json`);
  }

  private writePending(file: string, tmpChunk: string, from: number, len: number, desc: PendingDesc): void {
    mkdirPrivate(path.dirname(file));
    const bytesFile = file.replace(/\.json$/, '.bytes');
    const tmp = `${bytesFile}.tmp-${process.pid}`;
    const src = fs.openSync(tmpChunk, 'r');
    const dst = fs.openSync(tmp, 'w', FILE_MODE);
    try {
      const buf = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, len)));
      let done = 0;
      while (done < len) {
        const n = fs.readSync(src, buf, 0, Math.min(buf.length, len - done), from + done);
        if (n === 0) break;
        writeAll(dst, buf.subarray(0, n));
        done += n;
      }
    } finally {
      fs.closeSync(src);
      fs.closeSync(dst);
    }
    fs.renameSync(tmp, bytesFile);
    writeFileAtomic(file, JSON.stringify(desc) + '\n', { sync: false });
  }

  /** Captures a waiting unterminated tail as a flagged chunk: its origin went quiet or vanished. */
  private fromPending(p: PendingDesc, why: 'quiet' | 'vanished'): void {
    const file = this.pendingPath(p.lane, p.base_rel);
    const bytesFile = file.replace(/\.json$/, '.bytes');
    let data: Buffer;
    try {
      data = fs.readFileSync(bytesFile);
    } catch {
      dropPending(file);
      return;
    }
    if (data.length !== p.len) {
      dropPending(file);
      return;
    }
    const off = p.offsets ?? readOffsets(this.l.offsets, p.lane, p.base_rel);
    const consumed = off && off.gen === p.gen ? off.consumed : 0;
    if (consumed !== p.byte_from) {
      dropPending(file);
      return;
    }
    const dir = laneSpool(this.l.spool, p.lane);
    const id = spoolId();
    const chunk = path.join(dir, `${id}.chunk`);
    fs.renameSync(bytesFile, chunk);
    const sha = createHash('sha256').update(data).digest('hex');
    const line: ManifestLine = {
      v: 1,
      lane: p.lane,
      agent: p.agent,
      session: p.session,
      gen: p.gen,
      byte_from: p.byte_from,
      byte_to: p.byte_from + p.len,
      line_from: p.line_from,
      line_to: p.line_from,
      chunk_sha256: sha,
      captured_at: new Date().toISOString(),
      event_ts_first: firstTimestamp(data.subarray(0, 65536)),
      machine_id: this.report.machine,
      origin_path: p.origin,
      source: why,
      lake_path: p.lake_path,
      unterminated: true,
    };
    const base: OffsetRec = off ?? {
      v: 1,
      lane: p.lane,
      origin: p.origin,
      base_rel: p.base_rel,
      gen: p.gen,
      lake_path: p.lake_path,
      consumed: 0,
      lines: 0,
      unterminated: false,
      dev: -1,
      ino: -1,
      size: p.size,
      mtime_ms: p.mtime_ms,
      head_sha: '',
      tail_sha: '',
      updated_at: '',
    };
    const head = Buffer.concat([data.subarray(0, FP_WINDOW)]);
    const after: OffsetRec = {
      ...base,
      consumed: p.byte_from + p.len,
      lines: p.line_from,
      unterminated: true,
      // The tail's fingerprint from the lake once applied; recomputed at the next capture.
      head_sha: p.byte_from === 0 ? sha256(head) : base.head_sha,
      tail_sha: '',
      updated_at: new Date(this.now).toISOString(),
    };
    commitEntry(this.l.spool, { v: 1, kind: 'chunk', id, line, offsets: after });
    fs.rmSync(file, { force: true });
    const c = this.report.lanes[p.lane];
    c.chunks++;
    c.bytes += p.len;
    c.lines += 1;
    this.report.events.push({
      code: why === 'quiet' ? 'unterminated-captured' : 'vanished-captured',
      path: p.origin,
      message:
        why === 'quiet'
          ? `last line had no newline and the file was quiet; captured as is (flagged unterminated in the manifest)`
          : `file disappeared with an unterminated last line; captured as is (flagged unterminated)`,
    });
    this.batchFiles++;
  }

  /** Pending tails whose origin is gone are captured now: no byte is ever withheld. */
  vanished(): void {
    for (const [dir, n] of spoolFiles(this.l.spool, 'pending')) {
      if (!n.endsWith('.json')) continue;
      const p = readPending(path.join(dir, n));
      if (!p) continue;
      let gone = false;
      try {
        fs.lstatSync(Buffer.from(p.origin_raw, 'base64'));
      } catch (e) {
        gone = (e as NodeJS.ErrnoException).code === 'ENOENT';
      }
      if (gone) this.fromPending(p, 'vanished');
    }
  }

}

function isDirNoFollow(p: Buffer): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readPending(file: string): PendingDesc | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PendingDesc;
  } catch {
    return null;
  }
}

function dropPending(file: string): void {
  fs.rmSync(file, { force: true });
  fs.rmSync(file.replace(/\.json$/, '.bytes'), { force: true });
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function readAt(fd: number, from: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  let done = 0;
  while (done < len) {
    const n = fs.readSync(fd, b, done, len - done, from + done);
    if (n === 0) break;
    done += n;
  }
  return b.subarray(0, done);
}

/** Hashes of the first and last 4 KiB of [0, end). */
export function fingerprints(fd: number, end: number): { head_sha: string; tail_sha: string } {
  const headLen = Math.min(FP_WINDOW, end);
  const tailFrom = Math.max(0, end - FP_WINDOW);
  return { head_sha: sha256(readAt(fd, 0, headLen)), tail_sha: sha256(readAt(fd, tailFrom, end - tailFrom)) };
}

function fingerprintOk(fd: number, off: OffsetRec): boolean {
  const fp = fingerprints(fd, off.consumed);
  return fp.head_sha === off.head_sha && (off.tail_sha === '' || fp.tail_sha === off.tail_sha);
}

/** Full comparison of the origin's first `len` bytes with the lake file (rare: same-size changes). */
function samePrefix(fd: number, lake: string, len: number): boolean {
  let lfd: number;
  try {
    lfd = fs.openSync(lake, 'r');
  } catch {
    return false;
  }
  try {
    return firstDifference(fd, lfd, len) === -1;
  } finally {
    fs.closeSync(lfd);
  }
}

/** A .json origin without a trailing newline is complete when it parses as one JSON document. */
function isJsonDocument(tmpChunk: string, abs: Buffer): boolean {
  if (!abs.toString('utf8').endsWith('.json')) return false;
  try {
    const st = fs.statSync(tmpChunk);
    if (st.size > 64 << 20) return false;
    JSON.parse(fs.readFileSync(tmpChunk, 'utf8'));
    return true;
  } catch {
    return false;
  }
}

const TS = /"(?:timestamp|startTime|created_at|createdAt)"\s*:\s*"(\d{4}-\d\d-\d\dT[^"]{1,40})"/;
function firstTimestamp(head: Buffer | null): string | null {
  if (!head) return null;
  const m = TS.exec(head.toString('utf8'));
  return m ? m[1] : null;
}

export { isDir };
