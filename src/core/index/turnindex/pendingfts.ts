// A batch's FTS rows waiting to be written (update.ts): a turn's rowid and folded text, in the
// order they came. Kept in two arrays, not a Map: a first build adds a row a turn, and a Map that
// size (rehashed as it grows, its entries promoted by the GC) cost the writing thread more than
// the turns' own records. An index by rowid is made only when a row is taken back (a resume cut
// or an older generation's turn in the same batch), which is rare.
export class PendingFts {
  private ids: number[] = [];
  private texts: (string | null)[] = [];
  private at: Map<number, number> | null = null;

  /** A rowid is added again only after it was taken back (drop). */
  add(id: number, text: string): void {
    this.at?.set(id, this.ids.length);
    this.ids.push(id);
    this.texts.push(text);
  }

  /** Takes back a pending row; false when there is none for `id`. */
  drop(id: number): boolean {
    if (!this.at) {
      this.at = new Map();
      for (let i = 0; i < this.ids.length; i++) if (this.texts[i] !== null) this.at.set(this.ids[i], i);
    }
    const i = this.at.get(id);
    if (i === undefined) return false;
    this.texts[i] = null;
    this.at.delete(id);
    return true;
  }

  each(fn: (id: number, text: string) => void): void {
    for (let i = 0; i < this.ids.length; i++) {
      const t = this.texts[i];
      if (t !== null) fn(this.ids[i], t);
    }
  }

  clear(): void {
    this.ids = [];
    this.texts = [];
    this.at = null;
  }
}
