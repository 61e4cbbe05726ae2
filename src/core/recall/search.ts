// brain_search: sessions that mention a literal text, in two tiers.
//
// Tier 1, turns: sessions whose conversation says it (user and assistant turns, and the summaries,
// notices and session names show lists among them), ranked by how many turns do (a session that
// discussed a thing beats one that mentioned it once). The turn index answers it.
// Tier 2, tools: sessions where only tool output, thinking, tool arguments, instructions the harness
// injected (system prompt, AGENTS.md, environment context) or an unparsed line hold it. The turn
// index's raw trigrams pick the files that may hold it, which are then read to verify, whether or
// not tier 1 leaves room in the listing: the total is the same whatever the limit.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentByLane, registry } from '../agents';
import type { Env } from '../home';
import { indexable, fold, openIndex, snapshotIndex, type FileRow, type LiveFile, type SessionKeys, type TurnIndex, type TurnRow } from '../index/turnindex';
import { resolveRoot, type Root } from '../index/roots';
import { laneRel, turnText } from '../index/read';
import { roleOfIndex } from '../index/parse-job';
import { citeBytes, citeChecked, citeSpan } from './cite';
import { floorFiles, nodeHas, prefilter, rawPatterns, scanFile, type FileScan, type FloorFile, type Mention } from './scan';
import { snippetText } from './snippet';
import { dropKeptLive, fileRow, keptLive, liveFilesAmong, lookups, markBefore, newestGen, readMapped, rewrittenSessions, turnGens, type Lookups, type TurnGen } from './indexmemo';
import { scanParts } from './partial';
import { onePerTurn } from './generations';
import { infoFromRow } from './session';
import { INDEX_OFF, type RecallOptions, type RefusedFile, type SearchHit, type SearchInput, type SearchOutput, type SessionInfo, type Snippet } from './types';
import { lakeFile } from '../index/lakepath';
import { checkedLake, noteRefused, refusalOf } from './floorpath';
import { openRegular } from '../safeopen';
import { SEARCH_INPUT_SCHEMA } from './types';
import { validateInput } from './validate';
import { parseSince } from '../since';
import { sourceText } from './words';

export { snippetText, parseSince };

export const DEFAULT_LIMIT = 20;
const SNIPPETS = 3;

// ---------------------------------------------------------------- filters

interface Filter {
  lanes: Set<string> | null;
  machines: Set<string> | null;
  project: RegExp | null;
  sinceMs: number | null;
  skip: string | null;
}

export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (const c of glob) {
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'is');
}

function lanesOf(spec: string): Set<string> {
  return new Set(registry().parse(spec).map((a) => a.lane));
}

function makeFilter(i: SearchInput): Filter {
  const list = (s?: string) => (s ? new Set(s.split(',').map((x) => x.trim()).filter(Boolean)) : null);
  return {
    lanes: i.agent ? lanesOf(i.agent) : null,
    machines: list(i.machine),
    project: i.project ? globToRegExp(i.project) : null,
    sinceMs: i.since ? parseSince(i.since) : null,
    skip: i.skip?.trim() || null,
  };
}

/** Filters that need no parsing (agent, machine, the skipped session). */
function keyPasses(f: Filter, lane: string, machine: string, session: string, native?: string | null): boolean {
  if (f.lanes && !f.lanes.has(lane)) return false;
  if (f.machines && !f.machines.has(machine)) return false;
  if (f.skip && (session === f.skip || native === f.skip)) return false;
  return true;
}

function passes(f: Filter, s: SessionInfo): boolean {
  if (!keyPasses(f, s.lane, s.machine, s.session, s.native_session)) return false;
  if (f.project) {
    const cands = [s.project, s.project ? path.basename(s.project) : null, s.repo].filter((x): x is string => !!x);
    if (!cands.some((c) => f.project!.test(c))) return false;
  }
  if (f.sinceMs !== null) {
    const t = Date.parse(s.ended ?? s.started ?? '');
    if (Number.isNaN(t) || t < f.sinceMs) return false;
  }
  return true;
}

// ---------------------------------------------------------------- ranking and snippets

interface Ranked {
  /** The session's row in the turn index (index results only). */
  id?: number;
  info: SessionInfo;
  count: number;
  snip: () => Snippet[];
}

