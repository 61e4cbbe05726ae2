// The recall mask: every answer that search, show, SQL, the MCP tools and the editor's tools give is
// passed through here before it leaves the process, so a credential on the floor is not sent on to
// a model provider (or a scrollback) in clear. Two sources, because either alone misses some:
//   - the guard's findings (secrets.json): their cited lines are read again and the detector gives
//     back the values, so a password found beside its name on the floor is masked in a snippet that
//     cut the name off;
//   - the detector run over the answer itself, so a secret not scanned yet is masked too.
// Each secret becomes the guard's own preview (mask()); the floor is untouched (a citation's
// sha256 is over the floor's bytes: the masked text is only a view of them), and a citation's path
// is masked only where it holds a secret itself (a credential in a folder name).
import * as fs from 'node:fs';
import { within } from '../safepath';
import { openRegular } from '../safeopen';
import { readCache, type SecretFinding } from './cache';
import { secretValues } from './detect';
import { mask } from './mask';

/** A PEM private key block, whole or cut at the answer's end (its body is masked, headers kept). */
const PEM_RE = /(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)((?:[A-Za-z0-9+/=\s]|\\[nr])+?)(-----END [A-Z0-9 ]*PRIVATE KEY-----|(?![A-Za-z0-9+/=\s]|\\[nr]))/g;
/** Characters that end a token (a secret holds none of them). */
const STOP = new Set([...' \t\r\n"\'`…<>()[]{},;']);

/** [from, to) of each run of 8 or more token characters at the text's start or end or beside a
 * "…" that marks a cut, in order, without overlaps. Linear in the text's length. */
function cutPieces(t: string): [number, number][] {
  const out: [number, number][] = [];
  const add = (a: number, b: number) => {
    if (b - a < 8) return;
    const last = out[out.length - 1];
    if (last && a < last[1]) return;
    out.push([a, b]);
  };
  const back = (end: number) => {
    let a = end;
    while (a > 0 && !STOP.has(t[a - 1])) a--;
    return a;
  };
  const fwd = (from: number) => {
    let b = from;
    while (b < t.length && !STOP.has(t[b])) b++;
    return b;
  };
  add(0, fwd(0));
  for (let i = t.indexOf('…'); i >= 0; i = t.indexOf('…', i + 1)) {
    add(back(i), i);
    add(i + 1, fwd(i + 1));
  }
  add(back(t.length), t.length);
  return out;
}
/** How the credentials that announce themselves start: a piece of one cut short at a title's or
 * snippet's end is masked even before the guard has seen the whole line. */
const CUT_PREFIX = /^(?:gh[pousr]_|github_pat_|glpat-|sk-(?:proj-|ant-|svcacct-|admin-)?|xox[abpors]-|A[KS]IA|AIza|hf_|npm_|pypi-|[sr]k_live_)[A-Za-z0-9_-]{8,}/;
/** Shorter values are not looked for on their own (a PEM body's lines are, one by one). */
const PIECE = 16;

/** Per BRAIN_HOME, the values behind the findings already read (by finding id): kept in memory
 * for a long-running server so each cited line is read once, never written anywhere. */
const known = new Map<string, { salt: string; byId: Map<string, string[]> }>();

async function knownValues(home: string): Promise<{ salt: string; values: string[] }> {
  const { cache, existed } = readCache(home);
  if (!existed || cache.findings.length === 0) return { salt: cache.salt, values: [] };
  let k = known.get(home);
  if (!k || k.salt !== cache.salt) known.set(home, (k = { salt: cache.salt, byId: new Map() }));
  const todo = cache.findings.filter((f) => !k.byId.has(f.id));
  // One detector pass per lake file over the cited lines it holds (each line once).
  const byFile = new Map<string, SecretFinding[]>();
  for (const f of todo) {
    const a = byFile.get(f.citation.lake_path);
    if (a) a.push(f);
    else byFile.set(f.citation.lake_path, [f]);
  }
  for (const [lake, fs0] of byFile) {
    const ranges = [...new Map(fs0.map((f) => [`${f.citation.byte_from}:${f.citation.byte_to}`, f.citation])).values()];
    let buf: Buffer;
    try {
      const fd = openRegular(within(home, lake, { what: 'lake_path', disk: true, file: true }));
      try {
        buf = Buffer.concat(
          ranges.map((c) => {
            const b = Buffer.alloc(c.byte_to - c.byte_from);
            fs.readSync(fd, b, 0, b.length, c.byte_from);
            return b[b.length - 1] === 10 ? b : Buffer.concat([b, Buffer.from('\n')]);
          }),
        );
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // a damaged floor is `brain verify`'s to report; the answer's own pass still runs
    }
    const found = await secretValues(buf, cache.salt);
    for (const f of fs0) k.byId.set(f.id, found.filter((v) => v.secret_id === f.secret_id).map((v) => v.value));
  }
  const values = new Set<string>();
  for (const f of cache.findings) for (const v of k.byId.get(f.id) ?? []) values.add(v);
  return { salt: cache.salt, values: [...values] };
}

/** The recall tools whose answers carry recorded text (cite and verify_citation give citations). */
export const TEXT_TOOLS: ReadonlySet<string> = new Set(['search', 'read_session', 'sql']);

export interface Masked<T> {
  value: T;
  /** How many places were masked. */
  masked: number;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every way a value shows in an answer: as is, JSON-escaped, and a PEM body by its lines. */
function forms(values: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values) {
    const m = mask(v);
    out.set(v, m);
    const esc = JSON.stringify(v).slice(1, -1);
    if (esc !== v) out.set(esc, m);
    if (v.length > 200 && /^[A-Za-z0-9+/=]+$/.test(v)) {
      // A PEM body is kept without its line breaks; an answer holds it 64 characters a line.
      for (let i = 0; i < v.length; i += 64) {
        const p = v.slice(i, i + 64);
        if (p.length >= PIECE) out.set(p, mask(p));
      }
    }
  }
  return out;
}

function strings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (plain(v)) for (const [k, x] of Object.entries(v)) if (k !== 'sha256') strings(x, out);
}

