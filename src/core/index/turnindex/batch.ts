// What one update batch of the turn index holds before it writes it (update.ts): the turn packs
// it changed, its FTS rows to add and delete, and the turn keys of sessions several generations
// share. Written at the batch's end, in that order (writePacks, then writeFts).
import { runParseJob, type ParseJob } from '../parse-job';
import { turnKey } from '../../turns';
import { TURN_ROLES_OF } from '../turncount';
import { IndexQueries } from './query';
import { RawWriter } from './rawpost';
import { PendingFts } from './pendingfts';
import type { FileRow, TurnRow, UpdateReport } from './schema';
import { decodePack, encodePack, unkeyed } from './turnpack';

export abstract class TurnBatch extends IndexQueries {
  protected raw: RawWriter | null = null;
  /** A batch's FTS rows (rowid: text), written at its end (writeFts), after its turn packs: a
   * statement on another table after an FTS write may be a savepoint, where FTS5 writes its
   * pending terms out as a segment of their own. */
  protected ftsRows = new PendingFts();
  /** The batch's FTS rows to delete (rowid, the text it was written with), before its inserts (an
   * id a resume cut is given again). */
  protected ftsGone: [number, string][] = [];
  /** The batch's turn packs (block: its turns), read once and written at its end (writePacks). */
  protected packs = new Map<number, TurnRow[]>();
  protected dirty = new Set<number>();
  /** Folders found real (no symlink) during this update: a thousand files share a few, and each
   * path's walk cost more than its parse on a store of short sessions. */
  protected seen = new Set<string>();

  protected writeFts(): void {
    for (const [id, text] of this.ftsGone) this.st.delFts.run(id, text);
    this.ftsGone = [];
    this.ftsRows.each((id, text) => this.st.insFts.run(id, text));
    this.ftsRows.clear();
  }

  /** A turn leaves the FTS index: a pending row is not written, a written one is deleted with its
   * text (`text`, or the one said_tail keeps). FTS5 removes the postings of the text it is given:
   * any other would leave the turn's own behind, found by searches for what it no longer says. */
  protected unsay(id: number, text?: string): void {
    const kept = this.st.tail.get(id) as string | undefined;
    if (kept !== undefined) this.st.dropTail.run(id);
    if (this.ftsRows.drop(id)) return;
    const said = text || kept;
    if (!said) throw new Error(`the turn index keeps no text for turn ${id}, which leaves its search index: delete ${this.root.index} (a cache) and search again to rebuild it`);
    this.ftsGone.push([id, said]);
  }

  /** A block's turns as the batch has them (changing the array: mark it with `touch`). */
  protected pack(block: number): TurnRow[] {
    let p = this.packs.get(block);
    if (!p) {
      const data = this.st.pack.get(block) as Buffer | undefined;
      p = data ? decodePack(block, data) : [];
      this.packs.set(block, p);
    }
    return p;
  }

  protected touch(block: number, turns?: TurnRow[]): void {
    if (turns) this.packs.set(block, turns);
    this.dirty.add(block);
  }

  protected writePacks(): void {
    for (const b of this.dirty) {
      const keyed = this.sessKeyed(this.st.blockSess.get(b) as number);
      if (keyed) this.fillKeys(b);
      this.st.putPack.run(b, encodePack(b, this.packs.get(b) as TurnRow[], keyed));
    }
    this.dirty.clear();
    this.packs.clear();
    this.keyedSess.clear();
    this.fileKeys.clear();
  }

  /** Sessions whose packs keep their turns' keys (this batch's answers). */
  protected keyedSess = new Map<number, boolean>();
  /** Keys of files read again for them in this batch: per file, n:line_from:byte_to -> key. */
  protected fileKeys = new Map<number, Map<string, number>>();

  /** A session with a file of generation 2 or later keeps its turns' keys (turnpack.ts): what
   * counts and shows a turn several generations hold once. Files are never dropped, so a session
   * once keyed stays so. */
  protected sessKeyed(sess: number): boolean {
    let k = this.keyedSess.get(sess);
    if (k === undefined) this.keyedSess.set(sess, (k = this.st.sessRewritten.get(sess) !== undefined));
    return k;
  }

  /** Gives a block's turns whose pack kept no keys their keys, by reading their files again (as
   * far as their last read went): once, when their session first needs them. A turn that read
   * does not give again (its file changed under it) keeps a key no other turn has. */
  protected fillKeys(block: number): void {
    const p = this.pack(block);
    let touched = false;
    for (const t of p) {
      if (!unkeyed(t)) continue;
      const key = this.keysOf(t.file_id).get(`${t.n}:${t.line_from}:${t.byte_to}`);
      t.key = key ?? turnKey({ role: 'system', kind: 'instructions', ts: 'unmatched', text: `${t.file_id}:${t.id}` });
      touched = true;
    }
    if (touched) this.touch(block);
  }

  protected keysOf(fileId: number): Map<string, number> {
    let m = this.fileKeys.get(fileId);
    if (m) return m;
    m = new Map();
    this.fileKeys.set(fileId, m);
    const row = this.st.fileById.get(fileId) as FileRow | undefined;
    const job = row ? this.jobFor(row) : null;
    if (!row || !job) return m;
    const r = runParseJob({ ...job, resume: undefined, to: row.done, raw_from: undefined });
    if (r.kind === 'turns') for (const t of r.turns) m.set(`${t[0]}:${t[4]}:${t[7]}`, t[9]);
    return m;
  }

  /** The session's turns, over the batch's packs: per key, the most any one file of its shown
   * base holds (turncount.ts), summed; with one such file, simply its turns. */
  protected countTurns(sess: number): number {
    const files = this.st.shownFiles.all({ sess }) as number[];
    const per = new Map<number, Map<number, number>>(files.map((f) => [f, new Map()]));
    let one = 0;
    for (const b of this.st.sessBlocks.all(sess, 0) as number[]) {
      // Several files of one base are its generations: the session is keyed.
      if (files.length > 1) this.fillKeys(b);
      for (const t of this.pack(b)) {
        if (!TURN_ROLES_OF.has(t.role)) continue;
        const m = per.get(t.file_id);
        if (!m) continue;
        if (files.length === 1) one++;
        else m.set(t.key, (m.get(t.key) ?? 0) + 1);
      }
    }
    if (files.length <= 1) return one;
    const most = new Map<number, number>();
    for (const m of per.values()) for (const [k, c] of m) if (c > (most.get(k) ?? 0)) most.set(k, c);
    let n = 0;
    for (const c of most.values()) n += c;
    return n;
  }

  protected rawWriter(): RawWriter {
    this.raw ??= new RawWriter(this.rawSt);
    return this.raw;
  }

  /** The parse of a file as far as its row says (fileread.ts). */
  protected abstract jobFor(row: FileRow, refused?: UpdateReport['refused'], checked?: boolean): ParseJob | null;
}