function rank(list: Ranked[], newest: boolean): Ranked[] {
  // Start times parsed once, not in every comparison.
  const t = new Map(list.map((r) => [r, Date.parse(r.info.started ?? '') || 0]));
  const byDate = (a: Ranked, b: Ranked) => t.get(b)! - t.get(a)!;
  return list.sort((a, b) => (newest ? byDate(a, b) || b.count - a.count : b.count - a.count || byDate(a, b)) || a.info.session.localeCompare(b.info.session));
}

/** A span's bytes, read once for both its text and its citation's hash. Throws when the file ends
 * before the span does (it changed under the index): no snippet, as hashing it would. */
function spanBytes(file: string, span: { byte_from: number; byte_to: number }): Buffer {
  const fd = openRegular(file);
  try {
    const b = Buffer.allocUnsafe(span.byte_to - span.byte_from);
    for (let got = 0; got < b.length; ) {
      const n = fs.readSync(fd, b, got, b.length - got, span.byte_from + got);
      if (n === 0) throw new Error(`${file} ends at byte ${span.byte_from + got}, before ${span.byte_to}`);
      got += n;
    }
    return b;
  } finally {
    fs.closeSync(fd);
  }
}

function mentionSnippet(f: FloorFile, m: Mention, rewritten_away: boolean): Snippet {
  return {
    turn: m.turn?.n ?? 0,
    role: m.turn?.role ?? null,
    field: m.field,
    text: m.snippet,
    gen: f.gen,
    rewritten_away,
    citation: f.abs ? citeChecked(f.abs, f.mf.machine, f.lake_path, m.span, f.gen) : citeSpan(f.mf.dir, f.mf.machine, f.lake_path, m.span, f.gen),
  };
}

/** A session's scans (one per file and generation) with each entry once, however many
 * generations hold it: how many entries mention the term, and the mentions to show, what the
 * newest generation says first, then what only older ones hold (rewritten away). */
function fromScans<E extends { key: number }>(scans: FileScan[], which: 'text' | 'tool', entries: (s: FileScan) => E[]): { count: number; picks: { f: FloorFile; e: E; rewritten_away: boolean }[] } {
  const keysOf = (s: FileScan) => (which === 'text' ? s.textKeys : s.toolKeys);
  const count = onePerTurn(scans.flatMap((s) => keysOf(s).map((key) => ({ key, gen: s.file.gen, base: `${s.file.mf.machine}\0${s.file.base}` })))).length;
  const sets = new Map(scans.map((s) => [s, new Set(keysOf(s))]));
  const picks: { f: FloorFile; e: E; rewritten_away: boolean }[] = [];
  for (const s of [...scans].sort((a, b) => b.file.gen - a.file.gen)) {
    const newer = scans.filter((o) => o.file.gen > s.file.gen && o.file.base === s.file.base && o.file.mf.machine === s.file.mf.machine);
    for (const e of entries(s)) {
      if (newer.some((o) => sets.get(o)!.has(e.key))) continue;
      picks.push({ f: s.file, e, rewritten_away: (s.file.newest ?? s.file.gen) > s.file.gen });
    }
  }
  picks.sort((a, b) => Number(a.rewritten_away) - Number(b.rewritten_away));
  return { count, picks };
}

// ---------------------------------------------------------------- search

