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

// Which ASCII trigrams the current text gave already: a byte each (2 MB; a bit each took twice the
// time to test and set, and this is tested for every byte of the lake), cleared after each text
// through the keys it gave.
const asciiSeen = new Uint8Array(ASCII_KEYS);
// Each byte's code point lowercased, or NOT_ASCII (a byte of a multi-byte character) or NEWLINE:
// one load instead of the comparisons, in the loop that sees every byte.
const NOT_ASCII = 0x100;
const NEWLINE = 0x200;
const LOWER = new Int32Array(256);
for (let c = 0; c < 256; c++) LOWER[c] = c >= 128 ? NOT_ASCII : c === 10 ? NEWLINE : c >= 65 && c <= 90 ? c + 32 : c;

// The keys a text gave, in order (ASCII ones as found): one buffer reused for every text.
let outKeys: Int32Array = new Int32Array(1 << 16);
let outN = 0;
let wide: Set<number> | null = null;

function grow(): Int32Array {
  const b = new Int32Array(outKeys.length * 2);
  b.set(outKeys);
  outKeys = b;
  return b;
}

function start(): void {
  outN = 0;
  wide = null;
}

/** The keys gathered since start(), as a copy with a buffer of its own (a parse thread hands it
 * over to the writer without copying); asciiSeen is cleared for the next text. */
function finish(): Int32Array {
  const seen = asciiSeen;
  for (let i = 0; i < outN; i++) seen[outKeys[i]] = 0;
  const w = wide;
  const out = new Int32Array(outN + (w ? w.size : 0));
  out.set(outKeys.subarray(0, outN));
  if (w) {
    let i = outN;
    for (const k of w) out[i++] = k;
  }
  return out;
}

function addAscii(k: number): void {
  if (asciiSeen[k] === 0) {
    asciiSeen[k] = 1;
    if (outN === outKeys.length) grow();
    outKeys[outN++] = k;
  }
}

function addString(s: string): void {
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
      if ((a | b | c) < 128) addAscii((a << 14) | (b << 7) | c);
      else (wide ??= new Set()).add(wideKey(a, b, c));
    }
    a = b;
    b = c;
  }
}

/** The distinct trigram keys of a lowercased text (a term's form). */
export function trigramKeys(folded: string): number[] {
  start();
  addString(folded);
  return [...finish()];
}

// ASCII bytes kept on each side of a stretch of other bytes, decoded and lowercased with it: the
// trigrams across its edges, and the context lowercasing looks at (a final sigma).
const EDGE = 8;

/** The distinct trigram keys of bytes from..to of complete UTF-8 lines, as if decoded and
 * lowercased: ASCII straight from the bytes (decoding and lowercasing a whole chunk costs more
 * than the parse), stretches with other bytes decoded and lowercased. No trigram spans a newline
 * (no term the index is asked for holds one). */
/** The keys of a stretch of bytes holding other than ASCII, from `i` (such a byte) up to the next
 * EDGE ASCII bytes in a row (or `to`), decoded and lowercased with EDGE bytes before it; returns
 * where the stretch ends. Apart from the loop over ASCII bytes, which it would slow down. */
function wideStretch(buf: Buffer, bytes: Uint8Array, from: number, i: number, to: number): number {
  let e = i;
  let run = 0;
  while (e < to && run < EDGE) {
    run = bytes[e] < 128 ? run + 1 : 0;
    e++;
  }
  for (const line of fold(buf.toString('utf8', Math.max(from, i - EDGE), e)).split('\n')) addString(line);
  return e;
}

export function rawTrigramKeys(buf: Buffer, from: number, to: number): Int32Array {
  start();
  // A plain Uint8Array view: V8 reads its bytes faster than a Buffer's.
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  const seen = asciiSeen;
  const low = LOWER;
  let out: Int32Array = outKeys;
  let n = 0;
  // The last three ASCII code points (lowercased) as a key, and how many of them are there.
  let k = 0;
  let have = 0;
  let i = from;
  while (i < to) {
    const x = low[bytes[i]];
    if (x < 128) {
      i++;
      k = ((k << 7) | x) & (ASCII_KEYS - 1);
      if (++have >= 3 && seen[k] === 0) {
        seen[k] = 1;
        if (n === out.length) {
          outN = n;
          out = grow();
        }
        out[n++] = k;
      }
      continue;
    }
    if (x === NEWLINE) {
      i++;
      have = 0;
      continue;
    }
    outN = n;
    i = wideStretch(buf, bytes, from, i, to);
    out = outKeys;
    n = outN;
    // The ASCII bytes the stretch ended with start the next trigrams (none across a newline).
    have = 0;
    k = 0;
    for (let j = Math.max(i - 2, from); j < i; j++) {
      const y = low[bytes[j]];
      if (y >= 128) {
        have = 0;
        k = 0;
        continue;
      }
      k = ((k << 7) | y) & (ASCII_KEYS - 1);
      have++;
    }
  }
  outN = n;
  return finish();
}
