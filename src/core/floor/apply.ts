// The applier: spool -> lake -> manifest -> offsets, in that order, under the floor lock.
// A crash between any two steps re-applies idempotently: the lake append is guarded by the length
// the manifest claims, and a chunk whose bytes are already in the lake is only claimed, not copied.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, mkdirPrivate, type Layout } from '../home';
import { flushFiles, openAppend, writeAll, writeFileAtomic } from './durable';
import { readManifest, type Lane, type ManifestLine } from './manifest';
import { readOffsets, writeOffsets, type OffsetRec } from './offsets';
import { hashRange } from './ranges';
import { keepRefusal, listEntries, reject, spoolFiles, spoolId, type ChunkEntry, type ListedEntry, type MetaEntry, type SpoolEntry } from './spool';
import { crashArmed, crashPoint } from './crash';
import { recoverJournals } from './journal';
import { metaDir, metaName } from './metaname';
import { within } from '../safepath';

export interface FloorEvent {
  code: string;
  path: string;
  message: string;
  hint?: string;
  /** Bytes were not taken in because the floor is not as the manifest says: the pass fails. */
  refused?: true;
}

export interface ApplyResult {
  applied: ManifestLine[];
  metas: string[];
  events: FloorEvent[];
}

const CHECKPOINT = '.checkpoint.json';

/** What the manifest claims for each lake file: bytes, lines, and whose (the last claim's origin). */
interface Claim {
  byte_to: number;
  line_to: number;
  origin?: string;
}
type Claims = Map<string, Claim>;

export class Applier {
  private manifestFd: number | undefined;
  /** Claims from manifest lines past the checkpoint (written by a run that crashed before its offsets). */
  private tail: Claims = new Map();
  private full: Claims | undefined;
  readonly events: FloorEvent[] = [];
  /** Lake folders this pass found to be real folders (not symlinks): a pass writes thousands of
   * files into a few hundred folders. */
  private seenDirs = new Set<string>();

  constructor(readonly l: Layout) {}

  /** Run once when the lock is taken: repair a torn manifest tail, learn what the manifest claims past
   * the checkpoint, clear stale temp files, then apply whatever a crashed run left in the spool. */
  recover(): ApplyResult {
    this.repairManifestTail();
    const from = this.readCheckpoint();
    const size = fileSize(this.l.manifest);
    if (size > from) {
      const r = readManifest(this.l.manifest, from);
      for (const m of r.lines) noteClaim(this.tail, m);
    }
    this.clearStaleTemps();
    const journalled = recoverJournals(this);
    const r = this.applyAll();
    r.applied.unshift(...journalled);
    return r;
  }

