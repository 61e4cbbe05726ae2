// A session file's generations as one timeline: the newest generation's entries, and, in place,
// those only an older generation holds (rewritten away by a compaction, a whole-file rewrite or
// an edit). Entries are matched across generations by turnKey, counted: a key the newest
// generation holds twice matches the first two entries of that key in an older one.
import type { Turn } from '../turns';
import { turnKey } from '../turns';

export interface GenTurns<F> {
  gen: number;
  file: F;
  turns: Turn[];
}

export interface TimelineEntry<F> {
  turn: Turn;
  gen: number;
  file: F;
  /** Set when the newest generation no longer holds the entry: the generations that do (first,
   * last), and the newest generation's entry it follows (its n; 0: before the first). */
  rewritten: { gens: [number, number]; after: number } | null;
}

interface Node<F> {
  e: TimelineEntry<F>;
  after: Node<F>[];
}

/** One timeline from every generation of a file (any order; the highest gen is the newest). */
export function timeline<F>(gens: GenTurns<F>[]): TimelineEntry<F>[] {
  const sorted = [...gens].sort((a, b) => b.gen - a.gen);
  if (sorted.length === 0) return [];
  const head: Node<F>[] = [];
  const main: Node<F>[] = [];
  const byKey = new Map<number, Node<F>[]>();
  const add = (n: Node<F>, k: number) => {
    const l = byKey.get(k);
    if (l) l.push(n);
    else byKey.set(k, [n]);
  };
  const [newest, ...older] = sorted;
  for (const t of newest.turns) {
    const n: Node<F> = { e: { turn: t, gen: newest.gen, file: newest.file, rewritten: null }, after: [] };
    main.push(n);
    add(n, turnKey(t));
  }
  for (const g of older) {
    const seen = new Map<number, number>();
    // Where the next entry only this generation holds goes: after the last one it shares.
    let into = head;
    let at = 0;
    for (const t of g.turns) {
      const k = turnKey(t);
      const j = seen.get(k) ?? 0;
      seen.set(k, j + 1);
      const m = byKey.get(k)?.[j];
      if (m) {
        if (m.e.rewritten) m.e.rewritten.gens[0] = g.gen;
        into = m.after;
        at = m.after.length;
        continue;
      }
      const n: Node<F> = { e: { turn: t, gen: g.gen, file: g.file, rewritten: { gens: [g.gen, g.gen], after: 0 } }, after: [] };
      into.splice(at++, 0, n);
      add(n, k);
    }
  }
  const out: TimelineEntry<F>[] = [];
  const emit = (list: Node<F>[], after: number) => {
    for (const n of list) {
      if (n.e.rewritten) n.e.rewritten.after = after;
      out.push(n.e);
      emit(n.after, after);
    }
  };
  emit(head, 0);
  for (const n of main) {
    out.push(n.e);
    emit(n.after, n.e.turn.n);
  }
  return out;
}

/** Matches found in several generations, each entry once: per key, the matches of the generation
 * holding most of them (the newest of equals). `gen` orders generations, `key` is turnKey. Sorted
 * by entry (base, key) and generation, each entry's matches are one run: no map or key string a
 * match (a common term's search counts thousands). */
export function onePerTurn<T extends { gen: number; key: number; base?: string }>(matches: T[]): T[] {
  const base = (m: T) => m.base ?? '';
  const s = [...matches].sort((a, b) => (base(a) < base(b) ? -1 : base(a) > base(b) ? 1 : 0) || a.key - b.key || a.gen - b.gen);
  const out: T[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i + 1;
    while (j < s.length && s[j].key === s[i].key && base(s[j]) === base(s[i])) j++;
    // Generations ascend within the run: of equal counts, the later one (the newest) wins.
    let best = i;
    let most = 0;
    for (let a = i; a < j; ) {
      let b = a + 1;
      while (b < j && s[b].gen === s[a].gen) b++;
      if (b - a >= most) [best, most] = [a, b - a];
      a = b;
    }
    for (let a = best; a < best + most; a++) out.push(s[a]);
    i = j;
  }
  return out;
}
