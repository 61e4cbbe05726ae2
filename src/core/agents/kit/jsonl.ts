// Reading lake files line by line, with byte offsets, and parsing a JSON line without decoding the
// bulk nobody asked for. Most of a transcript's bytes are tool output, thinking and signatures the
// turn index never reads: a long line has its long strings cut out before JSON.parse, and a dialect
// decodes one of them only when it needs that text (JsonLine.str).
import * as fs from 'node:fs';
import { checkDeadline, openRegular } from '../../safeopen';
import type { RawLine } from '../../turns';

const BLOCK = 4 << 20;

export interface LineEnd {
  /** Byte and line number just after the last complete (newline-terminated) line. */
  byte: number;
  line: number;
  /** Bytes after the last newline, up to `to` (an unterminated last line), if any. */
  tailBytes: number;
}

/**
 * Calls `cb` for every newline-terminated line in [from.byte, to) of `file` (a path, or an open fd); `from.line` is the
 * number of the line starting at from.byte. With `tail`, an unterminated last line is passed too.
 * The RawLine's buffer is reused: it is valid only during the callback. `block` is called after
 * each read's complete lines with the buffer they start (at 0) and end in.
 */
export function forEachLine(
  file: string | number,
  from: { byte: number; line: number },
  to: number | null,
  cb: (l: RawLine) => void,
  opts: { tail?: boolean; block?: (buf: Buffer, to: number) => void } = {},
): LineEnd {
  // Floor files are never symlinks: one found here was planted, and is not followed. An fd passed
  // in (a reader that reads one file in several steps) stays open for the caller to close.
  const fd = typeof file === 'number' ? file : openRegular(file);
  // One block buffer is reused across files, whatever their size: a fresh one per file is garbage
  // the GC sees late, and its fresh pages fault in as the file is read into them (on this kind of
  // VM ~35 µs a page: a first index build spent a third of its parse threads' time there).
  const mine = spare;
  spare = null;
  try {
    const end = to ?? fs.fstatSync(fd).size;
    let buf = mine ?? Buffer.allocUnsafe(Math.min(BLOCK, Math.max(64, end - from.byte)));
    let bufStart = from.byte; // file offset of buf[0]
    let len = 0;
    let line = from.line;
    for (;;) {
      checkDeadline();
      const want = Math.min(buf.length - len, end - (bufStart + len));
      const n = want > 0 ? fs.readSync(fd, buf, len, want, bufStart + len) : 0;
      len += n;
      let p = 0;
      for (;;) {
        const nl = buf.indexOf(10, p);
        if (nl < 0 || nl >= len) break;
        let e = nl;
        if (e > p && buf[e - 1] === 13) e--;
        cb({ no: line, from: bufStart + p, to: bufStart + nl + 1, buf, s: p, e });
        line++;
        p = nl + 1;
      }
      // The complete lines of this read, buf[0, p), for a reader that wants the bytes as well.
      if (p > 0 && opts.block) opts.block(buf, p);
      if (n === 0) {
        if (len > p && opts.tail) {
          cb({ no: line, from: bufStart + p, to: bufStart + len, buf, s: p, e: len });
        }
        return { byte: bufStart + p, line, tailBytes: len - p };
      }
      if (p === 0 && len === buf.length) {
        // One line longer than the buffer: grow it rather than split the line.
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      } else if (p > 0) {
        buf.copy(buf, 0, p, len);
        bufStart += p;
        len -= p;
      }
    }
  } finally {
    if (fd !== file) fs.closeSync(fd);
    spare = mine;
  }
}

let spare: Buffer | null = Buffer.allocUnsafe(BLOCK);