  private repairManifestTail(): void {
    const size = fileSize(this.l.manifest);
    if (size <= 0) return;
    const fd = fs.openSync(this.l.manifest, 'r+');
    try {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] === 10) return;
      // A torn last write: find the last newline and cut the fragment. The fragment was never a
      // complete claim; its chunk is still in the spool and is claimed again below.
      const win = Buffer.allocUnsafe(Math.min(size, 1 << 20));
      let end = size;
      let cut = 0;
      while (end > 0) {
        const start = Math.max(0, end - win.length);
        const n = fs.readSync(fd, win, 0, end - start, start);
        const i = win.subarray(0, n).lastIndexOf(10);
        if (i >= 0) {
          cut = start + i + 1;
          break;
        }
        end = start;
      }
      fs.ftruncateSync(fd, cut);
      fs.fdatasyncSync(fd);
      this.events.push({
        code: 'manifest-torn-tail',
        path: this.l.manifest,
        message: `removed an unfinished last manifest line (${size - cut} bytes) left by an interrupted write; its chunk is re-applied from the spool`,
      });
    } finally {
      fs.closeSync(fd);
    }
  }

  private readCheckpoint(): number {
    try {
      const j = JSON.parse(fs.readFileSync(path.join(this.l.offsets, CHECKPOINT), 'utf8')) as { manifest_len?: number };
      const n = j.manifest_len ?? 0;
      return n <= fileSize(this.l.manifest) ? n : 0;
    } catch {
      return 0;
    }
  }

  private writeCheckpoint(): void {
    writeFileAtomic(path.join(this.l.offsets, CHECKPOINT), JSON.stringify({ manifest_len: fileSize(this.l.manifest) }) + '\n', {
      sync: false,
    });
    this.tail.clear();
  }

  private clearStaleTemps(): void {
    const cutoff = Date.now() - 60_000;
    for (const [dir, n] of spoolFiles(this.l.spool)) {
      if (!n.startsWith('.tmp-')) continue;
      const p = path.join(dir, n);
      try {
        // Only old temps: a hook may be writing one right now without the lock.
        if (fs.lstatSync(p).mtimeMs < cutoff) fs.unlinkSync(p);
      } catch {
        /* gone already */
      }
    }
  }


  /** Claimed length of a lake file: the largest of the offsets record and the manifest tail; for a lake
   * file the origin's offsets do not name (offsets lost, or a generation this chunk opens) that
   * exists, what the whole manifest claims of it, and for whom (`origin`). */
  claimed(e: ChunkEntry): Claim {
    return this.claimFor(e.line.lake_path, e.offsets.lane, e.offsets.base_rel);
  }

  private claimFor(lp: string, lane: Lane, baseRel: string, stored?: OffsetRec | null): Claim {
    const t = this.tail.get(lp);
    const off = stored !== undefined ? stored : readOffsets(this.l.offsets, lane, baseRel);
    let best: Claim = { byte_to: 0, line_to: 0 };
    if (off && off.lake_path === lp) {
      best = { byte_to: off.consumed, line_to: off.lines };
      if (t && t.byte_to > best.byte_to) best = { byte_to: t.byte_to, line_to: t.line_to };
      return best;
    }
    if (fs.existsSync(path.join(this.l.root, lp))) best = this.fullClaims().get(lp) ?? best;
    if (t && t.byte_to > best.byte_to) best = t;
    return best;
  }

  fullClaims(): Claims {
    if (!this.full) {
      this.full = new Map();
      for (const m of readManifest(this.l.manifest).lines) noteClaim(this.full, m);
    }
    return this.full;
  }

  /** Applies every committed spool entry, in order, in batches with one flush per batch. */
  applyAll(): ApplyResult {
    const res: ApplyResult = { applied: [], metas: [], events: this.events };
    const entries = listEntries(this.l.spool, (f, why) =>
      this.events.push({ code: 'spool-rejected', path: f, message: `moved aside from the spool: ${why}` }),
    );
    const BATCH = 256;
    for (let i = 0; i < entries.length; i += BATCH) this.applyBatch(entries.slice(i, i + BATCH), res);
    return res;
  }

  private applyBatch(batch: ListedEntry[], res: ApplyResult): void {
    const ready: { le: ListedEntry; e: ChunkEntry; needsClaim: boolean }[] = [];
    const touched: string[] = [];
    for (const le of batch) {
      let e: SpoolEntry;
      try {
        e = JSON.parse(fs.readFileSync(le.descriptor, 'utf8')) as SpoolEntry;
      } catch {
        if (!fs.existsSync(le.descriptor)) continue; // taken by a hook that applied its own meta record
        reject(this.l.spool, le.descriptor, 'unreadable spool descriptor', (f, why) =>
          this.events.push({ code: 'spool-rejected', path: f, message: why }),
        );
        continue;
      }
      if (e.kind === 'meta') {
        const dest = applyMeta(this.l, e);
        if (dest) res.metas.push(dest);
        fs.rmSync(le.descriptor, { force: true });
        continue;
      }
      let r: ReturnType<Applier['writeChunk']>;
      try {
        r = this.writeChunk(le, e);
      } catch (err) {
        const taken = nameTaken(this.l.root, e.line.lake_path, e.line.origin_path);
        if (!taken) throw err;
        // As openForChunk: that origin's warning. Its bytes are read again from the origin.
        this.events.push(taken);
        reject(this.l.spool, le.descriptor, taken.message, () => undefined);
        fs.rmSync(le.chunk, { force: true });
        continue;
      }
      if (r === 'reject') continue;
      if (r !== 'already') touched.push(path.join(this.l.root, e.line.lake_path));
      ready.push({ le, e, needsClaim: r !== 'already' || !this.isClaimed(e) });
    }
    // Bytes first, durably; only then the claims about them.
    flushFiles(touched, this.l.lake);
    crashPoint('after-lake-before-manifest');
    const lines = ready.filter((r) => r.needsClaim).map((r) => r.e.line);
    this.claimLines(lines);
    crashPoint('after-manifest-before-offsets');
    for (const r of ready) {
      writeOffsets(this.l.offsets, r.e.offsets);
      crashPoint('after-offsets');
      fs.rmSync(r.le.chunk, { force: true });
      fs.rmSync(r.le.descriptor, { force: true });
      if (r.needsClaim) res.applied.push(r.e.line);
    }
    if (ready.length > 0) this.writeCheckpoint();
  }

  /** Appends the claims of bytes already flushed to the lake, and flushes them. */
  claimLines(lines: ManifestLine[]): void {
    if (lines.length === 0) return;
    const fd = this.manifest();
    writeAll(fd, Buffer.from(lines.map((m) => JSON.stringify(m) + '\n').join('')));
    fs.fdatasyncSync(fd);
    for (const m of lines) {
      noteClaim(this.tail, m);
      if (this.full) noteClaim(this.full, m);
    }
  }

  /** A chunk that a locked pass writes straight into its lake file (journal.ts): the checks
   * writeChunk makes, an unclaimed tail an interrupted pass left cut, then the file opened to
   * append at `byte_from`. null: not written (the event says why); the origin's offsets do not
   * move, so its bytes are read again. */
  openForChunk(t: ChunkTarget): { fd: number; created: boolean } | null {
    try {
      return this.openTarget(t);
    } catch (e) {
      // One origin whose lake name another lake path holds (a session file that became a folder
      // of sessions, or the reverse) is that origin's warning; the pass goes on for every other.
      const taken = nameTaken(this.l.root, t.lake_path, t.origin_path);
      if (!taken) throw e;
      this.events.push(taken);
      return null;
    }
  }

  private openTarget(t: ChunkTarget): { fd: number; created: boolean } | null {
    const lake = within(this.l.root, t.lake_path, { what: 'lake_path', disk: true, file: true, seen: this.seenDirs });
    const refuse = (ev: Omit<FloorEvent, 'refused'>): null => {
      this.events.push({ ...ev, refused: true });
      const { stored: _stored, ...where } = t;
      keepRefusal(this.l.spool, spoolId(), { v: 1, kind: 'refused', ...where, code: ev.code, message: ev.message });
      return null;
    };
    const claim = this.claimFor(t.lake_path, t.lane, t.base_rel, t.stored);
    if (claim.origin !== undefined && claim.origin !== t.origin_path) return refuse(claimedByOther(lake, claim, t.origin_path));
    if (claim.byte_to !== t.byte_from || claim.line_to !== t.line_from - 1) {
      this.events.push({
        code: 'chunk-rejected',
        path: lake,
        message: `bytes from ${t.byte_from} of ${t.origin_path} do not follow the floor (${claim.byte_to} bytes claimed); not written, the origin is read again`,
      });
      return null;
    }
    const size = fileSize(lake);
    if (size >= 0 && size < claim.byte_to) return refuse(lakeShort(lake, size, claim, t.origin_path));
    if (size > claim.byte_to && !this.truncateTorn(refuse, lake, t.lake_path, claim.byte_to, size)) return null;
    if (size < 0) mkdirPrivate(path.dirname(lake));
    const fd = fs.openSync(lake, APPEND_NOFOLLOW, FILE_MODE);
    try {
      fs.fchmodSync(fd, FILE_MODE);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    return { fd, created: size < 0 };
  }

  /** Makes a lake file end where the manifest's claims on it end, after an interrupted pass: what
   * nothing claims is cut, and a file nothing claims at all is removed. */
  cutUnclaimed(lakePath: string): void {
    const lake = within(this.l.root, lakePath, { what: 'lake_path', disk: true, file: true });
    const size = fileSize(lake);
    const keep = this.fullClaims().get(lakePath)?.byte_to ?? 0;
    if (size <= keep) return;
    if (keep === 0) fs.rmSync(lake, { force: true });
    else fs.truncateSync(lake, keep);
    this.events.push({
      code: 'lake-torn-tail',
      path: lake,
      message: `removed ${size - keep} unclaimed bytes after byte ${keep} left by an interrupted pass; the origin's bytes are written again`,
    });
  }

  /** Notes that the manifest is flushed up to its current length (the offsets are written). */
  checkpoint(): void {
    this.writeCheckpoint();
  }

  private isClaimed(e: ChunkEntry): boolean {
    return this.claimed(e).byte_to >= e.line.byte_to;
  }

  /** Puts a chunk's bytes in its lake file. 'already': the manifest claims them (or the bytes are
   * there and only the claim is missing, handled by the caller through isClaimed). */
  private writeChunk(le: ListedEntry, e: ChunkEntry): 'written' | 'already' | 'reject' {
    const m = e.line;
    // A symlink planted in the lake would have the append (or a torn-tail cut) land outside.
    const lake = within(this.l.root, m.lake_path, { what: 'lake_path', disk: true, file: true });
    const claim = this.claimed(e);
    if (claim.origin !== undefined && claim.origin !== m.origin_path) {
      this.refuse(le, claimedByOther(lake, claim, m.origin_path));
      return 'reject';
    }
    if (claim.byte_to >= m.byte_to) return 'already';
    if (claim.byte_to !== m.byte_from || claim.line_to !== m.line_from - 1) {
      reject(this.l.spool, le.descriptor, `chunk ${m.byte_from}-${m.byte_to} of ${m.lake_path} does not follow the floor (${claim.byte_to} bytes claimed); the origin is read again`, (f, why) =>
        this.events.push({ code: 'spool-rejected', path: f, message: why }),
      );
      fs.rmSync(le.chunk, { force: true });
      return 'reject';
    }
    const size = fileSize(lake);
    if (size >= 0 && size < claim.byte_to) {
      this.refuse(le, lakeShort(lake, size, claim, m.origin_path));
      return 'reject';
    }
    const haveChunk = fs.existsSync(le.chunk);
    if (size > claim.byte_to) {
      // Unclaimed bytes at the end of the lake: a crash after (part of) this append. Keep them if
      // they are this chunk's bytes; otherwise they are a torn write that nothing claims, and the
      // chunk's own bytes replace them.
      const have = Math.min(size, m.byte_to) - m.byte_from;
      const ours = haveChunk ? hashRange(le.chunk, 0, have) : null;
      const theirs = hashRange(lake, m.byte_from, m.byte_from + have);
      if (size <= m.byte_to && (ours === theirs || (!haveChunk && size === m.byte_to && theirs === m.chunk_sha256))) {
        if (size === m.byte_to) return 'written';
        return this.appendFrom(le, lake, have);
      }
      if (!this.truncateTorn((ev) => this.refuse(le, ev), lake, m.lake_path, claim.byte_to, size)) return 'reject';
      if (!haveChunk) {
        reject(this.l.spool, le.descriptor, 'chunk bytes missing and the lake tail does not match them', () => undefined);
        return 'reject';
      }
    }
    if (!haveChunk) {
      reject(this.l.spool, le.descriptor, 'chunk bytes missing from the spool; the origin is read again', (f, why) =>
        this.events.push({ code: 'spool-rejected', path: f, message: why }),
      );
      return 'reject';
    }
    if (size < 0 && m.byte_from === 0) {
      // A new lake file: the spool chunk becomes it (one write of the bytes in all).
      mkdirPrivate(path.dirname(lake));
      fs.renameSync(le.chunk, lake);
      return 'written';
    }
    return this.appendFrom(le, lake, 0);
  }

  private appendFrom(le: ListedEntry, lake: string, skip: number): 'written' {
    const src = fs.openSync(le.chunk, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const dst = openAppend(lake);
    try {
      fs.fchmodSync(dst, FILE_MODE);
      const buf = Buffer.allocUnsafe(4 << 20);
      let pos = skip;
      let first = true;
      for (;;) {
        const n = fs.readSync(src, buf, 0, buf.length, pos);
        if (n === 0) break;
        if (first && n > 1 && crashArmed()) {
          // Tests: a crash half-way through an append leaves a torn lake tail.
          writeAll(dst, buf.subarray(0, n >> 1));
          crashPoint('mid-lake-append');
          writeAll(dst, buf.subarray(n >> 1, n));
        } else writeAll(dst, buf.subarray(0, n));
        first = false;
        pos += n;
      }
    } finally {
      fs.closeSync(src);
      fs.closeSync(dst);
    }
    return 'written';
  }

  /** Cuts the bytes after `keep` that an interrupted append left, once the whole manifest confirms
   * no line claims them; false (and the chunk refused) when one does. */
  private truncateTorn(refuse: (ev: Omit<FloorEvent, 'refused'>) => void, lake: string, lakePath: string, keep: number, size: number): boolean {
    const claimed = this.fullClaims().get(lakePath);
    if (claimed && claimed.byte_to > keep) {
      refuse({
        code: 'lake-claimed',
        path: lake,
        message: `bytes ${keep}-${claimed.byte_to} of this file are claimed by the manifest (for ${claimed.origin}) although the floor's offsets say they are not; nothing cut, nothing appended`,
        hint: 'run `brain verify`; then `brain record` again (the offsets are rebuilt from the manifest if you remove this origin\'s file under BRAIN_HOME/offsets)',
      });
      return false;
    }
    fs.truncateSync(lake, keep);
    this.events.push({
      code: 'lake-torn-tail',
      path: lake,
      message: `removed ${size - keep} unclaimed bytes after byte ${keep} left by an interrupted append; the chunk is written again`,
    });
    return true;
  }

  /** A chunk not taken in because the lake is not as the manifest says: reported as a failure of the
   * pass. Its descriptor is kept aside; its bytes are dropped, as the origin's offsets did not move
   * and the next pass reads them again. */
  private refuse(le: ListedEntry, ev: Omit<FloorEvent, 'refused'>): void {
    this.events.push({ ...ev, refused: true });
    reject(this.l.spool, le.descriptor, ev.message, () => undefined);
    fs.rmSync(le.chunk, { force: true });
  }

  private manifest(): number {
    if (this.manifestFd === undefined) this.manifestFd = openAppend(this.l.manifest);
    return this.manifestFd;
  }

  close(): void {
    if (this.manifestFd !== undefined) fs.closeSync(this.manifestFd);
    this.manifestFd = undefined;
  }
}

// The lake file is opened to append without following a symlink (within() checked the folders).
const APPEND_NOFOLLOW = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0);

