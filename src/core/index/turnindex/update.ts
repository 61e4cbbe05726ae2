// Keeping the turn index current. It is a cache of the floor's manifests: each update reads the
// manifest lines added since the last one and, per file, only the bytes after the file's checkpoint (the start of the
// turns a later line could still extend). Updates from several processes are safe: each batch is a
// BEGIN IMMEDIATE transaction, and a file's progress is read again inside it, so two updates never
// add the same turns twice. A new generation is a file of its own, read fresh; the older ones stay
// in the index, so what only they hold is found too (turncount.ts counts a turn they share once).
import * as path from 'node:path';
import { OverBudgetError, readManifest, readStoreManifest } from '../../floor/manifest';
import { DeadlineError, NotRegularError } from '../../safeopen';
import type { Checkpoint, FileFacts } from '../../turns';
import { titleOf } from '../../turns';
import { sessionFacts } from '../../truth';
import { laneRel } from '../read';
import { runParseJob, type ParseJob, type ParseResult, type SectionRead } from '../parse-job';
import { ParsePool } from '../pool';
import { baseOfGen, formOf, projectFromPath, readMeta, type MachineFloor, type MetaRecord } from '../roots';
import { agentByLane } from '../../agents';
import { lakeFileProblem } from '../lakepath';
import { TurnBatch } from './batch';
import { BLOCK, BLOCK_BITS, fileBytes, type FileRow, type SessionRow, type TurnRow, type UpdateReport } from './schema';
import { TURN_ROLES_OF } from '../turncount';
import { setting } from '../../settings';

/** What a parse was based on: a result parsed ahead is stale once this changes. */
function progressKey(r: FileRow): string {
  return `${r.ck ?? ''}|${r.done}|${r.claimed}|${r.unterminated}|${r.raw_done}`;
}

/** The most new bytes of one file parsed in one job (BRAIN_INDEX_PIECE_BYTES, 32 MiB). A session
 * of gigabytes is read in pieces, each resumed from the last one's checkpoint as if the file had
 * grown by that much since, so parsing it (here, or in a parse thread's small heap) takes memory
 * bounded by this, not by the file. */
export function pieceBytes(): number {
  return setting(process.env, 'BRAIN_INDEX_PIECE_BYTES');
}

/** A budgeted update's piece: small enough that one is read well within a slice. */
const SLICE_PIECE = 4 << 20;

interface Claim {
  mf: MachineFloor;
  lake_path: string;
  lane: string;
  session: string;
  gen: number;
  byte_to: number;
  unterminated: boolean;
  first_seen: string;
  last_seen: string;
}

