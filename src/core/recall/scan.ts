// The scan tier: reading the files themselves. It finds what the turn index does not hold (tool
// output, thinking, tool arguments, lines no dialect could parse) and stands in for the index when
// the index cannot be used (a term under three characters, no SQLite, an index it cannot write).
//
// Files are picked by their raw bytes first (rg when it is installed, else Node), which is cheap:
// a turn whose text holds the term has the term, or its JSON-escaped form, in its lines. Only those
// files are parsed, in full, and each mention is classified by where it sits.
import { childProcess } from '../lazy';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { OverBudgetError, readManifest, readStoreManifest } from '../floor/manifest';
import { agentByLane } from '../agents';
import type { FileFacts, RawLine, Span, Turn } from '../turns';
import { isSaid, turnKey } from '../turns';
import { lineText } from '../agents/kit/jsonl';
import { laneRel, readTurns } from '../index/read';
import { baseOfGen, formOf, type MachineFloor, type Root } from '../index/roots';
import { fold } from '../index/turnindex';
import { snippetText } from './snippet';
import { walkTree } from '../walk';
import { UnsafePathError } from '../safepath';
import { checkDeadline, DeadlineError, NotRegularError, openRegular } from '../safeopen';
import { lakeFile } from '../index/lakepath';
import { checkedLake, noteRefused } from './floorpath';
import { infoFromFile, sectionInfo } from './session';
import type { RefusedFile, SessionInfo, SnippetField } from './types';
import { setting } from '../settings';

export interface FloorFile {
  mf: MachineFloor;
  lake_path: string;
  lane: string;
  session: string;
  gen: number;
  base: string;
  /** Bytes the manifest claims (null: read to the end). */
  to: number | null;
  unterminated: boolean;
  first_seen: string | null;
  last_seen: string | null;
  /** The newest generation of the same base (this file's own gen when unknown). */
  newest?: number;
  /** Whether the file holds turns, when the turn index knows (unknown: read it to tell). */
  has_turns?: boolean;
  /** The file's absolute path, once the search that listed it has checked it on disk (its reads
   * then check it no more; they open it without following a symlink). */
  abs?: string;
}

/** Every file of a root, every generation of each (`newestOnly`: the newest generation alone),
 * from the manifests; a machine folder without a manifest is walked instead. A file whose
 * lake_path the guard refuses (it leaves the machine's folder, or a symlink is on its way) is left
 * out and added to `refused`. */
export function floorFiles(root: Root, refused: RefusedFile[] = [], o: { newestOnly?: boolean } = {}): FloorFile[] {
  const out: FloorFile[] = [];
  const seen = new Set<string>();
  for (const mf of root.machines) {
    const mfile = path.join(mf.dir, 'manifest', 'manifest.jsonl');
    const byPath = new Map<string, FloorFile>();
    if (fs.existsSync(mfile)) {
      let lines: ReturnType<typeof readManifest>['lines'];
      try {
        // At the store each machine's manifest is read under its own budget (bytes, lines, files,
        // time): one machine's folder cannot cost every other machine its answer.
        lines = (root.kind === 'store' ? readStoreManifest(mf.machine, mfile) : readManifest(mfile, 0)).lines;
      } catch (e) {
        // One machine's folder is that machine's problem: its manifest (a FIFO, a folder, over
        // its budget or the deadline) is named as refused and every other machine still answers.
        if (!(e instanceof NotRegularError) && !(e instanceof DeadlineError) && !(e instanceof OverBudgetError)) throw e;
        noteRefused(refused, { machine: mf.machine, lake_path: 'manifest/manifest.jsonl', problem: e.message });
        continue;
      }
      for (const m of lines) {
        const f = byPath.get(m.lake_path);
        if (!f) {
          byPath.set(m.lake_path, {
            mf,
            lake_path: m.lake_path,
            lane: m.lane ?? laneRel(m.lake_path).lane,
            session: m.session,
            gen: m.gen ?? 1,
            base: formOf(m.lake_path, m.gen ?? 1),
            to: m.byte_to,
            unterminated: !!m.unterminated,
            first_seen: m.captured_at,
            last_seen: m.captured_at,
          });
        } else {
          if (m.byte_to >= (f.to ?? 0)) {
            f.to = m.byte_to;
            f.unterminated = !!m.unterminated;
          }
          if (m.captured_at > (f.last_seen ?? '')) f.last_seen = m.captured_at;
        }
      }
    } else {
      walkLake(mf, byPath);
    }
    const newest = new Map<string, number>();
    for (const f of byPath.values()) newest.set(f.base, Math.max(newest.get(f.base) ?? 0, f.gen));
    for (const f of byPath.values()) {
      f.newest = newest.get(f.base) ?? f.gen;
      if (o.newestOnly && f.newest !== f.gen) continue;
      const { abs, problem } = checkedLake(mf.dir, f.lake_path, seen);
      if (problem !== null) noteRefused(refused, { machine: mf.machine, lake_path: f.lake_path, session: f.session, problem });
      else {
        f.abs = abs;
        out.push(f);
      }
    }
  }
  return out;
}

