// The origins a full pass found unchanged, by path and stat identity (offsets/.unchanged.json), so
// that the next pass passes them by with one lstat instead of opening each one and reading its
// offsets record: a pass over a store of thousands of sessions then costs what its new bytes cost,
// not what the store holds.
//
// Only an origin that needed nothing is listed: its offsets record said captured to the end, with
// no prefix check still to run, no unterminated tail waiting and a plain lake name. Every writer of
// an offsets record acts on an origin whose size or mtime moved since it was listed (an append, a
// rewrite, a new inode), so a listed origin whose stat is the same still needs nothing. The list is
// a cache of what the offsets records say: deleted or torn, it is not read and the next full pass
// writes it again; nothing is synced or kept from it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './durable';

const FILE = '.unchanged.json';

/** dev, ino, size, mtimeMs of the origin when it was found to need nothing. */
type Ident = [number, number, number, number];

// The list's form: paths in one array and their stats, four numbers each, in another. An object
// keyed by path with an array per origin took 140 ms to read at 7,343 sessions (4.2 GB; a map of
// small arrays for the collector) where this takes 25 ms, and a third of the time to write.
interface ListFile {
  v: 2;
  /** Origin paths, latin1 of their bytes. */
  p: string[];
  /** dev, ino, size, mtimeMs of p[i] at 4i .. 4i+3. */
  n: number[];
}

export class UnchangedOrigins {
  /** Index into `stats` of each listed path (times 4). */
  private before = new Map<string, number>();
  private stats: number[] = [];
  private now = new Map<string, Ident>();

  constructor(private offsetsDir: string) {
    try {
      const j = JSON.parse(fs.readFileSync(path.join(offsetsDir, FILE), 'utf8')) as Partial<ListFile>;
      // Another version's list, or a torn one, is not read: the pass looks at every origin.
      if (j?.v === 2 && Array.isArray(j.p) && Array.isArray(j.n) && j.n.length === j.p.length * 4) {
        for (let i = 0; i < j.p.length; i++) this.before.set(j.p[i], i * 4);
        this.stats = j.n;
      }
    } catch {
      /* none yet, or torn: every origin is looked at as before */
    }
  }

  /** Whether `abs` was found unchanged by the last full pass and its stat is still the same; if
   * so it stays listed. */
  passBy(abs: Buffer): boolean {
    const key = abs.toString('latin1');
    const at = this.before.get(key);
    if (at === undefined) return false;
    const n = this.stats;
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st?.isFile() || st.dev !== n[at] || st.ino !== n[at + 1] || st.size !== n[at + 2] || st.mtimeMs !== n[at + 3]) return false;
    this.now.set(key, [n[at], n[at + 1], n[at + 2], n[at + 3]]);
    return true;
  }

  /** `abs` needs nothing as of `st` (the caller checked its offsets record). */
  note(abs: Buffer, st: fs.Stats): void {
    this.now.set(abs.toString('latin1'), [st.dev, st.ino, st.size, st.mtimeMs]);
    this.noted++;
  }

  private noted = 0;

  /** After a full pass that was not stopped: what it found is the list (origins gone drop out).
   * Not written again when it is the same list. */
  save(): void {
    if (this.noted === 0 && this.now.size === this.before.size) return;
    const list: ListFile = { v: 2, p: [], n: [] };
    for (const [k, id] of this.now) {
      list.p.push(k);
      list.n.push(id[0], id[1], id[2], id[3]);
    }
    writeFileAtomic(path.join(this.offsetsDir, FILE), JSON.stringify(list) + '\n', { sync: false });
  }
}
