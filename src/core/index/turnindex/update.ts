// Keeping the turn index current. It is a cache of the floor's manifests: each update reads the
// manifest lines added since the last one and, per file, only the bytes after the file's checkpoint (the start of the
// turns a later line could still extend). Updates from several processes are safe: each batch is a
// BEGIN IMMEDIATE transaction, and a file's progress is read again inside it, so two updates never
// add the same turns twice. A new generation is a file of its own, read fresh; the older ones stay
// in the index, so what only they hold is found too (turncount.ts counts a turn they share once).
// claims.ts folds the manifest lines, fileread.ts reads one file's bytes, sessions.ts keeps the
// sessions' rows, ahead.ts runs the parse threads.
import { OverBudgetError, readManifest, readStoreManifest } from '../../floor/manifest';
import { DeadlineError, NotRegularError } from '../../safeopen';
import type { ParseJob } from '../parse-job';
import { ParsePool } from '../pool';
import { baseOfGen, formOf } from '../roots';
import { agentByLane } from '../../agents';
import { laneRel } from '../read';
import { fileBytes, type FileRow, type SessionRow, type UpdateReport } from './schema';
import type { Checkpoint } from '../../turns';
import { setting } from '../../settings';
import { addClaims, type Claim } from './claims';
import { FileReader, pieceBytes, type FileRead } from './fileread';
import { ParseAhead } from './ahead';

/** A budgeted update's piece: small enough that one is read well within a slice. */
const SLICE_PIECE = 4 << 20;

/** The manifest lines read in an update: a claim per file, and how far each manifest was read. */
type ManifestRead = { claims: Map<string, Claim>; offsets: { key: string; to: number }[] };

/** An open turn index: what it reads (IndexQueries), what a batch holds (TurnBatch), and bringing it up to date with the floor. */
export class TurnIndex extends FileReader {
  /** When a budgeted update stops (update's budgetMs); Infinity: it does not. */
  private until = Infinity;
  /** Files this update counted in its report. */
  private counted = new Set<number>();

  /** Brings the index up to date with the floor. Throws (SQLite errors) when it cannot write. */
  update(o: { budgetMs?: number } = {}): UpdateReport {
    const t0 = Date.now();
    // A budget (brain watch: capture goes on between two slices) stops the update between two
    // batches, each committed; what is left is read by the next update. A first build is one
    // transaction, so it is never cut.
    this.until = o.budgetMs && !this.fresh ? t0 + o.budgetMs : Infinity;
    this.piece = this.until === Infinity ? pieceBytes() : Math.min(pieceBytes(), SLICE_PIECE);
    const rep: UpdateReport = { files: 0, bytes: 0, turns: 0, parsed_ahead: 0, text_bytes: 0, ms: 0, refused: [] };
    // What a failed update gathered was rolled back with it.
    this.raw?.clear();
    this.seen = new Set();
    this.whole = new Set();
    this.counted = new Set();
    this.checkMachineName();
    const read = this.readManifests(rep);
    if (!read) {
      // A manifest is append-only; a shorter one is another floor: read it all again.
      this.reset();
      return this.update(o);
    }
    // Claims first (cheap), then the bytes, in batches so another process can take the lock between.
    const todo = [...read.claims.values()].sort((a, b) => a.gen - b.gen);
    this.tx(() => {
      for (const c of todo) this.claim(c);
    });
    this.readBehind(rep);
    this.saveOffsets(read.offsets);
    if (this.whole.size) rep.whole = this.whole.size;
    const wasFresh = this.fresh;
    this.finishFresh();
    // After a change, or when an earlier merge found a reader in the way.
    if (!wasFresh && (read.offsets.length > 0 || fileBytes(`${this.root.index}-wal`) > 0)) this.mergeWal();
    rep.ms = Date.now() - t0;
    return rep;
  }