export function search(input: SearchInput, env: Env = process.env, opts: RecallOptions = {}): SearchOutput {
  validateInput<SearchInput>(input, SEARCH_INPUT_SCHEMA);
  const term = input.term;
  const limit = input.limit ?? DEFAULT_LIMIT;
  const filter = makeFilter(input);
  const root = resolveRoot({ store: input.store }, env);
  let fallback: string | null = null;
  let idx: TurnIndex | null = null;
  const refused: RefusedFile[] = [];
  for (const name of root.refused ?? []) {
    refused.push({ machine: name, lake_path: '', problem: 'is a store folder whose name a machine may not have (printable ASCII only, not a name the store root uses); its sessions are left out' });
  }
  // 'snapshot' (brain mcp): the index only as a private copy of a current file, never opened
  // for an update (that writes); otherwise the scan.
  const use = opts.index ?? 'live';
  const snapshot = use === 'snapshot';
  if (use === 'off') fallback = INDEX_OFF;
  else if (!indexable(term)) fallback = 'terms under 3 characters are not in the turn index';
  else if (snapshot) {
    const o = snapshotIndex(root);
    if (o.ok) idx = o.index;
    else fallback = o.reason;
  } else {
    const o = opts.keepOpen ? keptLive(root) : openIndex(root);
    if (!o.ok) fallback = o.reason;
    else {
      try {
        for (const r of o.index.update().refused) noteRefused(refused, r);
        readMapped(o.index);
        idx = o.index;
      } catch (e) {
        dropKeptLive(o.index);
        fallback = `the turn index ${root.index} cannot be written (${(e as Error).message})`;
      }
    }
  }
  try {
    return idx ? viaIndex(idx, root, term, limit, filter, !!input.newest, refused) : viaScan(root, term, limit, filter, !!input.newest, fallback ?? 'no index', refused);
  } finally {
    idx?.close();
  }
}

function out(term: string, source: 'index' | 'scan', fallback: string | null, tools: boolean, tier1: Ranked[], tier2: Ranked[], limit: number, refused: RefusedFile[]): SearchOutput {
  const total = tier1.length + tier2.length;
  const shown = [...tier1.map((r) => ({ r, tier: 'turns' as const })), ...tier2.map((r) => ({ r, tier: 'tools' as const }))].slice(0, limit);
  // Snippets are read now, so files refused while reading them are in the list below.
  const hits: SearchHit[] = shown.map(({ r, tier }) => {
    const snippets = r.snip();
    return { ...r.info, tier, matching_turns: r.count, gen: snippets[0]?.gen ?? 1, rewritten_away: !!snippets[0]?.rewritten_away, snippets };
  });
  const parts = [`${total} session${total === 1 ? '' : 's'} for ${JSON.stringify(term)}`];
  if (total > hits.length) parts.push(`showing ${hits.length}`);
  parts.push(sourceText({ source, fallback }));
  parts.push(tools ? 'tool output searched' : 'tool output not searched: the list is full (raise --limit to search it)');
  if (refused.length) parts.push(`${refused.length} floor file${refused.length === 1 ? '' : 's'} refused (unsafe path, not read)`);
  return { term, source, fallback: source === 'scan' ? fallback : null, tool_output_searched: tools, total, header: parts.join(' · '), hits, refused };
}

/** A session's facts from its keys: enough to filter and rank; the title comes with fullInfo. */
function lightInfo(k: SessionKeys): SessionInfo {
  return infoFromRow({ title: null, title_hint: null, ...k });
}

/** The whole SessionInfo (title included) of the sessions about to be shown. */
function fullInfo(idx: TurnIndex, shown: Ranked[]): void {
  for (const r of shown) {
    const row = r.id === undefined ? undefined : idx.session(r.id);
    if (row) r.info = infoFromRow(row);
  }
}

/** One search over the turn index: what its steps share. */
interface IndexSearch {
  idx: TurnIndex;
  root: Root;
  term: string;
  f: Filter;
  refused: RefusedFile[];
  l: Lookups;
  /** Folders found safe on the way to a lake file, shared by every path check of the search. */
  seen: Set<string>;
  /** A file's path checked on disk once a search, not once a snippet (a session's three are
   * mostly in one file); its reads still refuse a symlink or FIFO put there since (openRegular). */
  checked(dir: string, lakePath: string): string;
}

type Match = ReturnType<TurnIndex['match']>[number];
/** Every session's keys (without titles), read in one go when there are many to look up. */
type KeysById = Map<number, SessionKeys> | null;

function indexSearch(idx: TurnIndex, root: Root, term: string, f: Filter, refused: RefusedFile[]): IndexSearch {
  const seen = new Set<string>();
  const paths = new Map<string, string>();
  const checked = (dir: string, lakePath: string): string => {
    const k = `${dir}\0${lakePath}`;
    let p = paths.get(k);
    if (p === undefined) paths.set(k, (p = lakeFile(dir, lakePath, seen)));
    return p;
  };
  return { idx, root, term, f, refused, l: lookups(idx), seen, checked };
}