function walkLake(mf: MachineFloor, into: Map<string, FloorFile>): void {
  walkTree(
    path.join(mf.dir, 'lake'),
    (e) => {
      const name = path.basename(e.abs);
      if (e.dir || name.startsWith('.tmp-')) return;
      const lakePath = `lake/${e.rel}`;
      const { lane, rel: lr } = laneRel(lakePath);
      const g = /\.g(\d+)(?=\.[^./]*$|$)/.exec(name);
      const gen = g ? Number(g[1]) : 1;
      const base = formOf(lakePath, gen);
      const session = agentByLane(lane)?.sessionOf(laneRel(base).rel) ?? lr;
      into.set(lakePath, { mf, lake_path: lakePath, lane, session, gen, base, to: null, unterminated: true, first_seen: null, last_seen: null });
    },
  );
}

// ---------------------------------------------------------------- prefilter

/** The forms a term takes in raw JSON lines, lowercased: as is, JSON-escaped, and with non-ASCII
 * as \u escapes (for writers that escape it). Null: the term can span text blocks (a newline), so
 * every file must be parsed. */
export function rawPatterns(term: string): string[] | null {
  if (/[\n\r]/.test(term)) return null;
  const forms = new Set<string>();
  for (const t of [term, fold(term), term.toUpperCase()]) {
    forms.add(fold(t));
    forms.add(fold(JSON.stringify(t).slice(1, -1)));
    forms.add(fold(JSON.stringify(t).slice(1, -1).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)));
  }
  return [...forms].filter((f) => f.length > 0);
}

let rgState: boolean | undefined;

function haveRg(): boolean {
  if (setting(process.env, 'BRAIN_NO_RG')) return false;
  if (rgState === undefined) {
    const r = childProcess().spawnSync('rg', ['--version'], { stdio: 'ignore' });
    rgState = r.status === 0;
  }
  return rgState;
}

/** The files whose bytes may hold the term. */
export function prefilter(files: FloorFile[], term: string): { files: FloorFile[]; by: 'rg' | 'node' | 'none' } {
  const pats = rawPatterns(term);
  if (!pats) return { files, by: 'none' };
  if (files.length === 0) return { files, by: 'none' };
  if (haveRg()) {
    const hits = rgFiles(files, pats);
    if (hits) return { files: files.filter((f) => hits.has(path.join(f.mf.dir, f.lake_path))), by: 'rg' };
  }
  return { files: files.filter((f) => nodeHas(path.join(f.mf.dir, f.lake_path), pats, f.to)), by: 'node' };
}

