// A snippet is a window of text around the first mention of a term, on one line, that always
// holds the mention: the CLI narrows it again to the terminal's width, so the window is measured
// in terminal columns and cut on whole characters only.
import { fold } from '../index/parse-job';

/** Whitespace runs show as one space, so a window is measured on the text as it will be shown. */
const WS = /\s/;
const MARK = /\p{M}|\u200d|[\ufe00-\ufe0f]/u;
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** Below U+0300 no character is a mark or wide: one column each, without the patterns. */
const NARROW = 0x300;

/** Terminal columns a string takes (wide CJK and emoji count two, combining marks none). */
export function columns(s: string): number {
  let n = 0;
  let i = 0;
  while (i < s.length && s.charCodeAt(i) < NARROW) i++;
  n = i;
  if (i === s.length) return n;
  for (const c of s.slice(i)) n += c.charCodeAt(0) < NARROW ? 1 : MARK.test(c) ? 0 : WIDE.test(c) ? 2 : 1;
  return n;
}

/** The forms a term may take in the text: as typed, and JSON-escaped (a raw line that did not parse). */
function forms(term: string): string[] {
  const out = new Set<string>([fold(term)]);
  const esc = JSON.stringify(term).slice(1, -1);
  out.add(fold(esc));
  out.add(fold(esc.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)));
  return [...out].filter((f) => f.length > 0);
}

/** Where the first mention of `term` sits in `text` (UTF-16 offsets into `text` itself), or null.
 * Lowercasing can change a string's length (a dotted capital I becomes two units), so when it
 * does, offsets found in the folded text are mapped back character by character. */
export function findMatch(text: string, term: string): { from: number; to: number } | null {
  const low = fold(text);
  let best: { at: number; len: number } | null = null;
  for (const f of forms(term)) {
    const at = low.indexOf(f);
    if (at >= 0 && (!best || at < best.at)) best = { at, len: f.length };
  }
  if (!best) return null;
  if (low.length === text.length) return { from: best.at, to: best.at + best.len };
  let from = -1;
  let to = text.length;
  let li = 0;
  for (let ti = 0; ti < text.length; ) {
    const c = String.fromCodePoint(text.codePointAt(ti)!);
    if (from < 0 && li + fold(c).length > best.at) from = ti;
    li += fold(c).length;
    ti += c.length;
    if (from >= 0 && li >= best.at + best.len) {
      to = ti;
      break;
    }
  }
  return { from: Math.max(0, from), to };
}

/** The shown character (whitespace run collapsed, marks kept with their base) starting at `i`. */
function right(text: string, i: number): { s: string; next: number } {
  if (WS.test(text[i])) {
    let j = i + 1;
    while (j < text.length && WS.test(text[j])) j++;
    return { s: ' ', next: j };
  }
  let j = i + String.fromCodePoint(text.codePointAt(i)!).length;
  while (j < text.length) {
    if (text.charCodeAt(j) < NARROW) break;
    const c = String.fromCodePoint(text.codePointAt(j)!);
    if (!MARK.test(c)) break;
    j += c.length;
  }
  return { s: text.slice(i, j), next: j };
}

/** The shown character ending at `i`. */
function left(text: string, i: number): { s: string; next: number } {
  if (WS.test(text[i - 1])) {
    let j = i - 1;
    while (j > 0 && WS.test(text[j - 1])) j--;
    return { s: ' ', next: j };
  }
  let j = i;
  for (;;) {
    const lo = text.charCodeAt(j - 1);
    const pair = j >= 2 && lo >= 0xdc00 && lo <= 0xdfff && text.charCodeAt(j - 2) >= 0xd800 && text.charCodeAt(j - 2) <= 0xdbff;
    const start = j - (pair ? 2 : 1);
    const c = text.slice(start, j);
    j = start;
    if (c.charCodeAt(0) < NARROW || !MARK.test(c) || j === 0) break;
  }
  return { s: text.slice(j, i), next: j };
}

/** Walks away from `at` taking shown characters until `budget` columns are spent; `done` says
 * whether the walk reached the end of the text. */
function walk(text: string, at: number, budget: number, dir: 'left' | 'right'): { parts: string[]; cols: number; done: boolean } {
  const parts: string[] = [];
  let cols = 0;
  let i = at;
  for (;;) {
    if (dir === 'left' ? i <= 0 : i >= text.length) return { parts, cols, done: true };
    const t = dir === 'left' ? left(text, i) : right(text, i);
    const w = columns(t.s);
    if (cols + w > budget) return { parts, cols, done: false };
    parts.push(t.s);
    cols += w;
    i = t.next;
  }
}