/** Another origin's bytes (an origin named like this one's generation by an earlier version):
 * neither cut nor taken as this chunk's. The next pass picks a generation name no one holds. */
function claimedByOther(lake: string, claim: Claim, origin: string): Omit<FloorEvent, 'refused'> {
  return {
    code: 'lake-claimed',
    path: lake,
    message: `the manifest claims ${claim.byte_to} bytes of this file for ${claim.origin}; the chunk of ${origin} meant for it was not written`,
    hint: 'run `brain record` again: it writes the chunk under another generation name; if this repeats, run `brain verify` and report it',
  };
}

function lakeShort(lake: string, size: number, claim: Claim, origin: string): Omit<FloorEvent, 'refused'> {
  return {
    code: 'lake-short',
    path: lake,
    message: `lake file is ${size} bytes but the manifest claims ${claim.byte_to}; nothing appended to it`,
    hint: `run \`brain verify\` and restore this file from the store (\`brain verify --store\`); the bytes of ${origin} are read again by the next pass`,
  };
}

/** Where a chunk of an origin goes (journal.ts writes it straight into its lake file). */
type ChunkTarget = { lane: Lane; base_rel: string; lake_path: string; origin_path: string; byte_from: number; line_from: number; stored?: OffsetRec | null };

/** Why `lakePath` cannot be made because another lake path holds its place: a lake file where one
 * of its folders would go, or a folder of lake files where it would go. Null: not that (a symlink
 * is within()'s to refuse, and stops the pass as before). */