  /** This machine's index is named after it: a renamed machine starts again under its new name. */
  private checkMachineName(): void {
    if (this.root.kind !== 'home') return;
    const name = this.root.machines[0].machine;
    const was = this.st.getMeta.get('home_machine') as string | undefined;
    if (was === name) return;
    if (was !== undefined) this.reset();
    this.tx(() => this.st.setMeta.run('home_machine', name));
  }

  /** The manifest lines added since the last update, as claims; null when a manifest is shorter
   * than what was read of it already. */
  private readManifests(rep: UpdateReport): ManifestRead | null {
    const offsets: ManifestRead['offsets'] = [];
    const claims = new Map<string, Claim>();
    for (const mf of this.root.machines) {
      const p = this.manifestProgress(mf);
      if (!p) continue;
      const { key, from, size, mfile } = p;
      if (size < from) return null;
      if (size === from) continue;
      let r: ReturnType<typeof readManifest>;
      try {
        // At the store each machine's manifest is read under its own budget: a folder over it is
        // left out of this update and named (its claims would fill the index), the others go on.
        r = this.root.kind === 'store' ? readStoreManifest(mf.machine, mfile, from) : readManifest(mfile, from);
      } catch (e) {
        if (this.root.kind !== 'store' || !(e instanceof NotRegularError || e instanceof DeadlineError || e instanceof OverBudgetError)) throw e;
        rep.refused.push({ machine: mf.machine, lake_path: 'manifest/manifest.jsonl', problem: e.message });
        continue;
      }
      addClaims(claims, mf, r.lines);
      offsets.push({ key, to: r.length });
    }
    return { claims, offsets };
  }

  private saveOffsets(offsets: ManifestRead['offsets']): void {
    if (!offsets.length) return;
    this.tx(() => {
      for (const o of offsets) {
        const cur = Number(this.st.getMeta.get(o.key) ?? 0);
        if (o.to > cur) this.st.setMeta.run(o.key, String(o.to));
      }
    });
  }

  /** Rounds: each reads every file behind by at most a piece; a file with more is read on in the
   * next round (only those), until none has. */
  private readBehind(rep: UpdateReport): void {
    let behind = this.st.behind.all() as FileRow[];
    for (;;) {
      this.cut = new Set();
      this.round(behind, rep);
      if (this.cut.size === 0) break;
      if (Date.now() > this.until) {
        rep.more = true;
        break;
      }
      rep.pieces = (rep.pieces ?? 0) + this.cut.size;
      behind = [...this.cut].map((id) => this.st.fileById.get(id) as FileRow);
    }
  }

  /** Reads the new bytes of `behind` (a piece of each at most), with parse threads when there is
   * enough to read. */
  private round(behind: FileRow[], rep: UpdateReport): void {
    const piece = this.piece;
    const pending = behind.reduce((a, r) => a + Math.min(piece, Math.max(0, r.claimed - (r.ck ? (JSON.parse(r.ck) as Checkpoint).byte : 0))), 0);
    // Parse threads pay off on a first build or a big catch-up, not on a few appended lines.
    // Nor in a budgeted slice: what the threads parsed ahead of where it stops would be dropped.
    const pool = pending >= setting(process.env, 'BRAIN_INDEX_WORKER_MIN') && this.until === Infinity ? ParsePool.start() : null;
    const ahead = new ParseAhead(pool, behind, (row) => this.threadJob(row));
    // A first build is one transaction: its file is this process's alone until it is done (and a
    // build that dies is started again, never resumed). FTS5 writes its pending terms out as a
    // segment at each commit (and at the first savepoint after a batch's FTS rows), which
    // 'optimize' merges again (finishFresh).
    const batch = this.fresh ? (fn: () => void) => fn() : (fn: () => void) => this.tx(fn);
    let i = 0;
    const run = () => {
      while (i < behind.length) {
        if (Date.now() > this.until) {
          rep.more = true;
          return;
        }
        batch(() => {
          i = this.readBatch(behind, i, ahead, rep);
        });
      }
    };
    try {
      if (this.fresh) this.tx(run);
      else run();
    } finally {
      ahead.close();
    }
  }

