// A protobuf wire-format reader without a schema: Warp keeps its agent tasks as protobuf messages
// (warp.multi_agent.v1.Task) and its .proto files are not published, so its dialect and the cache
// (brain_protobuf_json, cache/udf.ts) read fields by number (see agents/warp/README.md).

export interface Field {
  no: number;
  /** Wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wt: number;
  /** A varint or fixed value (as a number; exact below 2^53), or the bytes of a length-delimited one. */
  v: number | Buffer;
}

function varint(b: Buffer, p: { i: number }): number | null {
  let x = 0;
  let mul = 1;
  for (let k = 0; k < 10; k++) {
    if (p.i >= b.length) return null;
    const c = b[p.i++];
    x += (c & 0x7f) * mul;
    if ((c & 0x80) === 0) return x;
    mul *= 128;
  }
  return null;
}

/** The fields of a message, or null when the bytes are not one (so a string is not taken for a
 * message by mistake). */
export function fields(b: Buffer): Field[] | null {
  const out: Field[] = [];
  const p = { i: 0 };
  while (p.i < b.length) {
    const tag = varint(b, p);
    if (tag === null) return null;
    const no = Math.floor(tag / 8);
    const wt = tag % 8;
    if (no < 1) return null;
    if (wt === 0) {
      const v = varint(b, p);
      if (v === null) return null;
      out.push({ no, wt, v });
    } else if (wt === 2) {
      const n = varint(b, p);
      if (n === null || p.i + n > b.length) return null;
      out.push({ no, wt, v: b.subarray(p.i, p.i + n) });
      p.i += n;
    } else if (wt === 1 || wt === 5) {
      const n = wt === 1 ? 8 : 4;
      if (p.i + n > b.length) return null;
      out.push({ no, wt, v: wt === 1 ? Number(b.readBigUInt64LE(p.i)) : b.readUInt32LE(p.i) });
      p.i += n;
    } else return null;
  }
  return out;
}

export const first = (fs: Field[], no: number): Field | undefined => fs.find((f) => f.no === no);
export const all = (fs: Field[], no: number): Field[] => fs.filter((f) => f.no === no);

const utf8 = new TextDecoder('utf-8', { fatal: true });

const TEXT = /^[^\p{Cc}]*$/u;
const CTRL_OK = /[\t\n\r]/g;

/** What a length-delimited field holds: a nested message or text. Bytes can be both ("hi" parses
 * as a varint field; "\n%Where…" is text and also field 1 of 37 bytes): a parse that holds a
 * length-delimited field is taken as a message (text rarely frames itself so), otherwise text
 * without control characters is text. */
function kindOf(f: Field, depth: number): { s: string } | { m: Field[] } | null {
  const s = str(f);
  const nested = depth < 8 && Buffer.isBuffer(f.v) ? fields(f.v) : null;
  if (nested && nested.length > 0 && nested.some((x) => x.wt === 2)) return { m: nested };
  if (s !== null && TEXT.test(s.replace(CTRL_OK, ''))) return { s };
  if (nested && nested.length > 0) return { m: nested };
  return null;
}

/** A length-delimited field as text, when it is valid UTF-8. */
export function str(f: Field | undefined): string | null {
  if (!f || !Buffer.isBuffer(f.v)) return null;
  try {
    return utf8.decode(f.v);
  } catch {
    return null;
  }
}

export function sub(f: Field | undefined): Field[] | null {
  return f && Buffer.isBuffer(f.v) ? fields(f.v) : null;
}

/** A message as plain JSON, fields by number: text where it reads as text, a nested message where
 * the bytes parse as one and do not read as text, base64 otherwise; a repeated field a list. */
export function toJson(fs: Field[], depth = 0): Record<string, unknown> {
  const by = new Map<string, unknown[]>();
  for (const f of fs) {
    let v: unknown = f.v;
    if (Buffer.isBuffer(f.v)) {
      const k = kindOf(f, depth);
      v = !k ? f.v.toString('base64') : 's' in k ? k.s : toJson(k.m, depth + 1);
    }
    const k = String(f.no);
    const a = by.get(k);
    if (a) a.push(v);
    else by.set(k, [v]);
  }
  const o: Record<string, unknown> = {};
  for (const [k, a] of by) o[k] = a.length === 1 ? a[0] : a;
  return o;
}

/** Every text inside a message, depth first (a tool result's output, whatever its shape). */
export function texts(fs: Field[], depth = 0): string[] {
  const out: string[] = [];
  for (const f of fs) {
    if (!Buffer.isBuffer(f.v)) continue;
    const k = kindOf(f, depth);
    if (!k) continue;
    if ('s' in k) {
      if (k.s.trim()) out.push(k.s);
    } else out.push(...texts(k.m, depth + 1));
  }
  return out;
}

/** A message as JSON for SQL: every field a list (a reader cannot tell a repeated field from one
 * set once), keyed by number, values as toJson gives them (nested messages in the same form). */
export function toJsonLists(fs: Field[], depth = 0): Record<string, unknown[]> {
  const o: Record<string, unknown[]> = {};
  for (const f of fs) {
    let v: unknown = f.v;
    if (Buffer.isBuffer(f.v)) {
      const k = kindOf(f, depth);
      v = !k ? f.v.toString('base64') : 's' in k ? k.s : toJsonLists(k.m, depth + 1);
    }
    (o[String(f.no)] ??= []).push(v);
  }
  return o;
}
