// Origin names -> lake names. The lake keeps the origin's path relative to its agent root so paths
// stay readable and globbable, but a name the floor cannot hold as-is (invalid UTF-8, too long for
// the filesystem) is escaped, with a hash of the raw bytes so two origins never share a lake file.
// Two more kinds of name are escaped so that the three namespaces of the lake stay apart: a name
// shaped like a generation (`x.g2.jsonl`, which generation 2 of `x.jsonl` is named) and a name
// shaped like an escaped one (`x~1a2b3c4d.jsonl`), as a folder restored from the lake holds both.
import { createHash } from 'node:crypto';

const MAX_SEGMENT_BYTES = 200; // leaves room for ".g999" and ".offset.json" under NAME_MAX (255)
const MAX_PATH_BYTES = 3800; // under PATH_MAX (4096) once BRAIN_HOME is in front

function sha(b: Buffer | string, n: number): string {
  return createHash('sha256').update(b).digest('hex').slice(0, n);
}

function isValidUtf8(b: Buffer): boolean {
  return Buffer.from(b.toString('utf8'), 'utf8').equals(b);
}

/** Percent-escapes the bytes of an invalid UTF-8 name or path, keeping ASCII readable (and a path's
 * slashes slashes: a segment, the only thing escaped for the lake, holds none). */
function escapeBytes(b: Buffer): string {
  let out = '';
  for (const byte of b) {
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x25) out += String.fromCharCode(byte);
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function truncateUtf8(s: string, maxBytes: number): string {
  let out = '';
  let n = 0;
  for (const ch of s) {
    const l = Buffer.byteLength(ch);
    if (n + l > maxBytes) break;
    out += ch;
    n += l;
  }
  return out;
}

export interface LakeSegment {
  name: string;
  escaped: boolean;
}

/** A single path segment (a directory or file name, raw bytes) as it is named in the lake. */
export function lakeSegment(raw: Buffer): LakeSegment {
  let name: string;
  let escaped = false;
  if (isValidUtf8(raw)) {
    name = raw.toString('utf8');
  } else {
    name = `${escapeBytes(raw)}~${sha(raw, 8)}`;
    escaped = true;
  }
  if (Buffer.byteLength(name) > MAX_SEGMENT_BYTES) {
    const ext = /\.(jsonl|json|txt)$/.exec(name)?.[0] ?? '';
    name = `${truncateUtf8(name, MAX_SEGMENT_BYTES - 40)}~${sha(raw, 16)}${ext}`;
    escaped = true;
  }
  return { name, escaped };
}

/** Generation names end so (see generationName), in any case (a lake on a case-insensitive disk). */
const GENERATION_SHAPE = /\.g\d+(?:\.(?:jsonl|json|txt))?$/i;
/** Escaped names end so: a hash of the raw name, then perhaps its extension. */
const ESCAPED_SHAPE = /~[0-9a-f]{8}(?:[0-9a-f]{8})?(?:\.(?:jsonl|json|txt))?$/i;

/** One segment of an origin's path as the lake names it: as lakeSegment, and a name that an
 * escape or a generation could produce is escaped too (`x.g2.jsonl` -> `x.g2~1a2b3c4d.jsonl`), as is
 * `_long` at the top of a lane (where over-long paths go). Such a lake name ends in `~hash` (plus
 * the extension) and never has a generation's shape. */
function originSegment(raw: Buffer, plain: LakeSegment, top: boolean): LakeSegment {
  if (plain.escaped) return plain;
  const n = plain.name;
  if (!GENERATION_SHAPE.test(n) && !ESCAPED_SHAPE.test(n) && !(top && n === '_long')) return plain;
  const ext = /\.(?:jsonl|json|txt)$/.exec(n)?.[0] ?? '';
  return { name: `${n.slice(0, n.length - ext.length)}~${sha(raw, 8)}${ext}`, escaped: true };
}

export interface OriginLakeName {
  /** Lake path of the origin's generation 1, relative to lake/<lane>/. */
  rel: string;
  escaped: boolean;
  /** The name earlier versions gave it, where that differs: a floor written by one may hold the
   * origin there (such a name can be another origin's generation, so it is used only when the
   * floor says the origin is there). */
  legacy: { rel: string; escaped: boolean } | null;
}

/** Lake name of an origin at `segs` (raw path segments) below its agent root. */
export function originLakeRel(prefix: string, segs: Buffer[]): OriginLakeName {
  const plain = segs.map(lakeSegment);
  const names = segs.map((s, i) => originSegment(s, plain[i], i === 0 && prefix === ''));
  const join = (ns: LakeSegment[]) => {
    const b = boundedLakeRel([prefix, ...ns.map((n) => n.name)].filter((s) => s.length > 0).join('/'));
    return { rel: b.rel, escaped: b.escaped || ns.some((n) => n.escaped) };
  };
  const cur = join(names);
  return { ...cur, legacy: names.some((n, i) => n !== plain[i]) ? join(plain) : null };
}

/** A lake path (relative to lake/<lane>/) too long for the filesystem goes under _long/ by hash. */
export function boundedLakeRel(rel: string): { rel: string; escaped: boolean } {
  if (Buffer.byteLength(rel) <= MAX_PATH_BYTES) return { rel, escaped: false };
  const last = rel.split('/').pop() ?? 'file';
  return { rel: `_long/${sha(rel, 24)}-${truncateUtf8(last, 120)}`, escaped: true };
}

/** Generation N (2+) of a lake file: `name.gN.ext`; generation 1 is the name itself. */
export function generationName(rel: string, gen: number): string {
  if (gen <= 1) return rel;
  const slash = rel.lastIndexOf('/');
  const dir = rel.slice(0, slash + 1);
  const base = rel.slice(slash + 1);
  const m = /^(.*?)(\.(?:meta\.)?(?:jsonl|json|txt))$/.exec(base);
  if (m && m[1].length > 0) {
    // agent-x.meta.json -> agent-x.meta.g2.json: keep ".meta" with the stem so globs still match.
    const ext = m[2].startsWith('.meta.') ? m[2].slice(5) : m[2];
    const stem = m[2].startsWith('.meta.') ? `${m[1]}.meta` : m[1];
    return `${dir}${stem}.g${gen}${ext}`;
  }
  return `${dir}${base}.g${gen}`;
}

/** Display form of a raw path (for messages and the manifest's origin_path). */
export function displayPath(raw: Buffer): string {
  return isValidUtf8(raw) ? raw.toString('utf8') : escapeBytes(raw);
}