/** An open turn index: what it reads (IndexQueries), what a batch holds (TurnBatch), and bringing it up to date with the floor. */
export class TurnIndex extends TurnBatch {
  /** Files this round read a piece of and that have more to read (read again in the next round). */
  private cut = new Set<number>();
  /** Files whose piece moved their checkpoint nowhere (a format read as one document): read
   * whole from then on, in this update. */
  private whole = new Set<number>();
  /** When a budgeted update stops (update's budgetMs); Infinity: it does not. */
  private until = Infinity;
  /** This update's piece (pieceBytes, smaller in a budgeted slice). */
  private piece = pieceBytes();
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
    const offsets: { key: string; to: number }[] = [];
    const claims = new Map<string, Claim>();
    if (this.root.kind === 'home') {
      // This machine's index is named after it: a renamed machine starts again under its new name.
      const name = this.root.machines[0].machine;
      const was = this.st.getMeta.get('home_machine') as string | undefined;
      if (was !== name) {
        if (was !== undefined) this.reset();
        this.tx(() => this.st.setMeta.run('home_machine', name));
      }
    }
    for (const mf of this.root.machines) {
      const p = this.manifestProgress(mf);
      if (!p) continue;
      const { key, from, size, mfile } = p;
      if (size < from) {
        // A manifest is append-only; a shorter one is another floor: read it all again.
        this.reset();
        return this.update(o);
      }
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
      for (const m of r.lines) {
        const k = `${mf.machine}\0${m.lake_path}`;
        const c = claims.get(k);
        if (!c) {
          const { lane } = laneRel(m.lake_path);
          claims.set(k, {
            mf,
            lake_path: m.lake_path,
            lane: m.lane ?? lane,
            session: m.session,
            gen: m.gen ?? 1,
            byte_to: m.byte_to,
            unterminated: !!m.unterminated,
            first_seen: m.captured_at,
            last_seen: m.captured_at,
          });
        } else {
          if (m.byte_to >= c.byte_to) {
            c.byte_to = m.byte_to;
            c.unterminated = !!m.unterminated;
          }
          if (m.captured_at < c.first_seen) c.first_seen = m.captured_at;
          if (m.captured_at > c.last_seen) c.last_seen = m.captured_at;
        }
      }
      offsets.push({ key, to: r.length });
    }
    // Claims first (cheap), then the bytes, in batches so another process can take the lock between.
    const todo = [...claims.values()].sort((a, b) => a.gen - b.gen);
    this.tx(() => {
      for (const c of todo) this.claim(c);
    });
    let behind = this.st.behind.all() as FileRow[];
    // Rounds: each reads every file behind by at most a piece; a file with more is read on in the
    // next round (only those), until none has.
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
    if (offsets.length) {
      this.tx(() => {
        for (const o of offsets) {
          const cur = Number(this.st.getMeta.get(o.key) ?? 0);
          if (o.to > cur) this.st.setMeta.run(o.key, String(o.to));
        }
      });
    }
    if (this.whole.size) rep.whole = this.whole.size;
    const wasFresh = this.fresh;
    this.finishFresh();
    // After a change, or when an earlier merge found a reader in the way.
    if (!wasFresh && (offsets.length > 0 || fileBytes(`${this.root.index}-wal`) > 0)) this.mergeWal();
    rep.ms = Date.now() - t0;
    return rep;
  }

  /** Reads the new bytes of `behind` (a piece of each at most), with parse threads when there is
   * enough to read. */
  private round(behind: FileRow[], rep: UpdateReport): void {
    const piece = this.piece;
    const pending = behind.reduce((a, r) => a + Math.min(piece, Math.max(0, r.claimed - (r.ck ? (JSON.parse(r.ck) as Checkpoint).byte : 0))), 0);
    // Parse threads pay off on a first build or a big catch-up, not on a few appended lines.
    // Nor in a budgeted slice: what the threads parsed ahead of where it stops would be dropped.
    let pool = pending >= setting(process.env, 'BRAIN_INDEX_WORKER_MIN') && this.until === Infinity ? ParsePool.start() : null;
    const sent: ({ key: string; bytes: number } | undefined)[] = [];
    let next = 0;
    let inFlight = 0;
    const fill = (from: number) => {
      if (!pool) return;
      // Keep the parse threads a few files (at most 48 MB) ahead of the inserts.
      while (next < behind.length && next - from < 16 && inFlight < 48 << 20) {
        const row = behind[next];
        const job = this.jobFor(row);
        if (job) {
          const bytes = Math.max(0, row.claimed - (job.resume?.byte ?? 0));
          const s = this.st.sessById.get(row.sess_id) as SessionRow;
          const mf = this.root.machines.find((m) => m.machine === s.machine);
          pool.send(mf ? { ...job, meta: { dir: mf.dir, lane: s.lane, session: s.session } } : job);
          sent[next] = { key: progressKey(row), bytes };
          inFlight += bytes;
        }
        next++;
      }
    };
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
        const started = Date.now();
        let bytes = 0;
        batch(() => {
          this.ftsRows.clear();
          this.ftsGone = [];
          this.keyedSess.clear();
          this.fileKeys.clear();
          this.packs.clear();
          this.dirty.clear();
          while (i < behind.length && bytes < 256 << 20 && Date.now() - started < 2000 && Date.now() <= this.until) {
            fill(i);
            let ahead: { key: string; result: ParseResult } | undefined;
            const s = sent[i];
            if (s && pool) {
              // A minute, plus a second per MB: far more than a parse takes, unless the thread died.
              const m = pool.next(60_000 + s.bytes / 1000);
              inFlight -= s.bytes;
              if (!m) {
                // Noticed within seconds (pool.ts): this thread parses the rest, and says so.
                rep.thread_failed = pool.failed ?? 'a parse thread stopped answering';
                pool.close();
                pool = null;
              } else if (m.ok && m.result) ahead = { key: s.key, result: m.result };
              // A job that failed there is parsed again here, where its error is reported.
            }
            const row = behind[i++];
            const r = this.indexFile(row, ahead, rep.refused);
            if (r.ahead) rep.parsed_ahead++;
            rep.text_bytes += r.text;
            bytes += r.bytes;
            rep.bytes += r.bytes;
            rep.turns += r.turns;
            // A file read in pieces is one file.
            if ((r.bytes > 0 || r.turns > 0) && !this.counted.has(row.id)) {
              this.counted.add(row.id);
              rep.files++;
            }
          }
          this.writePacks();
          this.writeFts();
          // The raw lists go in with the raw_done they match; a first build (its file its own
          // until done) writes them when they are big or at the end, each list once.
          if (!this.fresh || i >= behind.length || this.rawWriter().size > 32 << 20) this.rawWriter().flush();
        });
      }
    };
    try {
      if (this.fresh) this.tx(run);
      else run();
    } finally {
      pool?.close();
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


  private sessionId(machine: string, lane: string, session: string): number {
    const id = this.st.sessByKey.get(machine, lane, session) as number | undefined;
    if (id !== undefined) return id;
    return Number(this.st.insertSess.run(machine, lane, session).lastInsertRowid);
  }

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

  /** The parse job for a file's new bytes; null when its machine is gone or its path is refused
   * (a manifest line naming `..` or a symlink: it stays behind, and is reported on each update). */
  protected jobFor(row: FileRow, refused?: UpdateReport['refused'], checked = false): ParseJob | null {
    const mf = this.root.machines.find((m) => m.machine === row.machine);
    if (!mf) return null;
    const problem = checked ? null : lakeFileProblem(mf.dir, row.lake_path, this.seen);
    if (problem) {
      refused?.push({ machine: row.machine, lake_path: row.lake_path, problem });
      return null;
    }
    const resume = row.ck ? (JSON.parse(row.ck) as Checkpoint) : undefined;
    const from = resume?.byte ?? 0;
    // A piece ends where the next one starts reading: its last line, cut there, is not read (nor
    // is an unterminated tail, which only the last piece reaches).
    const piece = this.piece;
    const cut = row.claimed - from > piece && !this.whole.has(row.id);
    return {
      file: path.join(mf.dir, row.lake_path),
      lane: row.lane,
      rel: laneRel(row.lake_path).rel,
      resume,
      to: cut ? from + piece : row.claimed,
      tail: cut ? false : !!row.unterminated,
      raw_from: row.raw_done,
    };
  }

  /** Reads a file's new bytes. Runs inside the batch's transaction, so `row` is read again here;
   * a result parsed ahead (by the parse thread) is used only if the row has not moved since. */
  private indexFile(stale: FileRow, ahead: { key: string; result: ParseResult } | undefined, refused: UpdateReport['refused']): { bytes: number; turns: number; text: number; ahead?: boolean } {
    const row = this.st.fileById.get(stale.id) as FileRow;
    if (!row.live || row.done >= row.claimed) return { bytes: 0, turns: 0, text: 0 };
    const used = !!ahead && ahead.key === progressKey(row);
    // A result parsed ahead was parsed after its path was checked (fill): checking it again now
    // would not make that read any safer.
    const job = this.jobFor(row, refused, used);
    if (!job) return { bytes: 0, turns: 0, text: 0 };
    const r = used ? ahead.result : runParseJob(job);
    if (r.kind === 'missing') return { bytes: 0, turns: 0, text: 0 }; // not synced yet
    if (r.kind === 'none') {
      // No dialect reads this file (a sub-agent's .meta.json): remember it is done.
      this.st.progress.run(row.claimed, null, null, 0, 0, null, row.id);
      // Nor does the scan: nothing to find in its raw lines either.
      this.st.setRaw.run(row.claimed, row.id);
      return { bytes: 0, turns: 0, text: 0 };
    }
    const resume = job.resume;
    // Turns read again from the checkpoint on, per session (the file's own, or a section's): in
    // the report once.
    const again = new Map<number, number>();
    if (resume) {
      if (row.turn_from !== null) {
        // The file's turns from the resumed line on (none lies below its last read's first
        // rowid), through its sessions' blocks from that one's on.
        for (const [b, sess] of this.st.fileBlocks.all({ sess: row.sess_id, from: row.turn_from >> BLOCK_BITS }) as [number, number][]) {
          const p = this.pack(b);
          const keep = p.filter((t) => !(t.id >= (row.turn_from as number) && t.file_id === row.id && t.line_from >= resume.line));
          if (keep.length === p.length) continue;
          for (const t of p) {
            if (keep.includes(t)) continue;
            if (t.said) this.unsay(t.id);
            if (TURN_ROLES_OF.has(t.role)) again.set(sess, (again.get(sess) ?? 0) + 1);
          }
          this.touch(b, keep);
        }
      }
      // A title taken from a turn read again (a user item may turn out to be context) is
      // taken again from what this read finds.
      this.st.untitle.run({ sess: row.sess_id, n: resume.n });
    }
    const sessOf = this.sectionSessions(row, r.sections);
    const slots = new Map<number, { block: number | null; seq: number; into: TurnRow[] | null }>();
    let first: number | null = null;
    // Each new turn's key, with its folded text: an older generation's turn with that key said the
    // same (turnKey hashes the text), which is what its FTS row is deleted with.
    const keys = row.gen > 1 ? new Map<number, string>() : null;
    const fresh = new Map<number, number>();
    for (const t of r.turns) {
      const sess = sessOf(t[10]);
      let slot = slots.get(sess);
      if (!slot) slots.set(sess, (slot = this.lastSlot(sess)));
      if (++slot.seq >= BLOCK) {
        slot.block = Number(this.st.newBlock.run(sess).lastInsertRowid);
        slot.seq = 0;
        slot.into = null;
        this.packs.set(slot.block, []);
      }
      if (!slot.into) {
        slot.into = this.pack(slot.block as number);
        this.touch(slot.block as number);
      }
      const id = (slot.block as number) * BLOCK + slot.seq;
      if (first === null || id < first) first = id;
      const folded = t[8];
      slot.into.push({ id, file_id: row.id, n: t[0], role: t[1], side: t[2], ts: t[3], line_from: t[4], line_to: t[5], byte_from: t[6], byte_to: t[7], said: folded ? 1 : 0, key: t[9] });
      fresh.set(sess, (fresh.get(sess) ?? 0) + (t[1] !== 's' ? 1 : 0));
      keys?.set(t[9], folded);
      if (folded) {
        this.ftsRows.add(id, folded);
        // A turn a resume may cut (read again from the checkpoint's line on) keeps its text.
        if (t[4] >= r.checkpoint.line) this.st.putTail.run(id, folded);
      }
    }
    // A turn an older generation holds too is found once, in the newest: the older copy keeps its
    // row (it is counted, and cited when only it holds the turn) but leaves the FTS index. A file
    // an agent rewrites whole on every update would otherwise be indexed once per generation.
    // A rewritten file's session keeps its turns' keys from now on: every pack of it is written
    // again with them (each file read once more for them, this once).
    if (row.gen > 1) for (const [b] of this.st.fileBlocks.all({ sess: row.sess_id, from: 0 }) as [number, number][]) this.fillKeys(b);
    if (keys && r.turns.length) {
      const older = this.st.olderFiles.all({ machine: row.machine, base: row.base, gen: row.gen }) as [number, number][];
      const olderIds = new Set(older.map((o) => o[0]));
      for (const sess of new Set(older.map((o) => o[1]))) {
        for (const [b] of this.st.fileBlocks.all({ sess, from: 0 }) as [number, number][]) {
          this.fillKeys(b);
          for (const t of this.pack(b)) {
            if (!t.said || !olderIds.has(t.file_id) || !keys.has(t.key)) continue;
            t.said = 0;
            this.unsay(t.id, keys.get(t.key));
            this.touch(b);
          }
        }
      }
    }
    if (r.raw && r.raw.to > row.raw_done) {
      const { chunks, ranges } = r.raw;
      for (let i = 0; i < chunks.length; i++) this.rawWriter().add(Number(this.st.insChunk.run(row.id, ranges[2 * i], ranges[2 * i + 1]).lastInsertRowid), chunks[i]);
      this.st.setRaw.run(r.raw.to, row.id);
    }
    // Lines read again (a resume) give the same checkpoints: a mark is replaced, never wrong.
    for (const [b, ck] of r.marks) this.st.insMark.run(row.id, b, ck);
    // The title is the least titleKey (truth.ts): a real prompt before a slash command, the main
    // conversation's before a sub-agent's.
    if (r.title) this.st.setTitle.run(titleOf(r.title.text), r.title.key, row.sess_id, r.title.key);
    for (const x of r.sections) if (x.title) this.st.setTitle.run(titleOf(x.title.text), x.title.key, sessOf(x.section), x.title.key);
    // A file shorter than its claim (a store mid-sync) stays behind and is read again next time.
    const done = r.end.byte + (job.tail ? r.end.tail : 0);
    const readFrom = resume ? resume.byte : 0;
    if (job.to < row.claimed) {
      // A piece: read on in the next round; from its start again, whole, if the checkpoint did
      // not move (a format whose turns are only known at the end).
      if (r.checkpoint.byte <= readFrom || done <= row.done) this.whole.add(row.id);
      this.cut.add(row.id);
    }
    this.st.progress.run(Math.min(done, row.claimed), JSON.stringify(r.checkpoint), JSON.stringify(r.facts), r.counts.lines, r.counts.bad, first, row.id);
    const turns = fresh.get(row.sess_id) ?? 0;
    const cut = again.get(row.sess_id) ?? 0;
    // A file read from its start holds just the turns this read found; one read on from a
    // checkpoint, the turns it held less those read again plus these (counting them over every
    // pack of the session instead made a file read in pieces cost the square of its size).
    const before = resume ? (this.st.sessById.get(row.sess_id) as SessionRow).turns : 0;
    this.refreshSession(row.sess_id, r.facts, row, resume ? (typeof before === 'number' && before >= cut ? before - cut + turns : undefined) : turns, r.meta);
    this.refreshSections(row.sess_id, r.sections, new Set([...fresh.keys(), ...again.keys()]));
    let all = 0;
    for (const n of fresh.values()) all += n;
    for (const n of again.values()) all -= n;
    return { bytes: Math.max(0, r.end.byte - readFrom), turns: all, text: r.text_bytes, ahead: used };
  }

  /** A session's last block and its last slot taken (BLOCK when it has none: a new one is taken). */
  private lastSlot(sess: number): { block: number | null; seq: number; into: TurnRow[] | null } {
    const block = this.st.lastBlock.get(sess) as number | null;
    if (block === null) return { block, seq: BLOCK, into: null };
    const p = this.pack(block);
    return { block, seq: p.length ? p[p.length - 1].id - block * BLOCK : -1, into: null };
  }

  /** The session (its index id) of each section of `row`'s file (Turn.section; 0: the file's
   * own), made when first met. */
  private sectionSessions(row: FileRow, sections: SectionRead[]): (section: number) => number {
    const ids = new Map<number, number>();
    if (sections.length === 0) return () => row.sess_id;
    const own = this.st.sessById.get(row.sess_id) as SessionRow;
    const name = agentByLane(row.lane)?.sectionId;
    return (section) => {
      if (!section || !name) return row.sess_id;
      let id = ids.get(section);
      if (id === undefined) {
        const session = name(own.session, section);
        id = (this.st.sessByKey.get(own.machine, own.lane, session) as number | undefined) ?? Number(this.st.insertSection.run(own.machine, own.lane, session, own.id, section).lastInsertRowid);
        ids.set(section, id);
      }
      return id;
    };
  }

  /** The sessions of a file's sections this read met or cut: what the file's own session says of
   * them (project, repository), their times, and their turns counted again. */
  private refreshSections(whole: number, sections: SectionRead[], touched: Set<number>): void {
    const own = this.st.sessById.get(whole) as SessionRow;
    const met = new Map<number, SectionRead>();
    for (const x of sections) met.set(x.section, x);
    for (const sid of touched) {
      if (sid === whole) continue;
      const s = this.st.sessById.get(sid) as SessionRow;
      const x = s.section !== null ? met.get(s.section) : undefined;
      const started = [s.started, x?.started].filter((v): v is string => !!v).sort()[0] ?? null;
      const ended = [s.ended, x?.ended].filter((v): v is string => !!v).sort().pop() ?? null;
      this.st.updSess.run(null, null, own.subagent, own.project, own.repo, null, started, ended, this.countTurns(sid), sid);
    }
  }

  /** `fileTurns`: the turns `file` holds, when known (it is then counted without a query if it
   * is the session's only live file: a first build refreshes each session once per file). */
  private refreshSession(sid: number, facts?: FileFacts, file?: FileRow, fileTurns?: number, known?: MetaRecord | null): void {
    const s = this.st.sessById.get(sid) as SessionRow;
    const live = this.st.liveFileOfSess.all(sid) as FileRow[];
    // The session's facts are its newest generation's (an older one read after it does not win).
    const f = file && file.live && !live.some((x) => x.gen > file.gen) ? file : live[0];
    const own: FileFacts | null = (f === file ? facts : undefined) ?? (f?.facts ? (JSON.parse(f.facts) as FileFacts) : null);
    const others = live.filter((x) => x !== f && x.base !== f?.base).map((x) => (x.id === file?.id ? facts : undefined) ?? (x.facts ? (JSON.parse(x.facts) as FileFacts) : null));
    const ff = mergeFacts(own, others);
    const mf = this.root.machines.find((m) => m.machine === s.machine);
    // The parse thread read it already (for this session: its job named it), or it is read here.
    const meta = known !== undefined ? known : mf ? readMeta(mf.dir, s.lane, s.session, this.seen) : null;
    const { rel } = f ? laneRel(f.base) : { rel: '' };
    // What a rewrite may have cut from the newest generation (its first line: the session's id,
    // working folder and start) is an older one's (truth.ts: sessionFacts).
    // Then what the session's other files say (mergeFacts).
    const merged = mergeFacts(
      sessionFacts(
        live
          .filter((x) => !f || x.base === f.base)
          .sort((a, b) => a.gen - b.gen)
          .map((x) => (x.id === file?.id ? facts : undefined) ?? (x.facts ? (JSON.parse(x.facts) as FileFacts) : null))
          .filter((x): x is FileFacts => !!x),
      ) ?? own,
      others,
    );
    const project = merged?.cwd ?? meta?.cwd ?? projectFromPath(s.lane, rel);
    const repo = meta?.git?.remote ?? meta?.git?.common_dir ?? null;
    const turns = fileTurns !== undefined && live.length === 1 && live[0].id === file?.id ? fileTurns : this.countTurns(sid);
    this.st.updSess.run(
      merged?.native_session ?? null,
      merged?.parent_session ?? null,
      ff?.subagent ? 1 : 0,
      project,
      repo,
      ff?.title_hint ? titleOf(ff.title_hint) : null,
      merged?.started ?? f?.first_seen ?? null,
      ff?.ended ?? f?.last_seen ?? null,
      turns,
      sid,
    );
  }
}

/** A session kept in several files (a task folder, a manifest beside its messages): what its
 * chosen file does not say, another of its files may; its times span them all. */
export function mergeFacts(own: FileFacts | null, others: (FileFacts | null)[]): FileFacts | null {
  const more = others.filter((x): x is FileFacts => !!x);
  if (more.length === 0) return own;
  const out: FileFacts = own ? { ...own } : { ...more[0] };
  for (const o of more) {
    out.native_session ??= o.native_session;
    out.parent_session ??= o.parent_session;
    out.cwd ??= o.cwd;
    out.title_hint ??= o.title_hint;
    if (o.started && (!out.started || o.started < out.started)) out.started = o.started;
    if (o.ended && (!out.ended || o.ended > out.ended)) out.ended = o.ended;
  }
  return out;
}