export function nameTaken(root: string, lakePath: string, origin: string): Omit<FloorEvent, 'refused'> | null {
  const parts = lakePath.split('/').filter((p) => p !== '' && p !== '.');
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = path.join(cur, parts[i]);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) return null;
    const last = i === parts.length - 1;
    const held = parts.slice(0, i + 1).join('/');
    // lake/ and lake/<lane>/ are the floor's own folders, no origin's: one that is not a folder is
    // the floor's problem (the pass stops, as before), not this origin's.
    if (!last && !st.isDirectory()) return i < 2 && parts[0] === 'lake' ? null : taken(cur, origin, `${held} is a lake file there, so ${lakePath} cannot be made under it`);
    if (last && st.isDirectory()) return taken(cur, origin, `${lakePath} is a folder of other lake files there`);
  }
  return null;
}

function taken(where: string, origin: string, why: string): Omit<FloorEvent, 'refused'> {
  return {
    code: 'lake-name-taken',
    path: origin,
    message: `not recorded: ${why} (the agent turned a session file into a folder, or the reverse, after it was recorded); ${where} is kept as it is`,
    hint: 'nothing recorded is lost and every other session is recorded; rename that file or folder at the agent if it should be recorded too',
  };
}

function noteClaim(c: Claims, m: ManifestLine): void {
  const prev = c.get(m.lake_path);
  if (!prev || m.byte_to > prev.byte_to) c.set(m.lake_path, { byte_to: m.byte_to, line_to: m.line_to, origin: m.origin_path });
}