/** Is the line empty or only whitespace? */
export function isBlank(l: RawLine): boolean {
  for (let i = l.s; i < l.e; i++) {
    const c = l.buf[i];
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** A line's text; a line longer than MAX_DECODED_STRING bytes gives its head (see decodeSpan). */
export function lineText(l: RawLine): string {
  if (l.e - l.s <= MAX_DECODED_STRING) return l.buf.toString('utf8', l.s, l.e);
  let head = l.buf.toString('utf8', l.s, l.s + MAX_DECODED_STRING);
  if (head.endsWith('\uFFFD')) head = head.slice(0, -1);
  return `${head} …[${Math.round((l.e - l.s - MAX_DECODED_STRING) / (1 << 20))} MB of this line not read]`;
}

const ELIDE_LINES_OVER = 8 << 10;
/** The longest string decoded whole. A JavaScript string holds at most about 512 million
 * characters: one line's single string past that (a 560 MB pasted blob) threw out of the whole
 * read, and every search with it. A longer one is decoded as its head and says so. */
export const MAX_DECODED_STRING = 32 << 20;

/** The JSON string literal at [from, to) of `buf` (quotes included), decoded; past
 * MAX_DECODED_STRING bytes only its head, ending with a note of how much was left out. */
function decodeSpan(buf: Buffer, from: number, to: number): string {
  if (to - from <= MAX_DECODED_STRING) return JSON.parse(buf.toString('utf8', from, to)) as string;
  let end = from + MAX_DECODED_STRING;
  // Step back out of an escape (\uXXXX is the longest) or a UTF-8 sequence cut in two.
  for (let tries = 0; tries < 8; tries++, end--) {
    try {
      const head = JSON.parse(`${buf.toString('utf8', from, end)}"`) as string;
      if (head.endsWith('\uFFFD')) continue;
      return `${head} …[${Math.round((to - end) / (1 << 20))} MB of this text not read]`;
    } catch {
      /* inside an escape: one byte less */
    }
  }
  return `…[a text of ${Math.round((to - from) / (1 << 20))} MB not read]`;
}
const ELIDE_STRINGS_OVER = 512;

/**
 * One parsed JSON line. In lean mode, strings longer than 512 bytes in lines over 8 KB are left
 * undecoded: JSON.parse sees a short marker, and str() decodes the original bytes on demand. Valid
 * only during the line callback (the bytes belong to the reader's buffer).
 */
export class JsonLine {
  value: unknown = undefined;
  ok = false;
  private spans: number[] | null = null;

  constructor(
    private readonly l: RawLine,
    lean: boolean,
  ) {
    try {
      // A line too long to be one string is read lean whoever asks: its long strings stay bytes.
      if ((lean && l.e - l.s > ELIDE_LINES_OVER) || l.e - l.s > MAX_DECODED_STRING) this.value = this.parseLean();
      else this.value = JSON.parse(l.buf.toString('utf8', l.s, l.e));
      this.ok = true;
    } catch {
      this.ok = false;
    }
  }

  /** A string field's real value ('' for anything that is not a string). */
  str(v: unknown): string {
    if (typeof v !== 'string') return '';
    if (this.spans && v.length > 1 && v.charCodeAt(0) === 1) {
      const i = Number(v.slice(1)) * 2;
      if (Number.isInteger(i) && i < this.spans.length) return decodeSpan(this.l.buf, this.spans[i], this.spans[i + 1]);
    }
    return v;
  }

  /** Was this string value cut out (so its text is long)? */
  elided(v: unknown): boolean {
    return !!this.spans && typeof v === 'string' && v.length > 1 && v.charCodeAt(0) === 1;
  }

  // Walks the line from quote to quote (Buffer.indexOf is memchr-fast), noting string literals
  // longer than the limit, then parses the line with each of those replaced by "\u0001<i>".
  private parseLean(): unknown {
    const { buf, s, e } = this.l;
    const spans: number[] = [];
    const parts: Buffer[] = [];
    let last = s;
    let pos = s;
    let open = -1;
    for (;;) {
      const q = buf.indexOf(34, pos);
      if (q < 0 || q >= e) break;
      pos = q + 1;
      if (open < 0) {
        open = q;
        continue;
      }
      let k = q - 1;
      while (k > open && buf[k] === 92) k--;
      if ((q - 1 - k) % 2 === 1) continue; // an escaped quote inside the string
      if (q - open - 1 > ELIDE_STRINGS_OVER) {
        parts.push(buf.subarray(last, open), Buffer.from(`"\\u0001${spans.length / 2}"`));
        spans.push(open, q + 1);
        last = q + 1;
      }
      open = -1;
    }
    if (spans.length === 0) return JSON.parse(buf.toString('utf8', s, e));
    parts.push(buf.subarray(last, e));
    this.spans = spans;
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  }
}

// ---- small helpers over parsed JSON, shared by the dialects ----

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function strOrNull(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Arguments as text: strings as they are, anything else as JSON. */
export function argText(j: JsonLine, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return j.str(v);
  return JSON.stringify(v, (_k, x) => (typeof x === 'string' ? j.str(x) : x));
}

/** Text of a tool result's content: a string, or text blocks (images etc. are named). */
export function contentText(j: JsonLine, v: unknown): string {
  if (typeof v === 'string') return j.str(v);
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const b of v) {
      if (typeof b === 'string') out.push(j.str(b));
      else if (isObj(b)) {
        if (typeof b.text === 'string') out.push(j.str(b.text));
        else if (b.type === 'image' || b.type === 'input_image') out.push('[image]');
        else if (typeof b.content === 'string' || Array.isArray(b.content)) out.push(contentText(j, b.content));
      }
    }
    return out.join('\n');
  }
  if (isObj(v)) {
    if (typeof v.text === 'string') return j.str(v.text);
    return argText(j, v);
  }
  return v === undefined || v === null ? '' : String(v);
}

/** The earlier of two ISO timestamps (string compare is enough for one agent's own format). */
export function minTs(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return b < a ? b : a;
}

export function maxTs(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return b > a ? b : a;
}

/** A timestamp field as ISO text: ISO strings as they are, epoch milliseconds converted. */
export function tsOf(v: unknown): string | null {
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v)) return v;
  if (typeof v === 'number' && v > 1e11 && v < 1e14) return new Date(v).toISOString();
  return null;
}
