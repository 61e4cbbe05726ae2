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

export class UnchangedOrigins {
  private before = new Map<string, Ident>();
  private now = new Map<string, Ident>();

  constructor(private offsetsDir: string) {
    try {
      const j = JSON.parse(fs.readFileSync(path.join(offsetsDir, FILE), 'utf8')) as { v?: number; origins?: Record<string, Ident> };
      if (j?.v === 1 && j.origins && typeof j.origins === 'object') this.before = new Map(Object.entries(j.origins));
    } catch {
      /* none yet, or torn: every origin is looked at as before */
    }
  }

  /** Whether `abs` was found unchanged by the last full pass and its stat is still the same; if
   * so it stays listed. */
  passBy(abs: Buffer): boolean {
    const key = abs.toString('latin1');
    const was = this.before.get(key);
    if (!was) return false;
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st?.isFile() || st.dev !== was[0] || st.ino !== was[1] || st.size !== was[2] || st.mtimeMs !== was[3]) return false;
    this.now.set(key, was);
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
    writeFileAtomic(path.join(this.offsetsDir, FILE), JSON.stringify({ v: 1, origins: Object.fromEntries(this.now) }) + '\n', { sync: false });
  }
}