function viaIndex(idx: TurnIndex, root: Root, term: string, limit: number, f: Filter, newest: boolean, refused: RefusedFile[]): SearchOutput {
  const s = indexSearch(idx, root, term, f, refused);
  const { tier1, keys } = conversationTier(s);
  rank(tier1, newest);
  if (keys) fullInfo(idx, tier1.slice(0, limit));
  // The tool tier is searched whether or not the list has room for its sessions, so the total a
  // search reports is the same whatever --limit. (Only the sessions listed get their snippets and
  // full details.)
  const tier2 = toolTier(s, new Set(tier1.map((r) => r.id!)), keys);
  rank(tier2, newest);
  fullInfo(idx, tier2.slice(0, Math.max(0, limit - tier1.length)));
  return out(term, 'index', null, true, tier1, tier2, limit, refused);
}

/** Tier 1: the sessions whose turns the index matches and the filters pass. A session whose file
 * was rewritten holds a turn once per generation that kept it: its matches count each turn once,
 * and cite the newest generation that holds it. */
function conversationTier(s: IndexSearch): { tier1: Ranked[]; keys: KeysById } {
  const matches = s.idx.match(s.term);
  const rewritten = matches.length ? rewrittenSessions(s.l, matches.map((m) => m.sess_id)) : new Set<number>();
  // Many sessions: one read of the table (without the titles) beats a lookup each; the titles of
  // the sessions shown are read after ranking.
  const keys: KeysById = matches.length > 200 ? new Map(s.idx.sessionKeys().map((r) => [r.id, r])) : null;
  const listed = listedMatches(s, matches, keys);
  // The matched turns of every rewritten session listed, with their keys, in one read.
  const again = listed.filter((x) => rewritten.has(x.m.sess_id)).map((x) => x.m.all);
  const gens = again.length ? turnGens(s.l, again.join(',')) : null;
  const tier1 = listed.map(({ m, row, info }): Ranked => {
    const { count, ids } = gens && rewritten.has(m.sess_id) ? oncePerTurn(m, gens) : m;
    return { id: row.id, info, count, snip: () => turnSnippets(s, ids) };
  });
  return { tier1, keys };
}

/** The matched sessions the filters pass, with their keys and light facts. */
function listedMatches(s: IndexSearch, matches: Match[], keys: KeysById): { m: Match; row: SessionKeys; info: SessionInfo }[] {
  const listed: { m: Match; row: SessionKeys; info: SessionInfo }[] = [];
  for (const m of matches) {
    const row = keys ? keys.get(m.sess_id) : s.idx.session(m.sess_id);
    if (!row) continue;
    const info = lightInfo(row);
    if (passes(s.f, info)) listed.push({ m, row, info });
  }
  return listed;
}

/** A rewritten session's matched turns, each once: how many, and the ones to show (what the
 * newest generation still says first, then what was rewritten away). */
function oncePerTurn(m: Match, gens: Map<number, TurnGen>): { count: number; ids: number[] } {
  const one = onePerTurn(m.all.split(',').flatMap((id) => gens.get(Number(id)) ?? []));
  const ids = one
    .sort((a, b) => Number(a.gen < a.newest) - Number(b.gen < b.newest) || a.id - b.id)
    .slice(0, SNIPPETS)
    .map((t) => t.id);
  return { count: one.length, ids };
}

/** The snippets of a session's matched turns, each read from the turn's own lines and cited. */
function turnSnippets(s: IndexSearch, ids: number[]): Snippet[] {
  return ids
    .slice(0, SNIPPETS)
    .map((id) => s.idx.turn(id))
    .filter((t) => t !== undefined)
    .flatMap((t) => {
      const file = fileRow(s.l, t.file_id);
      const mf = file && s.root.machines.find((x) => x.machine === file.machine);
      if (!file || !mf) return [];
      try {
        return [turnSnippet(s, t, file, mf)];
      } catch (e) {
        const r = refusalOf(file.machine, file.lake_path, e);
        if (r) noteRefused(s.refused, r);
        return []; // the file went away under the index (a store being changed), or is refused: no snippet
      }
    });
}

