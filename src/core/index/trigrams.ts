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
  out: number[];
  wide: Set<number> | null;
}

// Which ASCII trigrams the current chunk gave already: one bit each (256 KB, so it stays in the
// cache; a word per trigram took 8 MB and a cache miss on most bytes), cleared after each chunk
// through the keys it gave.
const asciiSeen = new Int32Array(ASCII_KEYS >>> 5);

function start(): Acc {
  return { out: [], wide: null };
}

function finish(acc: Acc): number[] {
  for (const k of acc.out) asciiSeen[k >>> 5] = 0;
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
        const w = asciiSeen[k >>> 5];
        const m = 1 << (k & 31);
        if ((w & m) === 0) {
          asciiSeen[k >>> 5] = w | m;
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
  const out = acc.out;
  const seen = asciiSeen;
  // The last three ASCII code points (lowercased) as a key, and how many of them are there.
  let k = 0;
  let have = 0;
  let i = from;
  while (i < to) {
    const x = buf[i];
    if (x < 128) {
      i++;
      if (x === 10) {
        have = 0;
        continue;
      }
      // By hand, as in addString: this loop sees every byte of the lake.
      k = ((k << 7) | (x - 65 < 26 && x >= 65 ? x + 32 : x)) & (ASCII_KEYS - 1);
      if (++have >= 3) {
        const w = seen[k >>> 5];
        const m = 1 << (k & 31);
        if ((w & m) === 0) {
          seen[k >>> 5] = w | m;
          out.push(k);
        }
      }
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
    // The ASCII bytes the stretch ended with start the next trigrams (none across a newline).
    have = 0;
    k = 0;
    for (let j = Math.max(i - Math.min(run, 2), from); j < i; j++) {
      const y = buf[j];
      if (y === 10) {
        have = 0;
        k = 0;
        continue;
      }
      k = ((k << 7) | (y >= 65 && y <= 90 ? y + 32 : y)) & (ASCII_KEYS - 1);
      have++;
    }
  }
  return finish(acc);
}