/** About `width` columns of `text` around the first mention of `term`, on one line, with "…" where
 * the text goes on. The mention sits in the middle, or as near it as the text's ends allow; a
 * mention wider than the window shows its start. No mention: the text's start. */
export function snippetText(text: string, term: string, width = 200): string {
  width = Math.max(3, width);
  const m = findMatch(text, term) ?? { from: 0, to: 0 };
  if (!NOT_NARROW.test(text)) return narrowSnippet(text, m, width);
  const mid = walk(text.slice(0, m.to), m.from, Infinity, 'right').parts.join('');
  const midCols = columns(mid);
  // A column for each side's "…", when that side has any text.
  const resL = m.from > 0 ? 1 : 0;
  const resR = m.to < text.length ? 1 : 0;
  const budget = width - midCols - resL - resR;
  if (budget < 0) {
    // The mention alone fills the window: show as much of it as fits, from its start.
    const cut = walk(mid, 0, width - resL - 1, 'right');
    return `${resL ? '…' : ''}${cut.parts.join('')}…`;
  }
  // How much each side could take, then share the room.
  const { l, r, cutL, cutR } = share(walk(text, m.from, budget, 'left'), walk(text, m.to, budget, 'right'), budget);
  const L = walk(text, m.from, l, 'left');
  const R = walk(text, m.to, r, 'right');
  let before = L.parts.reverse().join('');
  let after = R.parts.join('');
  if (!cutL) before = before.trimStart();
  if (!cutR) after = after.trimEnd();
  return `${cutL ? '…' : ''}${before}${mid}${after}${cutR ? '…' : ''}`;
}

/** The columns each side of a mention takes of `budget`, from what each could take: half each, and
 * what one side cannot use goes to the other; cut: that side does not reach its end. */
function share(canL: { cols: number; done: boolean }, canR: { cols: number; done: boolean }, budget: number): { l: number; r: number; cutL: boolean; cutR: boolean } {
  let l = Math.min(canL.cols, Math.ceil(budget / 2));
  const r = Math.min(canR.cols, budget - l);
  l = Math.min(canL.cols, budget - r);
  return { l, r, cutL: !(canL.done && l === canL.cols), cutR: !(canR.done && r === canR.cols) };
}

// Text with no combining mark, joiner, variation selector, wide character or surrogate (most of
// it): every shown character is one column and one code unit, or a whitespace run shown as one
// space, so the windows are found by stepping over indexes and cut out whole, instead of a string
// per character (a search's snippets are made in a process that has just started, where that
// per-character work is most of their cost). The same windows as the general path, to the character.
const NOT_NARROW = new RegExp(`${MARK.source}|${WIDE.source}|[\\ud800-\\udfff]|[^\\u0000-\\uffff]`, 'u');
const WS_RUN = /\s+/g;

/** /\s/ on one code unit, without the pattern. */
function isWs(c: number): boolean {
  if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** walk() over narrow text: where it stops, the columns taken, and whether it reached the end. */
function narrowWalk(text: string, at: number, budget: number, dir: 'left' | 'right'): { next: number; cols: number; done: boolean } {
  let i = at;
  let cols = 0;
  for (;;) {
    if (dir === 'left' ? i <= 0 : i >= text.length) return { next: i, cols, done: true };
    if (cols + 1 > budget) return { next: i, cols, done: false };
    if (dir === 'right') {
      if (isWs(text.charCodeAt(i++))) while (i < text.length && isWs(text.charCodeAt(i))) i++;
    } else if (isWs(text.charCodeAt(--i))) while (i > 0 && isWs(text.charCodeAt(i - 1))) i--;
    cols++;
  }
}

function shown(s: string): string {
  return s.replace(WS_RUN, ' ');
}

function narrowSnippet(text: string, m: { from: number; to: number }, width: number): string {
  const mid = shown(text.slice(m.from, m.to));
  const resL = m.from > 0 ? 1 : 0;
  const resR = m.to < text.length ? 1 : 0;
  const budget = width - mid.length - resL - resR;
  if (budget < 0) return `${resL ? '…' : ''}${mid.slice(0, width - resL - 1)}…`;
  const { l, r, cutL, cutR } = share(narrowWalk(text, m.from, budget, 'left'), narrowWalk(text, m.to, budget, 'right'), budget);
  let before = shown(text.slice(narrowWalk(text, m.from, l, 'left').next, m.from));
  let after = shown(text.slice(m.to, narrowWalk(text, m.to, r, 'right').next));
  if (!cutL) before = before.trimStart();
  if (!cutR) after = after.trimEnd();
  return `${cutL ? '…' : ''}${before}${mid}${after}${cutR ? '…' : ''}`;
}
