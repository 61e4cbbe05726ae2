// Trigrams for raw_fts: each distinct trigram (three code points) of a lowercased text as one
// ASCII word, so the table (tokenize 'ascii', no positions) is handed each once per chunk instead
// of tokenizing every byte: a chunk of code or logs repeats most of its trigrams. Search asks for
// the words of a term's forms (trigramWords); the index takes them from the raw bytes
// (rawTrigramWords), which gives the same words as folding the decoded text would.

/** Lowercasing is the index's and the scan's one definition of "case-insensitive". */
export function fold(s: string): string {
  return s.toLowerCase();
}

interface Acc {
  stamp: number;
  out: string[];
  wide: Set<string> | null;
}

// Which ASCII trigrams the current chunk gave already: a stamp per trigram, so nothing is cleared.
let stamp = 0;
const asciiSeen = new Uint32Array(1 << 21);

function start(): Acc {
  if (++stamp === 0xffffffff) {
    asciiSeen.fill(0);
    stamp = 1;
  }
  return { stamp, out: [], wide: null };
}

function finish(acc: Acc): string[] {
  if (acc.wide) for (const w of acc.wide) acc.out.push(w);
  return acc.out;
}

// Each ASCII trigram's word, made once.
const asciiWord: string[] = [];

function ascii(acc: Acc, k: number): void {
  if (asciiSeen[k] !== acc.stamp) {
    asciiSeen[k] = acc.stamp;
    acc.out.push((asciiWord[k] ??= `t${k.toString(36)}`));
  }
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
      if ((a | b | c) < 128) ascii(acc, (a << 14) | (b << 7) | c);
      else (acc.wide ??= new Set()).add(`u${a.toString(36)}x${b.toString(36)}x${c.toString(36)}`);
    }
    a = b;
    b = c;
  }
}

/** The trigram words of a lowercased text (a term's form). */
export function trigramWords(folded: string): string[] {
  const acc = start();
  addString(acc, folded);
  return finish(acc);
}

// ASCII bytes kept on each side of a stretch of other bytes, decoded and lowercased with it: the
// trigrams across its edges, and the context lowercasing looks at (a final sigma).
const EDGE = 8;

/** The trigram words of bytes from..to of complete UTF-8 lines, as if decoded and lowercased:
 * ASCII straight from the bytes (decoding and lowercasing a whole chunk costs more than the
 * parse), stretches with other bytes decoded and lowercased. No trigram spans a newline (no term
 * the index is asked for holds one). */
export function rawTrigramWords(buf: Buffer, from: number, to: number): string[] {
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
        // ascii(), by hand: this loop sees every byte of the lake.
        const k = (a << 14) | (b << 7) | c;
        if (asciiSeen[k] !== st) {
          asciiSeen[k] = st;
          out.push((asciiWord[k] ??= `t${k.toString(36)}`));
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
