// Reading floor files for the cache: the manifest with each line's byte offset, and lake byte
// ranges cut into lines exactly as `sed -n` numbers them (split at '\n' only).
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { isManifestLine, type ManifestLine } from '../floor/manifest';
import { openRegular } from '../safeopen';

const BLOCK = 1 << 22;

export interface ManifestEntry {
  offset: number;
  /** Byte length of the manifest line including its newline. */
  length: number;
  line: ManifestLine;
}

export interface ManifestScan {
  entries: ManifestEntry[];
  /** Offset after the last complete line read (a torn last line is left for later). */
  end: number;
  /** Start of the last complete line (for the consistency check), or -1. */
  lastStart: number;
  bad: number;
}

/** Reads complete manifest lines from byte `from`. Lines that are not manifest records are
 * counted in `bad` and skipped (the manifest's own verify reports them). */
export function scanManifest(file: string, from: number): ManifestScan {
  const out: ManifestScan = { entries: [], end: from, lastStart: -1, bad: 0 };
  let fd: number;
  try {
    fd = openRegular(file, 'manifest');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    let carry: Buffer = Buffer.alloc(0);
    let pos = from;
    let lineStart = from;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let i = 0;
      for (;;) {
        const nl = data.indexOf(10, i);
        if (nl < 0) break;
        const len = nl - i + 1;
        const text = data.toString('utf8', i, nl);
        if (text.trim().length > 0) {
          let j: unknown;
          try {
            j = JSON.parse(text);
          } catch {
            j = undefined;
          }
          if (isManifestLine(j)) out.entries.push({ offset: lineStart, length: len, line: j });
          else out.bad++;
        }
        out.lastStart = lineStart;
        lineStart += len;
        i = nl + 1;
      }
      carry = Buffer.from(data.subarray(i));
    }
    out.end = lineStart;
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

export interface FileScan {
  size: number;
  /** The whole file is valid UTF-8 (DuckDB's read_text can load it). */
  utf8: boolean;
  /** Offset after the last '\n' at or before `claimedEnd`. */
  lastOffset: number;
  /** Complete lines in [0, lastOffset). */
  lines: number;
  /** sha256 of bytes [0, lastOffset). */
  prefixSha256: string;
  /** The claim ends inside a line that goes on past it (bytes the manifest does not claim). */
  cutTail: boolean;
}

/** One pass over a lake file: UTF-8 validity, complete lines and prefix hash up to `claimedEnd`.
 * onLine (optional) is given each line of the claimed range: number, byte offset and byte length
 * including its newline (the last line may be unterminated when the claim ends the file). */
export function scanFile(
  file: string,
  claimedEnd: number,
  onLine?: (lineNo: number, byteOffset: number, nBytes: number) => void,
): FileScan {
  const fd = openRegular(file, 'lake file');
  try {
    const size = fs.fstatSync(fd).size;
    const h = createHash('sha256');
    // One buffer for every scan (they run one at a time): a new 4 MB buffer per file is garbage
    // V8 collects late, hundreds of MB of a rebuild's peak RSS. The up to 3 bytes of a character
    // cut at the block's end are moved to its start, and the next block is read after them.
    const buf = scanBuffer();
    let pos = 0;
    let utf8 = true;
    let carried = 0;
    let lastOffset = 0;
    let lines = 0;
    // Bytes after the last newline seen (within the claimed range): hashed once a newline follows.
    let pending: Buffer[] = [];
    const limit = Math.min(claimedEnd, size);
    while (pos < size) {
      const n = fs.readSync(fd, buf, carried, BLOCK, pos);
      if (n === 0) break;
      const block = buf.subarray(carried, carried + n);
      if (pos < limit) {
        const end = Math.min(n, limit - pos);
        let lastNl = -1;
        let i = block.indexOf(10, 0);
        while (i >= 0 && i < end) {
          lines++;
          onLine?.(lines, lastOffset, pos + i + 1 - lastOffset);
          lastOffset = pos + i + 1;
          lastNl = i;
          i = block.indexOf(10, i + 1);
        }
        if (lastNl >= 0) {
          for (const p of pending) h.update(p);
          pending = [];
          h.update(block.subarray(0, lastNl + 1));
          if (end > lastNl + 1) pending.push(Buffer.from(block.subarray(lastNl + 1, end)));
        } else {
          pending.push(Buffer.from(block.subarray(0, end)));
        }
      }
      carried = 0;
      if (utf8) {
        // Check UTF-8 without splitting a character at the block edge.
        const data = buf.subarray(0, block.byteOffset - buf.byteOffset + n);
        const cut = pos + n >= size ? data.length : utf8Boundary(data);
        if (!isUtf8(data.subarray(0, cut))) utf8 = false;
        carried = data.length - cut;
        if (carried > 0) buf.copyWithin(0, cut, data.length);
      }
      pos += n;
    }
    // An unterminated last line counts when the claim covers it to the end of the file.
    if (onLine && limit > lastOffset && limit === size) onLine(lines + 1, lastOffset, limit - lastOffset);
    return { size, utf8, lastOffset, lines, prefixSha256: h.digest('hex'), cutTail: limit > lastOffset && limit < size };
  } finally {
    fs.closeSync(fd);
  }
}

let sharedScanBuffer: Buffer | undefined;
function scanBuffer(): Buffer {
  return (sharedScanBuffer ??= Buffer.allocUnsafe(BLOCK + 4));
}

// crypto.hash (one call, no Hash object) where this Node has it: most lines are short.
const oneShot = (crypto as unknown as { hash?: (alg: string, data: Buffer, enc: 'hex') => string }).hash;
export function hashHex(b: Buffer): string {
  return oneShot ? oneShot('sha256', b, 'hex') : createHash('sha256').update(b).digest('hex');
}

/** Length of the prefix of `b` that does not end inside a multi-byte UTF-8 sequence. */
function utf8Boundary(b: Buffer): number {
  let i = b.length;
  let back = 0;
  while (i > 0 && back < 4) {
    const c = b[i - 1];
    if ((c & 0xc0) !== 0x80) {
      // c is a lead byte (or ASCII) at i-1: how long is its sequence?
      const need = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      return back + 1 >= need ? b.length : i - 1;
    }
    i--;
    back++;
  }
  return b.length;
}

export interface LakeLine {
  byteOffset: number;
  lineNo: number;
  text: string;
  /** sha256 of the line's bytes (without the newline) when text is not those bytes (utf8Replaced):
   * otherwise the text's own hash is the line's, and the cache computes it when read. */
  sha256: string | null;
  nBytes: number;
  utf8Replaced: boolean;
  terminated: boolean;
}

/** Lines of bytes [from, to) of a lake file; `from` must be a line start numbered `lineNo`.
 * The last piece, when not ended by '\n' before `to`, is given as an unterminated line. */
export function* readLines(file: string, from: number, to: number, lineNo: number): Generator<LakeLine> {
  if (to <= from) return;
  const fd = openRegular(file, 'lake file');
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    let pos = from;
    let carry: Buffer = Buffer.alloc(0);
    let lineStart = from;
    while (pos < to) {
      const want = Math.min(buf.length, to - pos);
      const n = fs.readSync(fd, buf, 0, want, pos);
      if (n === 0) throw new Error(`${file} ends at byte ${pos}, before ${to} (the manifest claims more)`);
      pos += n;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let i = 0;
      for (;;) {
        const nl = data.indexOf(10, i);
        if (nl < 0) break;
        yield makeLine(data.subarray(i, nl), lineStart, lineNo++, true);
        lineStart += nl - i + 1;
        i = nl + 1;
      }
      carry = Buffer.from(data.subarray(i));
    }
    if (carry.length > 0) yield makeLine(carry, lineStart, lineNo, false);
  } finally {
    fs.closeSync(fd);
  }
}

function makeLine(bytes: Buffer, byteOffset: number, lineNo: number, terminated: boolean): LakeLine {
  const ok = isUtf8(bytes);
  return {
    byteOffset,
    lineNo,
    text: bytes.toString('utf8'),
    sha256: ok ? null : hashHex(bytes),
    nBytes: bytes.length + (terminated ? 1 : 0),
    utf8Replaced: !ok,
    terminated,
  };
}
