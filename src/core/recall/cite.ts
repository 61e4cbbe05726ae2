// Citations: a checkable pointer to lines A..B of a floor file, and checking one again. A citation
// names the machine and the path relative to that machine's floor, so the same citation resolves
// in BRAIN_HOME on the machine that wrote it and at <store>/<machine>/ anywhere, also after the
// origin (or the whole machine) is gone.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from '../errors';
import { hashRange, lineRangeToBytes } from '../floor/ranges';
import type { Env } from '../home';
import type { Citation, Span } from '../turns';
import { resolveRoot, type Root } from '../index/roots';
import type { CiteInput, CiteOutput, VerifyInput, VerifyOutput } from './types';
import { CITE_INPUT_SCHEMA, VERIFY_INPUT_SCHEMA } from './types';
import { validateInput } from './validate';
import { lakeFile } from '../index/lakepath';
import { UnsafePathError, unsafeReason } from '../safepath';
import { openRegular } from '../safeopen';

/** Generation of a lake path from its name (x.g2.jsonl -> 2). */
export function genOf(lakePath: string): number {
  const m = /\.g(\d+)(?=\.[^./]*$|$)/.exec(lakePath.split('/').pop() ?? '');
  return m ? Number(m[1]) : 1;
}

/** A span of a file made into a citation (hashing exactly the span's bytes). */
/** `seen`: folders already found real in this call (a search citing many turns of a few files). */
export function citeSpan(dir: string, machine: string, lakePath: string, span: Span, gen = genOf(lakePath), seen?: Set<string>): Citation {
  return citation(machine, lakePath, span, gen, hashRange(lakeFile(dir, lakePath, seen), span.byte_from, span.byte_to));
}

/** A span's citation, hashed from `abs`: the file's path as its caller checked it on disk. */
export function citeChecked(abs: string, machine: string, lakePath: string, span: Span, gen: number): Citation {
  return citation(machine, lakePath, span, gen, hashRange(abs, span.byte_from, span.byte_to));
}

/** A span's citation from its bytes, already read (exactly byte_from..byte_to). */
export function citeBytes(machine: string, lakePath: string, span: Span, gen: number, bytes: Buffer): Citation {
  return citation(machine, lakePath, span, gen, createHash('sha256').update(bytes).digest('hex'));
}

function citation(machine: string, lakePath: string, span: Span, gen: number, sha256: string): Citation {
  return { machine, lake_path: lakePath, gen, line_from: span.line_from, line_to: span.line_to, byte_from: span.byte_from, byte_to: span.byte_to, sha256 };
}

/** A lake_path from a tool argument or a citation: a usage error when it could never name a floor
 * file (absolute, `..`, not under lake/); the guard then checks the disk where it is opened. */