function turnSnippet(s: IndexSearch, t: TurnRow, file: FileRow, mf: Root['machines'][number]): Snippet {
  const role = roleOfIndex(t.role);
  const bytes = spanBytes(s.checked(mf.dir, file.lake_path), t);
  // The index keeps no turn text: the snippet comes from the turn's own lines (the raw lines when
  // no dialect turn comes out of them: kept honest, not pretty).
  const text = turnText(bytes, file.lane, laneRel(file.lake_path).rel, t, role) ?? bytes.toString('utf8', 0, Math.min(bytes.length, 1 << 20));
  return {
    turn: t.n,
    role,
    field: 'text' as const,
    text: snippetText(text, s.term),
    gen: file.gen,
    rewritten_away: newestGen(s.l, file) > file.gen,
    citation: citeBytes(mf.machine, file.lake_path, t, file.gen, bytes),
  };
}

/** A file the tool tier reads: its floor facts, its session's keys, and (when the raw index holds
 * only its first lines) where the lines it does not hold yet begin. */
interface ToolFile {
  id: number;
  file: FloorFile;
  sess: SessionKeys;
  tailFrom: number | null;
}

/** Tier 2, over the files of sessions tier 1 did not list. The raw index names the files whose
 * complete lines may hold the term; lines it does not hold yet (one still being written, a file it
 * could not read) are read here. Only those files are parsed, as rg's are. */
function toolTier(s: IndexSearch, inTier1: Set<number>, keys: KeysById): Ranked[] {
  const forms = rawPatterns(s.term);
  const hit = forms ? s.idx.rawFiles(forms) : null;
  const live = hit ? liveFilesAmong(s.idx, hit.keys()) : s.idx.liveFiles();
  // The sessions' keys (without titles) for each file's filter: one read of the table for many
  // files, a lookup each for a few; titles after ranking.
  const files = toolFiles(s, live, hit, inTier1, keys ?? (live.length > 200 ? new Map(s.idx.sessionKeys().map((r) => [r.id, r])) : null));
  const bySess = new Map<number, { sess: SessionKeys; scans: FileScan[] }>();
  // Files with lines the raw index does not hold yet: read whole, those lines included.
  const partlyRaw = new Set(live.filter((fr) => fr.raw_done < fr.claimed).map((fr) => fr.id));
  for (const { id, file, sess, tailFrom } of toolCandidates(s, files, hit, forms)) {
    file.newest = newestGen(s.l, { machine: file.mf.machine, base: file.base, gen: file.gen });
    // A file the raw index holds whole: only its matched chunks are read, and parsed around the
    // lines that hold the term; else (lines it does not hold yet) the whole file is parsed.
    const ranges = hit && tailFrom === null && !partlyRaw.has(id) ? hit.get(id) : undefined;
    const scans = ranges ? scanParts(file, s.term, SNIPPETS, ranges, forms!, (b) => markBefore(s.idx, id, b)) : scanFile(file, s.term, SNIPPETS, false);
    for (const sc of scans ?? []) {
      if (sc.toolCount === 0) continue;
      // A section of the file (Turn.section) is a session of its own.
      const own = sc.file.session === sess.session ? sess : sectionKeys(s.idx, sess, sc.file.session);
      if (!own || inTier1.has(own.id)) continue;
      const e = bySess.get(own.id) ?? { sess: own, scans: [] };
      e.scans.push(sc);
      bySess.set(own.id, e);
    }
  }
  return [...bySess.values()].map(({ sess, scans }) => ({ ...toolRanked(lightInfo(sess), scans), id: sess.id }));
}

/** Does this lane's agent gather several sessions in a file (Turn.section)? */
function sectioned(lane: string): boolean {
  return !!agentByLane(lane)?.sectionId;
}

/** The index's keys of the session `session` that is a section of `whole`'s file. */
function sectionKeys(idx: TurnIndex, whole: SessionKeys, session: string): SessionKeys | undefined {
  return idx.findSessions(session).find((r) => r.machine === whole.machine && r.lane === whole.lane && r.session === session && r.whole === whole.id);
}

/** The live files of sessions not in tier 1 that the filters pass, each path checked once (its
 * chunk reads, parse and citations use the path it gives); a refused one is noted. */
