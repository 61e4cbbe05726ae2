// Byte and line ranges of floor files: the arithmetic every citation check rests on.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { checkDeadline, openRegular } from '../safeopen';

const BLOCK = 1 << 20;

/** sha256 (hex) of bytes [from, to) of a file, read in blocks. Throws if the file is shorter, or
 * is a symlink (ELOOP) or not a regular file (NotRegularError): a floor file never is one, and the
 * bytes it points at are not the floor's. */
export function hashRange(file: string, from: number, to: number): string {
  const h = createHash('sha256');
  const fd = openRegular(file);
  try {
    const buf = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, to - from)));
    let pos = from;
    while (pos < to) {
      checkDeadline();
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
      if (n === 0) throw new Error(`${file} ends at byte ${pos}, before ${to}`);
      h.update(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/** The offset of the first byte where two open files differ within their first `len` bytes, or -1
 * when they agree. A file that ends early differs there, unless
 * `endsAgree` and both end at the same place (they agree as far as both go). */
export function firstDifference(fdA: number, fdB: number, len: number, endsAgree = false): number {
  const a = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, len)));
  const b = Buffer.allocUnsafe(a.length);
  let pos = 0;
  while (pos < len) {
    const want = Math.min(a.length, len - pos);
    const n1 = fs.readSync(fdA, a, 0, want, pos);
    const n2 = fs.readSync(fdB, b, 0, want, pos);
    if (n1 !== n2 || !a.subarray(0, n1).equals(b.subarray(0, n2))) {
      // The byte itself, not the block it sits in: verify names it to the user.
      const n = Math.min(n1, n2);
      let i = 0;
      while (i < n && a[i] === b[i]) i++;
      return pos + i;
    }
    if (n1 < want) return endsAgree ? -1 : pos + n1;
    pos += want;
  }
  return -1;
}

/** Byte range of lines A..B (1-based, inclusive) as `sed -n 'A,Bp'` prints them: from the start of
 * line A to just after the newline of line B (or end of file when B is the unterminated last line).
 * `hint` lets a caller start counting from a known line boundary. Returns null if line A does not exist. */
export function lineRangeToBytes(
  file: string,
  lineFrom: number,
  lineTo: number,
  hint: { line: number; byte: number } = { line: 1, byte: 0 },
): { byte_from: number; byte_to: number } | null {
  if (lineFrom < 1 || lineTo < lineFrom || hint.line > lineFrom) return null;
  const fd = openRegular(file);
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    let line = hint.line; // line number of the byte at `pos`
    let pos = hint.byte;
    let start = line === lineFrom ? pos : -1;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) {
        if (start < 0) return null;
        return { byte_from: start, byte_to: pos };
      }
      let i = 0;
      while (i < n) {
        const nl = buf.indexOf(10, i);
        if (nl < 0 || nl >= n) break;
        if (line === lineTo) return { byte_from: start, byte_to: pos + nl + 1 };
        line++;
        i = nl + 1;
        if (line === lineFrom) start = pos + i;
      }
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Counts newlines in a buffer. */
export function countNewlines(b: Buffer, from = 0, to = b.length): number {
  let c = 0;
  let i = b.indexOf(10, from);
  while (i >= 0 && i < to) {
    c++;
    i = b.indexOf(10, i + 1);
  }
  return c;
}
