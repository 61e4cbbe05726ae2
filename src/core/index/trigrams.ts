// Trigrams for the raw index (rawpost.ts): each distinct trigram (three code points) of a
// lowercased text as one number, its key, so a chunk of lines is handed over as its keys once
// each instead of a string per trigram: a chunk of code or logs repeats most of its trigrams.
// Search asks for the keys of a term's forms (trigramKeys); the index takes them from the raw
// bytes (rawTrigramKeys), which gives the same keys as folding the decoded text would.

/** Lowercasing is the index's and the scan's one definition of "case-insensitive". */
export function fold(s: string): string {
  return s.toLowerCase();
}

/** Keys below this are ASCII trigrams (7 bits a code point); the others are hashed into the
 * rest of 31 bits: two such trigrams may share a key, which makes the raw index name a file
 * that does not hold a term (it is a prefilter; the files it names are read to verify). */
export const ASCII_KEYS = 1 << 21;
const WIDE_MASK = 0x3fffffff;

export function wideKey(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15) ^ b, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 13) ^ c, 0x27d4eb2f);
  h ^= h >>> 16;
  return ASCII_KEYS + (h & WIDE_MASK);
}

interface Acc {
  stamp: number;
  out: number[];
  wide: Set<number> | null;
}

// Which ASCII trigrams the current chunk gave already: a stamp per trigram, so nothing is cleared.
let stamp = 0;
const asciiSeen = new Uint32Array(ASCII_KEYS);

function start(): Acc {
  if (++stamp === 0xffffffff) {
    asciiSeen.fill(0);
    stamp = 1;
  }
  return { stamp, out: [], wide: null };
}

function finish(acc: Acc): number[] {
  if (acc.wide) for (const w of acc.wide) acc.out.push(w);
  return acc.out;
}

function addString(acc: Acc, s: string): void {
  let a = -1;
  let b = -1;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    if (a >= 0) {
      if ((a | b | c) < 128) {
        const k = (a << 14) | (b << 7) | c;
        if (asciiSeen[k] !== acc.stamp) {
          asciiSeen[k] = acc.stamp;
          acc.out.push(k);
        }
      } else (acc.wide ??= new Set()).add(wideKey(a, b, c));
    }
    a = b;
    b = c;
  }
}

/** The distinct trigram keys of a lowercased text (a term's form). */
export function trigramKeys(folded: string): number[] {
  const acc = start();
  addString(acc, folded);
  return finish(acc);
}

// ASCII bytes kept on each side of a stretch of other bytes, decoded and lowercased with it: the
// trigrams across its edges, and the context lowercasing looks at (a final sigma).
const EDGE = 8;

/** The distinct trigram keys of bytes from..to of complete UTF-8 lines, as if decoded and
 * lowercased: ASCII straight from the bytes (decoding and lowercasing a whole chunk costs more
 * than the parse), stretches with other bytes decoded and lowercased. No trigram spans a newline
 * (no term the index is asked for holds one). */
export function rawTrigramKeys(buf: Buffer, from: number, to: number): number[] {
  const acc = start();
  const st = acc.stamp;
  const out = acc.out;
  let a = -1;
  let b = -1;
  let i = from;
  while (i < to) {
    const x = buf[i];
    if (x < 128) {
      if (x === 10) {
        a = b = -1;
        i++;
        continue;
      }
      const c = x >= 65 && x <= 90 ? x + 32 : x;
      if (a >= 0) {
        // By hand, as in addString: this loop sees every byte of the lake.
        const k = (a << 14) | (b << 7) | c;
        if (asciiSeen[k] !== st) {
          asciiSeen[k] = st;
          out.push(k);
        }
      }
      a = b;
      b = c;
      i++;
      continue;
    }
    // Up to the next EDGE ASCII bytes in a row (or the end), then decoded with EDGE bytes before.
    let e = i;
    let run = 0;
    while (e < to && run < EDGE) {
      run = buf[e] < 128 ? run + 1 : 0;
      e++;
    }
    const from2 = Math.max(from, i - EDGE);
    for (const line of fold(buf.toString('utf8', from2, e)).split('\n')) addString(acc, line);
    i = e;
    a = b = -1;
    if (run >= 2 && buf[e - 1] !== 10 && buf[e - 2] !== 10) {
      a = buf[e - 2] >= 65 && buf[e - 2] <= 90 ? buf[e - 2] + 32 : buf[e - 2];
      b = buf[e - 1] >= 65 && buf[e - 1] <= 90 ? buf[e - 1] + 32 : buf[e - 1];
    } else if (run >= 1 && buf[e - 1] !== 10) {
      b = buf[e - 1] >= 65 && buf[e - 1] <= 90 ? buf[e - 1] + 32 : buf[e - 1];
    }
  }
  return finish(acc);
}
