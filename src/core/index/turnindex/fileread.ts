// Reading one file's new bytes into the turn index (update.ts): the turns read again from its
// checkpoint leave, the new ones go into its sessions' packs (the file's own, or a section's:
// Turn.section) and the FTS index, an older
// generation's copies of them leave the FTS index, and its raw lines, marks, title and progress
// are kept.
import * as path from 'node:path';
import type { Checkpoint } from '../../turns';
import { titleOf } from '../../turns';
import { laneRel } from '../read';
import { runParseJob, type ParseJob, type ParseResult } from '../parse-job';
import { lakeFileProblem } from '../lakepath';
import { BLOCK, BLOCK_BITS, type FileRow, type SessionRow, type TurnRow, type UpdateReport } from './schema';
import { TURN_ROLES_OF } from '../turncount';
import { setting } from '../../settings';
import { progressKey, type Ahead } from './ahead';
import { SessionWriter } from './sessions';

/** The most new bytes of one file parsed in one job (BRAIN_INDEX_PIECE_BYTES, 32 MiB). A session
 * of gigabytes is read in pieces, each resumed from the last one's checkpoint as if the file had
 * grown by that much since, so parsing it (here, or in a parse thread's small heap) takes memory
 * bounded by this, not by the file. */
export function pieceBytes(): number {
  return setting(process.env, 'BRAIN_INDEX_PIECE_BYTES');
}

/** A parse that found turns. */
type Parsed = Extract<ParseResult, { kind: 'turns' }>;

/** What reading one file added: its new bytes, its turns (less those read again), its text. */
export interface FileRead {
  bytes: number;
  turns: number;
  text: number;
  ahead?: boolean;
}

const NOTHING: FileRead = Object.freeze({ bytes: 0, turns: 0, text: 0 });

/** Where a session's next turn goes: its block, the slot last taken in it (BLOCK: none left), and
 * the block's pack once read. */
type Slot = { block: number | null; seq: number; into: TurnRow[] | null };

export abstract class FileReader extends SessionWriter {
  /** Files this round read a piece of and that have more to read (read again in the next round). */
  protected cut = new Set<number>();
  /** Files whose piece moved their checkpoint nowhere (a format read as one document): read
   * whole from then on, in this update. */
  protected whole = new Set<number>();
  /** This update's piece (pieceBytes, smaller in a budgeted slice). */
  protected piece = pieceBytes();

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
  protected indexFile(stale: FileRow, ahead: Ahead | undefined, refused: UpdateReport['refused']): FileRead {
    const row = this.st.fileById.get(stale.id) as FileRow;
    if (!row.live || row.done >= row.claimed) return NOTHING;
    const used = !!ahead && ahead.key === progressKey(row);
    // A result parsed ahead was parsed after its path was checked (fill): checking it again now
    // would not make that read any safer.
    const job = this.jobFor(row, refused, used);
    if (!job) return NOTHING;
    const r = used ? ahead.result : runParseJob(job);
    if (r.kind === 'missing') return NOTHING; // not synced yet
    if (r.kind === 'none') {
      // No dialect reads this file (a sub-agent's .meta.json): remember it is done.
      this.st.progress.run(row.claimed, null, null, 0, 0, null, 0, row.id);
      // Nor does the scan: nothing to find in its raw lines either.
      this.st.setRaw.run(row.claimed, row.id);
      return NOTHING;
    }
    const resume = job.resume;
    // Turns read again from the checkpoint on, per session (the file's own, or a section's): in
    // the report once.
    const again = resume ? this.dropReadAgain(row, resume) : new Map<number, number>();
    const sessOf = this.sectionSessions(row, r.sections);
    const { first, keys, fresh } = this.placeTurns(row, r, sessOf);
    // A turn an older generation holds too is found once, in the newest: the older copy keeps its
    // row (it is counted, and cited when only it holds the turn) but leaves the FTS index. A file
    // an agent rewrites whole on every update would otherwise be indexed once per generation.
    // A rewritten file's session keeps its turns' keys from now on: every pack of it is written
    // again with them (each file read once more for them, this once).
    if (row.gen > 1) for (const [b] of this.st.fileBlocks.all({ sess: row.sess_id, from: 0 }) as [number, number][]) this.fillKeys(b);
    if (keys && r.turns.length) this.unsayOlder(row, keys);
    this.keepLines(row, r, sessOf);
    // A file shorter than its claim (a store mid-sync) stays behind and is read again next time.
    const done = r.end.byte + (job.tail ? r.end.tail : 0);
    const readFrom = resume ? resume.byte : 0;
    if (job.to < row.claimed) {
      // A piece: read on in the next round; from its start again, whole, if the checkpoint did
      // not move (a format whose turns are only known at the end).
      if (r.checkpoint.byte <= readFrom || done <= row.done) this.whole.add(row.id);
      this.cut.add(row.id);
    }
    const turns = fresh.get(row.sess_id) ?? 0;
    const gave = [...fresh.values()].some((n) => n > 0) ? 1 : 0;
    this.st.progress.run(Math.min(done, row.claimed), JSON.stringify(r.checkpoint), JSON.stringify(r.facts), r.counts.lines, r.counts.bad, first, gave, row.id);
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

  /** The file's turns from the resumed line on leave its sessions' packs (and the FTS index):
   * this read gives them again. Returns how many of them were conversation turns, per session
   * (the file's own, or a section's). */
  private dropReadAgain(row: FileRow, resume: Checkpoint): Map<number, number> {
    const again = new Map<number, number>();
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
    return again;
  }

  /** The new turns go after their session's last turn (the file's own, or a section's: `sessOf`):
   * into its last block while it has room, then into new ones. Returns the least new id, the
   * conversation turns placed per session, and (for a generation after the first) each new
   * turn's key with its folded text: an older generation's turn with that key said the same
   * (turnKey hashes the text), which is what its FTS row is deleted with. */
  private placeTurns(row: FileRow, r: Parsed, sessOf: (section: number) => number): { first: number | null; keys: Map<number, string> | null; fresh: Map<number, number> } {
    const slots = new Map<number, Slot>();
    let first: number | null = null;
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
    return { first, keys, fresh };
  }

  /** A session's last block and its last slot taken (BLOCK when it has none: a new one is taken). */
  private lastSlot(sess: number): Slot {
    const block = this.st.lastBlock.get(sess) as number | null;
    if (block === null) return { block, seq: BLOCK, into: null };
    const p = this.pack(block);
    return { block, seq: p.length ? p[p.length - 1].id - block * BLOCK : -1, into: null };
  }

  /** The older generations' turns that say what one of `keys` says leave the FTS index. */
  private unsayOlder(row: FileRow, keys: Map<number, string>): void {
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

  /** The file's raw lines (for the raw index), its line marks and its sessions' titles. */
  private keepLines(row: FileRow, r: Parsed, sessOf: (section: number) => number): void {
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
  }
}