function toolFiles(s: IndexSearch, live: LiveFile[], hit: Map<number, number[]> | null, inTier1: Set<number>, keys: KeysById): ToolFile[] {
  const keyOf = (id: number): SessionKeys | undefined => (keys ? keys.get(id) : s.idx.session(id));
  const passed = new Map<number, boolean>();
  const files: ToolFile[] = [];
  for (const fr of live) {
    if (inTier1.has(fr.sess_id) && !sectioned(fr.lane)) continue;
    const sess = keyOf(fr.sess_id);
    const mf = s.root.machines.find((x) => x.machine === fr.machine);
    if (!sess || !mf) continue;
    let ok = passed.get(sess.id);
    if (ok === undefined) passed.set(sess.id, (ok = passes(s.f, lightInfo(sess))));
    if (!ok) continue;
    const { abs, problem } = checkedLake(mf.dir, fr.lake_path, s.seen);
    if (problem !== null) {
      noteRefused(s.refused, { machine: mf.machine, lake_path: fr.lake_path, session: sess.session, problem });
      continue;
    }
    const file: FloorFile = { mf, lake_path: fr.lake_path, lane: fr.lane, session: sess.session, gen: fr.gen, base: fr.base, to: fr.claimed, unterminated: !!fr.unterminated, first_seen: fr.first_seen, last_seen: fr.last_seen, abs };
    files.push({ id: fr.id, sess, tailFrom: hit && !hit.has(fr.id) ? fr.raw_done : null, file });
  }
  return files;
}

/** The files that may hold the term: those the raw index names (with their unindexed tails
 * checked for it), or without a raw index, those the byte prefilter passes. */
function toolCandidates(s: IndexSearch, files: ToolFile[], hit: Map<number, number[]> | null, forms: string[] | null): ToolFile[] {
  if (hit) return files.filter((x) => x.tailFrom === null || nodeHas(path.join(x.file.mf.dir, x.file.lake_path), forms!, x.file.to, x.tailFrom));
  const entryOf = new Map(files.map((x) => [x.file, x]));
  return prefilter(
    files.map((x) => x.file),
    s.term,
  ).files.map((file) => entryOf.get(file)!);
}

function toolRanked(info: SessionInfo, scans: FileScan[]): Ranked {
  const { count, picks } = fromScans(scans, 'tool', (s) => s.tool);
  return {
    info,
    count,
    snip: () => picks.slice(0, SNIPPETS).map(({ f, e, rewritten_away }) => mentionSnippet(f, e, rewritten_away)),
  };
}

function viaScan(root: Root, term: string, limit: number, f: Filter, newest: boolean, why: string, refused: RefusedFile[]): SearchOutput {
  const files = floorFiles(root, refused).filter((x) => keyPasses(f, x.lane, x.mf.machine, x.session));
  const pre = prefilter(files, term);
  const bySess = new Map<string, (FileScan & { info: SessionInfo })[]>();
  for (const file of pre.files) {
    for (const sc of scanFile(file, term, SNIPPETS) ?? []) {
      const k = `${file.mf.machine}\0${file.lane}\0${sc.file.session}`;
      const l = bySess.get(k) ?? [];
      l.push(sc);
      bySess.set(k, l);
    }
  }
  const tier1: Ranked[] = [];
  const tier2: Ranked[] = [];
  for (const scans of bySess.values()) {
    // The session as its newest generation tells it.
    const info = scans.reduce((a, b) => (b.file.gen > a.file.gen ? b : a)).info;
    if (!passes(f, info)) continue;
    const { count, picks } = fromScans(scans, 'text', (s) => s.text);
    if (count > 0) {
      tier1.push({
        info,
        count,
        snip: () =>
          picks.slice(0, SNIPPETS).map(({ f: file, e: t, rewritten_away }) => ({
            turn: t.n,
            role: t.role,
            field: 'text' as const,
            text: t.snippet,
            gen: file.gen,
            rewritten_away,
            citation: file.abs ? citeChecked(file.abs, file.mf.machine, file.lake_path, t.span, file.gen) : citeSpan(file.mf.dir, file.mf.machine, file.lake_path, t.span, file.gen),
          })),
      });
    } else if (scans.some((s) => s.toolCount > 0)) {
      tier2.push(toolRanked(info, scans));
    }
  }
  rank(tier1, newest);
  rank(tier2, newest);
  return out(term, 'scan', why, true, tier1, tier2, limit, refused);
}