function fileSize(f: string): number {
  try {
    return fs.statSync(f).size;
  } catch {
    return -1;
  }
}

/** Writes meta/<lane>/<session>.json without a lock: link(2) refuses to replace, so two writers
 * never clobber each other. A later, different record for the same session gets <session>.N.json. */
export function applyMeta(l: Layout, e: MetaEntry): string | null {
  const dir = metaDir(l.root, e.lane);
  mkdirPrivate(dir);
  const body = JSON.stringify(e.record, null, 1) + '\n';
  const tmp = path.join(dir, `.tmp-${process.pid}-${e.id}`);
  fs.writeFileSync(tmp, body, { mode: FILE_MODE });
  fs.chmodSync(tmp, FILE_MODE);
  try {
    for (let n = 1; n < 1000; n++) {
      const dest = within(dir, metaName(e.session, n), { what: 'the meta record of session' });
      try {
        fs.linkSync(tmp, dest);
        return dest;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (sameMeta(dest, e.record)) return null;
      }
    }
    return null;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function sameMeta(file: string, rec: Record<string, unknown>): boolean {
  try {
    const old = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    return JSON.stringify(old.git) === JSON.stringify(rec.git) && old.cwd === rec.cwd && old.source === rec.source;
  } catch {
    return false;
  }
}
