// Masking inside the DuckDB cache. Masking an SQL answer after the fact cannot hold: reverse(text),
// replace(text, 'sk-', 's k-') or to_base64(encode(text)) give a key back in a form no answer mask
// recognises. So the cache stores every line already masked: what SQL reads holds no secret to
// transform. The floor is untouched (a line's sha256 and byte length in floor.raw_lines are still
// the floor's, as for a line whose invalid UTF-8 was replaced), and a citation checks against it.
// The values come from the detector run over the bytes being loaded and from the guard's findings
// (secrets.json), each in every form it takes in a raw line (as is, JSON-escaped).
import * as fs from 'node:fs';
import { readCache } from './cache';
import { secretValues } from './detect';
import { knownSecretValues, maskerOf, secretForms } from './redact';

/** Replaces every secret in a line's text with its preview; the same text when there is none. */
export type LineMasker = (text: string) => string;

const BLOCK = 8 << 20;

/** The masker for bytes [from, to) of a lake file (whole lines), or null when they hold no secret
 * the detector or the guard knows. Read in blocks cut at line ends, so memory stays bounded. */
export async function rangeMasker(home: string, file: string, from: number, to: number): Promise<LineMasker | null> {
  const salt = readCache(home).cache.salt;
  const known = await knownSecretValues(home);
  const knownForms = known.map((v) => ({ v, forms: secretForms([v]).map((f) => Buffer.from(f, 'utf8')) }));
  const values = new Set<string>();
  // A secret the guard knows is looked for as bytes (cheap); the detector finds the others.
  const look = (b: Buffer) => {
    for (const k of knownForms) if (!values.has(k.v) && k.forms.some((f) => b.includes(f))) values.add(k.v);
  };
  const fd = fs.openSync(file, 'r');
  try {
    let pos = from;
    let carry: Buffer = Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(BLOCK);
    while (pos < to) {
      const n = fs.readSync(fd, buf, 0, Math.min(BLOCK, to - pos), pos);
      if (n <= 0) break;
      pos += n;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      const cut = pos >= to ? data.length : data.lastIndexOf(10) + 1;
      if (cut > 0) {
        look(data.subarray(0, cut));
        for (const v of await secretValues(data.subarray(0, cut), salt)) values.add(v.value);
      }
      // A line longer than a block is looked at once it ends (or at the range's end).
      carry = Buffer.from(data.subarray(cut));
    }
    if (carry.length) {
      look(carry);
      for (const v of await secretValues(carry, salt)) values.add(v.value);
    }
  } finally {
    fs.closeSync(fd);
  }
  return values.size ? maskerOf([...values]) : null;
}