  /** A file's job for a parse thread, naming its session (the thread reads its meta record too). */
  private threadJob(row: FileRow): ParseJob | null {
    const job = this.jobFor(row);
    if (!job) return null;
    const s = this.st.sessById.get(row.sess_id) as SessionRow;
    const mf = this.root.machines.find((m) => m.machine === s.machine);
    return mf ? { ...job, meta: { dir: mf.dir, lane: s.lane, session: s.session } } : job;
  }

  /** One batch: the files of `behind` from `i` on, for up to 256 MB or two seconds, then its packs,
   * FTS rows and raw lists written. Returns where the next batch starts. */
  private readBatch(behind: FileRow[], i: number, ahead: ParseAhead, rep: UpdateReport): number {
    const started = Date.now();
    let bytes = 0;
    this.ftsRows.clear();
    this.ftsGone = [];
    this.keyedSess.clear();
    this.fileKeys.clear();
    this.packs.clear();
    this.dirty.clear();
    while (i < behind.length && bytes < 256 << 20 && Date.now() - started < 2000 && Date.now() <= this.until) {
      ahead.fill(i);
      const got = ahead.take(i, rep);
      const row = behind[i++];
      const r = this.indexFile(row, got, rep.refused);
      bytes += r.bytes;
      this.count(row, r, rep);
    }
    this.writePacks();
    this.writeFts();
    // The raw lists go in with the raw_done they match; a first build (its file its own
    // until done) writes them when they are big or at the end, each list once.
    if (!this.fresh || i >= behind.length || this.rawWriter().size > 32 << 20) this.rawWriter().flush();
    return i;
  }

  /** What a file's read adds to the report; a file read in pieces is one file. */
  private count(row: FileRow, r: FileRead, rep: UpdateReport): void {
    if (r.ahead) rep.parsed_ahead++;
    rep.text_bytes += r.text;
    rep.bytes += r.bytes;
    rep.turns += r.turns;
    if ((r.bytes > 0 || r.turns > 0) && !this.counted.has(row.id)) {
      this.counted.add(row.id);
      rep.files++;
    }
  }

  /** After a change, the WAL is merged into the file and emptied when no reader is in the way, so
   * the file alone is the whole index again: `brain mcp`, which writes nothing, can then read a
   * copy of it (snapshotIndex). Never waits: a busy index is merged on a later change. */
  private mergeWal(): void {
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      /* busy or not in WAL mode: nothing to do */
    } finally {
      this.db.pragma('busy_timeout = 30000');
    }
  }

  /** Forgets everything (a replaced floor). */
  reset(): void {
    this.tx(() => {
      this.db.exec(`DELETE FROM turn_packs; DELETE FROM blocks; DELETE FROM files; DELETE FROM sessions; DELETE FROM meta WHERE k NOT IN ('schema', 'building');`);
      this.db.exec(`INSERT INTO turns_fts (turns_fts) VALUES ('delete-all')`);
      this.db.exec(`DELETE FROM raw_post; DELETE FROM raw_chunks; DELETE FROM raw_marks; DELETE FROM said_tail;`);
    });
    this.raw?.clear();
  }

  /** A manifest's claim on a file: its row made (with its session's) when new, its claim moved on. */
  private claim(c: Claim): void {
    const machine = c.mf.machine;
    let row = this.st.fileByPath.get(machine, c.lake_path) as FileRow | undefined;
    if (!row) {
      const agent = agentByLane(c.lane);
      const { rel } = laneRel(c.lake_path);
      const session = c.session || agent?.sessionOf(baseOfGen(rel, c.gen)) || rel;
      const sid = this.sessionId(machine, c.lane, session);
      const base = formOf(c.lake_path, c.gen);
      this.st.insertFile.run(machine, c.lake_path, base, c.gen, c.lane, sid, c.first_seen, c.last_seen);
      row = this.st.fileByPath.get(machine, c.lake_path) as FileRow;
    }
    this.st.claimFile.run(c.byte_to, c.unterminated ? 1 : 0, c.first_seen, c.first_seen, c.last_seen, row.id);
  }
}