function rgFiles(files: FloorFile[], pats: string[]): Set<string> | null {
  const dirs = [...new Set(files.map((f) => path.join(f.mf.dir, 'lake')))].filter((d) => fs.existsSync(d));
  if (dirs.length === 0) return new Set();
  const args = ['--files-with-matches', '--ignore-case', '--fixed-strings', '--no-messages', '--no-config', '-uu'];
  for (const p of pats) args.push('-e', p);
  args.push('--', ...dirs);
  const r = childProcess().spawnSync('rg', args, { encoding: 'utf8', maxBuffer: 512 << 20 });
  // 0: matches, 1: none; 2 with output: some files could not be read, the rest were searched.
  if (r.error || (r.status !== 0 && r.status !== 1 && !r.stdout)) return null;
  return new Set(r.stdout.split('\n').filter(Boolean).map((p) => path.resolve(p)));
}

/** Whether bytes `from`..`to` of a file (lowercased) hold one of the patterns. */
export function nodeHas(file: string, pats: string[], to: number | null, from = 0): boolean {
  let fd: number;
  try {
    fd = openRegular(file);
  } catch {
    return false;
  }
  try {
    const keep = Math.max(...pats.map((p) => p.length)) - 1;
    const dec = new StringDecoder('utf8');
    const buf = Buffer.allocUnsafe(Math.min(4 << 20, Math.max(1, (to ?? Infinity) - from)));
    let pos = from;
    let carry = '';
    const end = to ?? Infinity;
    for (;;) {
      checkDeadline();
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n <= 0) return false;
      pos += n;
      const s = carry + fold(dec.write(buf.subarray(0, n)));
      for (const p of pats) if (s.includes(p)) return true;
      carry = keep > 0 ? s.slice(-keep) : '';
      if (pos >= end) return false;
    }
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------- classify

/** One mention outside the conversation text: where it sits and the snippet around it. */
export interface Mention {
  turn: { n: number; role: Turn['role'] } | null;
  /** turnKey of its entry (of the line's text for an unparsed line): the same in every generation. */
  key: number;
  field: SnippetField;
  snippet: string;
  span: Span;
}

/** What a file holds for one term. Only counts and the first few mentions are kept, never the
 * file's turns: a common term over a large floor matches every file, and the search must hold its
 * answer for all of them at once. */
export interface FileScan {
  file: FloorFile;
  /** The session as this file tells it (title, project, dates, turn count); null when not asked
   * for (the index knows its sessions: reading their meta records again costs a file each). */
  info: SessionInfo | null;
  /** Entries of the conversation (isSaid) whose text holds the term, and the first `keep` of them. */
  textCount: number;
  text: { n: number; role: Turn['role']; snippet: string; span: Span; key: number }[];
  /** turnKey of every entry counted in textCount / toolCount (a turn another generation holds too
   * counts once: recall/generations.ts). */
  textKeys: number[];
  toolKeys: number[];
  /** Mentions in thinking, tool arguments, tool output, injected instructions, or unparsed lines
   * (one per turn or line), and the first `keep` of them. */
  toolCount: number;
  tool: Mention[];
}

/** Parses a file in full and sorts every mention of `term` by where it sits. */
/** Each turn's mention of `q` (the folded term) into `out`: said text first, else its tool parts;
 * counted all, kept `keep` of each. A whole-file scan and a read of matched chunks share it. */
export function addMentions(out: FileScan, turns: Iterable<Turn>, q: string, term: string, keep: number): void {
  for (const t of turns) {
    if (isSaid(t) && fold(t.text).includes(q)) {
      const key = turnKey(t);
      out.textKeys.push(key);
      if (++out.textCount <= keep) out.text.push({ n: t.n, role: t.role, snippet: snippetText(t.text, term), span: t.span, key });
      continue;
    }
    const m = toolMention(t, q);
    if (!m) continue;
    const key = turnKey(t);
    out.toolKeys.push(key);
    if (++out.toolCount <= keep) out.tool.push({ turn: { n: t.n, role: t.role }, key, field: m.field, snippet: snippetText(m.text, term), span: t.span });
  }
}

/** A file's turns per session: one group, the file's, unless its agent gathers several sessions
 * in a file (Turn.section), then a group per section, its file named as that session
 * (FloorFile.session the section's id) and `section` its key. */
export function bySection<T extends Pick<Turn, 'section'>>(file: FloorFile, turns: T[]): { file: FloorFile; turns: T[]; section?: number }[] {
  const name = agentByLane(file.lane)?.sectionId;
  if (!name) return [{ file, turns }];
  const groups = new Map<number, T[]>();
  for (const t of turns) {
    const k = t.section ?? 0;
    const g = groups.get(k);
    if (g) g.push(t);
    else groups.set(k, [t]);
  }
  if (groups.size === 0) return [{ file, turns, section: 0 }];
  return [...groups].map(([k, ts]) => ({ file: k ? { ...file, session: name(file.session, k) } : file, turns: ts, section: k }));
}

/** The scan of each session a file holds (bySection): one, or one per section. */
export function scanFile(file: FloorFile, term: string, keep?: number): (FileScan & { info: SessionInfo })[] | null;
export function scanFile(file: FloorFile, term: string, keep: number, withInfo: boolean): FileScan[] | null;
export function scanFile(file: FloorFile, term: string, keep = 3, withInfo = true): FileScan[] | null {
  const q = fold(term);
  const { rel } = laneRel(file.lake_path);
  const bad: Mention[] = [];
  const badKeys: number[] = [];
  let badCount = 0;
  let r;
  try {
    r = readTurns(file.abs ?? lakeFile(file.mf.dir, file.lake_path), file.lane, rel, {
      full: true,
      to: file.to,
      tail: file.unterminated,
      onBad: (l: RawLine) => {
        const t = lineText(l);
        if (!fold(t).includes(q)) return;
        const key = turnKey({ role: 'tool', kind: 'output', ts: null, text: t });
        badKeys.push(key);
        if (++badCount <= keep) bad.push({ turn: null, key, field: 'unparsed_line', snippet: snippetText(t, term), span: { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to } });
      },
    });
  } catch (e) {
    // Gone since it was listed, or turned into a symlink since its path was checked (the listing
    // reported a file refused then): nothing to read either way.
    if (e instanceof UnsafePathError || e instanceof NotRegularError || ['ENOENT', 'ELOOP'].includes(String((e as NodeJS.ErrnoException).code))) return null;
    throw e;
  }
  if (!r) return null;
  const facts = r.facts;
  const scans = bySection(file, r.turns).map((g): FileScan => {
    const info = withInfo ? infoFromFile(g.file, facts, g.turns) : null;
    const out: FileScan = { file: g.file, info: info && g.section ? sectionInfo(info, g.turns) : info, textCount: 0, text: [], toolCount: 0, tool: [], textKeys: [], toolKeys: [] };
    addMentions(out, g.turns, q, term, keep);
    return out;
  });
  // Unparsed lines come after the turns' mentions (the file's first session's).
  const out = scans[0];
  out.toolCount += badCount;
  out.toolKeys.push(...badKeys);
  out.tool.push(...bad.slice(0, Math.max(0, keep - out.tool.length)));
  return scans;
}

/** Where in a turn (outside its text) the term sits, and the text around it; the first place wins. */
export function toolMention(t: Turn, q: string): { field: SnippetField; text: string } | null {
  if (t.thinking && fold(t.thinking).includes(q)) return { field: 'thinking', text: t.thinking };
  for (const u of t.tools) {
    if (u.arguments && fold(u.arguments).includes(q)) return { field: 'tool_arguments', text: `${u.name}: ${u.arguments}` };
    if (fold(u.name).includes(q)) return { field: 'tool_arguments', text: `${u.name}: ${u.arguments}` };
    if (u.output && fold(u.output).includes(q)) return { field: 'tool_output', text: u.output };
  }
  if (t.role === 'tool' && fold(t.text).includes(q)) return { field: 'tool_output', text: t.text };
  if (t.role === 'system' && !isSaid(t) && fold(t.text).includes(q)) return { field: 'instructions', text: t.text };
  return null;
}