function safeLakePath(p: string): string {
  const norm = p.replace(/\\/g, '/');
  const why = unsafeReason('/', norm) ?? (/^lake\//.test(norm) ? null : 'is not under lake/');
  if (why) throw new BrainError('usage', `lake_path ${JSON.stringify(p)} ${why}: it is not a path inside a floor's lake/`, 'citations name files as lake/<agent>/...');
  return path.posix.normalize(norm);
}

function machineFloor(root: Root, machine: string | undefined): { dir: string; machine: string } {
  if (!machine) {
    if (root.machines.length === 1) return root.machines[0];
    throw new BrainError('usage', `the store ${root.path} holds ${root.machines.length} machines: name one`, `machines: ${root.machines.map((m) => m.machine).join(', ') || '(none)'}`);
  }
  const m = root.machines.find((x) => x.machine === machine);
  if (m) return m;
  if (root.kind === 'home') {
    throw new BrainError('not-found', `machine "${machine}" is not this machine (${root.machines[0].machine})`, 'to read another machine\'s floor, pass its store folder (--store)');
  }
  throw new BrainError('not-found', `machine "${machine}" has no folder in the store ${root.path}`, `machines: ${root.machines.map((x) => x.machine).join(', ') || '(none)'}`);
}

/** brain_cite: a citation for lines A..B of a floor file. */
export function cite(input: CiteInput, env: Env = process.env): CiteOutput {
  validateInput<CiteInput>(input, CITE_INPUT_SCHEMA);
  if (input.line_to < input.line_from) throw new BrainError('usage', `line_to (${input.line_to}) is before line_from (${input.line_from})`);
  const root = resolveRoot({ store: input.store }, env);
  const mf = machineFloor(root, input.machine);
  const lakePath = safeLakePath(input.lake_path);
  const file = lakeFile(mf.dir, lakePath);
  if (!fs.existsSync(file)) throw new BrainError('not-found', `no floor file ${file}`, 'take lake_path from a search or read result');
  const r = lineRangeToBytes(file, input.line_from, input.line_to);
  if (!r) throw new BrainError('not-found', `${file} has no line ${input.line_from}`);
  const span: Span = { line_from: input.line_from, line_to: input.line_to, byte_from: r.byte_from, byte_to: r.byte_to };
  // A range past the end is cut to the last line; the citation says which lines it holds and the
  // answer says it was cut, so a caller does not take the shorter range for the one it asked.
  let clamped: CiteOutput['clamped'];
  if (r.byte_to === fs.statSync(file).size) {
    const nl = countLines(file, r.byte_from, r.byte_to);
    span.line_to = Math.min(input.line_to, input.line_from + nl - 1);
    if (span.line_to < input.line_to) {
      clamped = { asked_line_to: input.line_to, message: `the file ends at line ${span.line_to}: lines ${input.line_from}-${input.line_to} asked, ${input.line_from}-${span.line_to} cited` };
    }
  }
  return { ...citeSpan(mf.dir, mf.machine, lakePath, span), ...(clamped ? { clamped } : {}) };
}

/** The absolute path of a cited file (in BRAIN_HOME, or at <store>/<machine>/). */
export function citedFile(c: Citation, store: string | undefined, env: Env = process.env): string {
  const root = resolveRoot({ store }, env);
  return lakeFile(machineFloor(root, c.machine).dir, safeLakePath(c.lake_path));
}

/** A path as one shell word. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The shell line that re-hashes a citation's lines: `sed -n 'A,Bp' FILE | sha256sum`. */
export function checkLine(c: Citation, file: string): string {
  return `sed -n '${c.line_from},${c.line_to}p' ${shellQuote(file)} | sha256sum`;
}

function countLines(file: string, from: number, to: number): number {
  const fd = openRegular(file);
  try {
    const buf = Buffer.allocUnsafe(Math.max(1, to - from));
    const n = fs.readSync(fd, buf, 0, to - from, from);
    let c = 0;
    for (let i = 0; i < n; i++) if (buf[i] === 10) c++;
    if (n > 0 && buf[n - 1] !== 10) c++;
    return c;
  } finally {
    fs.closeSync(fd);
  }
}

/** verify_citation: re-hash a citation's bytes where the floor (or the store) keeps them. */
export function verify(input: VerifyInput, env: Env = process.env): VerifyOutput {
  validateInput<VerifyInput>(input, VERIFY_INPUT_SCHEMA);
  const c = input.citation;
  const root = resolveRoot({ store: input.store }, env);
  const mf = machineFloor(root, c.machine);
  const lakePath = safeLakePath(c.lake_path);
  let file = path.join(mf.dir, lakePath);
  const out = (ok: boolean, sha256: string | null, problem: string | null): VerifyOutput => ({ ok, path: file, sha256, problem, citation: c });
  try {
    file = lakeFile(mf.dir, lakePath);
  } catch (e) {
    if (e instanceof UnsafePathError) return out(false, null, e.message);
    throw e;
  }
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return out(false, null, `${file} does not exist`);
  }
  if (c.byte_to > size || c.byte_from > c.byte_to) return out(false, null, `${file} has ${size} bytes; the citation needs bytes ${c.byte_from}-${c.byte_to}`);
  const sha = hashRange(file, c.byte_from, c.byte_to);
  if (sha !== c.sha256) return out(false, sha, `bytes ${c.byte_from}-${c.byte_to} hash to ${sha}, not ${c.sha256}`);
  // The bytes match; the lines must be the ones that `sed -n 'A,Bp'` prints for them.
  const r = lineRangeToBytes(file, c.line_from, c.line_to);
  if (!r || r.byte_from !== c.byte_from || r.byte_to !== c.byte_to) {
    return out(false, sha, `lines ${c.line_from}-${c.line_to} are bytes ${r ? `${r.byte_from}-${r.byte_to}` : '(missing)'}, not ${c.byte_from}-${c.byte_to}`);
  }
  return out(true, sha, null);
}