function plain(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}

/**
 * Masks every secret the guard knows or finds in `value` (a string, or a JSON-shaped answer whose
 * strings are masked, a citation's path too; hashes are left as they are). The answer's strings
 * are read once by the prefilter, so the cost grows with the answer's size, and only lines holding
 * a credential's marks go to the rules.
 */
export async function maskSecrets<T>(home: string, value: T): Promise<Masked<T>> {
  const all: string[] = [];
  strings(value, all);
  if (all.length === 0) return { value, masked: 0 };
  const k = await knownValues(home);
  const found = await secretValues(Buffer.from(all.join('\n'), 'utf8'), k.salt);
  const values = [...new Set([...k.values, ...found.map((f) => f.value)])];
  const map = forms(values);
  const keys = [...map.keys()].filter((x) => x.length > 0).sort((a, b) => b.length - a.length);
  const re = keys.length ? new RegExp(keys.map(escapeRe).join('|'), 'g') : null;
  let masked = 0;
  const one = (s: string): string => {
    let t = s;
    if (re && t.length >= PIECE) {
      t = t.replace(re, (m) => {
        masked++;
        return map.get(m) ?? mask(m);
      });
    }
    if (t.length >= 8) {
      // A title or snippet cut inside a secret keeps only part of it, which the patterns above do
      // not match: a piece at a cut (or the text's edge) that is part of a known secret goes too.
      const cut = cutPieces(t).filter(([a, b]) => {
        const p = t.slice(a, b);
        return CUT_PREFIX.test(p) || values.some((v) => v.includes(p));
      });
      for (let i = cut.length - 1; i >= 0; i--) {
        const [a, b] = cut[i];
        t = t.slice(0, a) + mask(t.slice(a, b)) + t.slice(b);
        masked++;
      }
    }
    if (t.includes('PRIVATE KEY-----')) {
      t = t.replace(PEM_RE, (_m, head: string, body: string, end: string) => {
        const b = body.replace(/\\[nr]|\s/g, '');
        if (b.length < PIECE) return _m;
        masked++;
        return `${head} ${mask(b)} ${end}`;
      });
    }
    return t;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return one(v);
    if (Array.isArray(v)) return v.map(walk);
    // A citation's path is masked too when it holds a secret (a credential in a folder name): such
    // a citation is checked with --reveal. Its sha256 is the floor's and holds none.
    if (plain(v)) return Object.fromEntries(Object.entries(v).map(([key, x]) => [key, key === 'sha256' ? x : walk(x)]));
    return v;
  };
  return { value: walk(value) as T, masked };
}

/** A tool's answer with its secrets masked and how many were ("masked": N beside its fields). */
export async function maskAnswer<T>(home: string, out: T): Promise<T & { masked: number }> {
  const m = await maskSecrets(home, out);
  return (plain(m.value) ? { ...m.value, masked: m.masked } : m.value) as T & { masked: number };
}

/** The line a terminal answer ends with when something was masked. */
export function maskedNote(n: number, reveal: string): string {
  return `(${n} secret${n === 1 ? '' : 's'} masked, as \`brain secrets\` shows them; ${reveal} prints them in clear in your own terminal)`;
}

/** The values behind the guard's findings (read again from their cited lines; never written). */
export async function knownSecretValues(home: string): Promise<string[]> {
  return (await knownValues(home)).values;
}

/** Every form in which `values` show in a raw line (as is, JSON-escaped, a PEM body's lines). */
export function secretForms(values: string[]): string[] {
  return [...forms(values).keys()].filter((x) => x.length > 0);
}

/** A function that replaces each of `values` (in each of its forms) with its preview. */
export function maskerOf(values: string[]): (s: string) => string {
  const map = forms(values);
  const keys = [...map.keys()].filter((x) => x.length > 0).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return (s) => s;
  const re = new RegExp(keys.map(escapeRe).join('|'), 'g');
  return (s) => s.replace(re, (m) => map.get(m) ?? mask(m));
}
