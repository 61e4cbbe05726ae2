// read_session: one session's turns (all of them, or a range), each with its citation. The session is
// found through the turn index when it can be used, else from the manifests; its file is then read
// in full by the agent's dialect, so tool calls, their output and thinking are all there.
import { BrainError } from '../errors';
import type { Env } from '../home';
import { countTurns, type FileFacts, type Tokens, type Turn } from '../turns';
import { addTokens, sessionFacts } from '../truth';
import { agentByLane, registry } from '../agents';
import { timeline, type TimelineEntry } from './generations';
import { openIndex, type SessionRow, type TurnIndex } from '../index/turnindex';
import { mergeFacts } from '../index/turnindex/sessions';
import { shownForm } from '../index/turncount';
import { laneRel, readTurns, type FileTurns } from '../index/read';
import { baseOfGen, resolveRoot, type Root } from '../index/roots';
import { citeSpan } from './cite';
import { floorFiles, type FloorFile } from './scan';
import { infoFromFile, infoFromRow, sectionInfo } from './session';
import type { ReadInput, ReadOutput, RecallOptions, SessionInfo, TurnView } from './types';
import { READ_INPUT_SCHEMA } from './types';
import { validateInput } from './validate';
import { lakeFile } from '../index/lakepath';
import { UnsafePathError } from '../safepath';
import type { RefusedFile } from './types';

export const DEFAULT_MAX_CHARS = 2000;

/** "A..B", "A..", "..B", "A" -> [from, to] (to may be Infinity). */
export function parseRange(s: string | undefined): [number, number] {
  if (!s) return [1, Infinity];
  const m = /^(\d+)?(\.\.)?(\d+)?$/.exec(s.trim());
  if (!m || (!m[1] && !m[3])) throw new BrainError('usage', `turns: cannot read "${s}" as a range`, 'use A..B, A.., ..B or A');
  const a = m[1] ? Number(m[1]) : 1;
  const b = m[3] ? Number(m[3]) : m[2] ? Infinity : a;
  if (a < 1 || b < a) throw new BrainError('usage', `turns: "${s}" is an empty range`);
  return [a, b];
}

function cut(s: string, max: number): string {
  if (max <= 0 || s.length <= max) return s;
  return `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

interface Found {
  info: SessionInfo | null;
  /** Every generation of the session's file (the largest of its newest forms), oldest first. */
  gens: FloorFile[];
  /** The newest generation of each other form of the session on the same machine: a copy of the
   * conversation, or a file beside it that holds its totals (sessionTokens). */
  others: FloorFile[];
  /** A file that gathers several sessions (Turn.section): the section that is this session (0:
   * what comes before the first). Absent: the file is one session. */
  section?: number;
}

/** The section of its file a session is, when its agent's files gather several sessions. */
function sectionOf(lane: string, row: { section: number | null } | null): number | undefined {
  return agentByLane(lane)?.sectionId ? (row?.section ?? 0) : undefined;
}

/** Of a session's files (each form, each generation), the generations of the one show reads: of
 * each form's newest generation, the one shownForm picks. */
function shownGens(files: FloorFile[]): FloorFile[] {
  const pick = shownForm([...newestOf(files, (f) => `${f.mf.machine}\0${f.base}`).values()], (f) => f.to ?? 0, holdsTurns);
  if (!pick) return [];
  return files.filter((f) => f.mf.machine === pick.mf.machine && f.base === pick.base).sort((a, b) => a.gen - b.gen || (a.lake_path < b.lake_path ? -1 : 1));
}

/** Whether a form holds turns: as the turn index knows, else as its dialect reads it. */
function holdsTurns(f: FloorFile): boolean {
  if (f.has_turns !== undefined) return f.has_turns;
  try {
    const r = readFile(f);
    return !!r && countTurns(r.turns) > 0;
  } catch {
    // Not readable: not the form to show (reading it for show would name the problem).
    return false;
  }
}

/** The session's files and what show reads of them: the shown form's generations, and the newest
 * generation of each other form on the same machine (but those that hold turns: copies). */
function foundOf(info: SessionInfo | null, files: FloorFile[]): Found | null {
  const gens = shownGens(files);
  if (gens.length === 0) return null;
  const at = gens[0];
  const others = [...newestOf(files.filter((f) => f.mf.machine === at.mf.machine && f.base !== at.base), (f) => f.base).values()];
  return { info, gens, others: others.filter((f) => f.has_turns !== true) };
}

/** Of each group of files (by `key`), the one of the newest generation. */
function newestOf<F extends { gen: number }>(files: readonly F[], key: (f: F) => string): Map<string, F> {
  const out = new Map<string, F>();
  for (const f of files) {
    const n = out.get(key(f));
    if (!n || f.gen > n.gen) out.set(key(f), f);
  }
  return out;
}

function ambiguous(ref: string, cands: { session: string; machine: string; lane: string }[]): never {
  throw new BrainError(
    'ambiguous',
    `"${ref}" matches ${cands.length} sessions`,
    cands
      .slice(0, 10)
      .map((c) => `${c.machine} ${c.lane} ${c.session}`)
      .join('\n  ') + (cands.length > 10 ? '\n  …' : '') + '\n  give more of the id, or --machine',
  );
}

function viaIndex(idx: TurnIndex, root: Root, ref: string, machine?: string, lanes?: string[]): Found | null {
  let rows = idx.findSessions(ref);
  if (machine) rows = rows.filter((r) => r.machine === machine);
  if (lanes) rows = rows.filter((r) => lanes.includes(r.lane));
  if (rows.length === 0) return null;
  if (rows.length > 1) {
    const exact = rows.filter((r) => r.session === ref);
    if (exact.length === 1) rows = exact;
    else ambiguous(ref, rows);
  }
  const s: SessionRow = rows[0];
  const mf = root.machines.find((m) => m.machine === s.machine);
  if (!mf) return null;
  // The largest live file is the session's (an archived copy of a rollout has the same id).
  const frs = idx.filesOf(s.id).sort((a, b) => b.claimed - a.claimed || a.id - b.id);
  const files = frs.map(
    (fr): FloorFile => ({ mf, lake_path: fr.lake_path, lane: fr.lane, session: s.session, gen: fr.gen, base: fr.base, to: fr.claimed, unterminated: !!fr.unterminated, first_seen: fr.first_seen, last_seen: fr.last_seen, has_turns: !!fr.has_turns }),
  );
  const found = foundOf(infoFromRow(s), files);
  return found && { ...found, section: sectionOf(s.lane, s) };
}

/** The files of a section's session (Turn.section) `ref` names, with the section. */
function sectionFiles(files: FloorFile[], ref: string): { files: FloorFile[]; section: number } | null {
  for (const a of registry().list) {
    const s = a.sectionOfId?.(ref);
    const mine = s ? files.filter((f) => f.lane === a.lane && f.session === s.session) : [];
    if (s && mine.length) return { files: mine, section: s.section };
  }
  return null;
}

function viaFloor(root: Root, ref: string, machine?: string, lanes?: string[]): Found | null {
  const refused: RefusedFile[] = [];
  let files = floorFiles(root, refused).filter((f) => (!machine || f.mf.machine === machine) && (!lanes || lanes.includes(f.lane)));
  const exact = files.filter((f) => f.session === ref);
  const section = exact.length ? null : sectionFiles(files, ref);
  if (section) {
    const found = foundOf(null, section.files);
    return found && { ...found, section: section.section };
  }
  files = exact.length ? exact : files.filter((f) => f.session.startsWith(ref));
  if (files.length === 0) {
    // A session whose only file was refused is named as refused, not as missing.
    const r = refused.find((x) => (!machine || x.machine === machine) && x.session !== undefined && (x.session === ref || x.session.startsWith(ref)));
    if (r) throw new UnsafePathError(r.lake_path, `${root.path}${root.kind === 'store' ? `/${r.machine}` : ''}`, r.problem, 'lake_path');
    return null;
  }
  const keys = new Map<string, FloorFile[]>();
  for (const f of files) {
    const k = `${f.mf.machine}\0${f.lane}\0${f.session}`;
    keys.set(k, [...(keys.get(k) ?? []), f]);
  }
  if (keys.size > 1) ambiguous(ref, [...keys.values()].map((l) => ({ session: l[0].session, machine: l[0].mf.machine, lane: l[0].lane })));
  const found = foundOf(null, [...keys.values()][0]);
  return found && { ...found, section: sectionOf(found.gens[0].lane, null) };
}

/** A section's session (Turn.section) read without the index: its own id, times and title. */
function ofSection(info: SessionInfo, section: number, turns: Turn[]): SessionInfo {
  const name = agentByLane(info.lane)?.sectionId;
  return section && name ? { ...sectionInfo(info, turns), session: name(info.session, section) } : info;
}

/** A file show read: which one, and what its dialect made of it. */
interface FileRead {
  file: FloorFile;
  r: FileTurns;
}

/**
 * A session's tokens as every view sums them (truth.ts): each reply's once, plus what its files
 * report that no reply claims (an agent that writes its usage once per session: a count before
 * any reply, a session row, a state or settings file). Of a file rewritten whole only its newest
 * generation's counts; of a conversation written a file per event, every part's; and a form of the
 * session that holds no turns (a settings file beside the conversation) adds its own, where a
 * form that does (a copy of the conversation) adds nothing.
 */
function sessionTokens(turns: readonly Turn[], files: readonly FileRead[], beside: readonly FileRead[]): Tokens {
  let t: Tokens = { input: 0, output: 0, cache_creation: 0, cache_read: 0 };
  for (const x of turns) if (x.tokens) t = addTokens(t, x.tokens);
  for (const { r } of newestOf([...files, ...beside].map((x) => ({ ...x, gen: x.file.gen })), (x) => baseOfGen(x.file.lake_path, x.file.gen)).values()) {
    if (r.facts.unclaimed_tokens) t = addTokens(t, r.facts.unclaimed_tokens);
  }
  return t;
}

/** The session's other forms that hold no turns (a settings, state or meta file beside the
 * conversation), read: what they lend the session (tokens, a start time, a project). */
function besideReads(others: readonly FloorFile[]): FileRead[] {
  return others.flatMap((file) => {
    const r = readFile(file);
    return r && countTurns(r.turns) === 0 ? [{ file, r }] : [];
  });
}

/** The session's facts from the form show reads, with what the forms beside it lend (the turn
 * index merges them so too: turnindex/sessions.ts). */
function lentFacts(own: FileFacts, beside: readonly FileRead[]): FileFacts {
  return mergeFacts(own, beside.map((x) => x.r.facts)) ?? own;
}

/** A floor file through its dialect, as show reads it (null: no dialect reads it). */
function readFile(f: FloorFile): FileTurns | null {
  return readTurns(lakeFile(f.mf.dir, f.lake_path), f.lane, laneRel(f.lake_path).rel, { full: true, to: f.to, tail: f.unterminated });
}

/** Only opts.index 'live' (the default) opens the turn index to find the session; otherwise the
 * floor's files are searched for it. */
export function readSession(input: ReadInput, env: Env = process.env, opts: RecallOptions = {}): ReadOutput {
  validateInput<ReadInput>(input, READ_INPUT_SCHEMA);
  const [from, to] = parseRange(input.turns);
  const max = input.max_chars ?? DEFAULT_MAX_CHARS;
  const root = resolveRoot({ store: input.store }, env);
  const lanes = input.agent ? registry().parse(input.agent).map((a) => a.lane) : undefined;
  let found: Found | null = null;
  if ((opts.index ?? 'live') === 'live') {
    const o = openIndex(root);
    if (o.ok) {
      try {
        try {
          o.index.update();
        } catch {
          /* a stale index still finds older sessions; the floor is searched below otherwise */
        }
        found = viaIndex(o.index, root, input.session, input.machine, lanes);
      } finally {
        o.index.close();
      }
    }
  }
  found ??= viaFloor(root, input.session, input.machine, lanes);
  if (!found) {
    throw new BrainError('not-found', `no session "${input.session}" in ${root.kind === 'store' ? `the store ${root.path}` : root.path}`, 'search for it first (brain search TERM) and use the session id it lists');
  }
  const newest = found.gens[found.gens.length - 1];
  const section = found.section;
  const read = (f: FloorFile) => {
    const r = readFile(f);
    if (!r) throw new BrainError('not-found', `${f.lake_path} is not a transcript any dialect reads`);
    // A file that gathers several sessions: this session's section of it.
    return section === undefined ? r : { ...r, turns: r.turns.filter((t) => (t.section ?? 0) === section) };
  };
  let entries: TimelineEntry<FloorFile>[];
  let unparsed: number;
  let info: SessionInfo;
  if (input.gen !== undefined) {
    const f = found.gens.find((g) => g.gen === input.gen);
    if (!f) {
      const have = found.gens.map((g) => g.gen).join(', ');
      throw new BrainError('not-found', `session ${newest.session} has no generation ${input.gen}`, `its file has generation${found.gens.length === 1 ? '' : 's'} ${have}`);
    }
    const r = read(f);
    entries = r.turns.map((turn) => ({ turn, gen: f.gen, file: f, rewritten: null }));
    unparsed = r.counts.bad;
    // The generation as it was: its own title (its first prompt) and count.
    const own = infoFromFile(f, r.facts, r.turns);
    info = { ...(found.info ?? own), title: own.title || (found.info?.title ?? ''), turns: countTurns(r.turns), tokens: sessionTokens(r.turns, [{ file: f, r }], []) };
  } else if (new Set(found.gens.map((f) => f.gen)).size < found.gens.length) {
    // Parts of one conversation (a file per event, AgentFiles.partOf): their turns together, in
    // the order of their numbers, each cited in its own file.
    const reads = found.gens.flatMap((f) => {
      // A part no dialect reads holds no turns.
      const r = readFile(f);
      return r ? [{ file: f, r }] : [];
    });
    if (reads.length === 0) throw new BrainError('not-found', `${newest.lake_path} is not a transcript any dialect reads`);
    entries = reads
      .flatMap((x) => x.r.turns.map((turn) => ({ turn, gen: x.file.gen, file: x.file, rewritten: null })))
      .sort((a, b) => a.turn.n - b.turn.n);
    unparsed = reads.reduce((a, x) => a + x.r.counts.bad, 0);
    // The session's facts from the last part with turns (a state file beside the events has none).
    const last = [...reads].reverse().find((x) => x.r.turns.length > 0) ?? reads[reads.length - 1];
    const beside = besideReads(found.others);
    info = { ...(found.info ?? infoFromFile(last.file, lentFacts(last.r.facts, beside), last.r.turns)), turns: countTurns(entries.map((e) => e.turn)), tokens: sessionTokens(entries.map((e) => e.turn), reads, beside) };
  } else {
    const reads = found.gens.map((f) => ({ gen: f.gen, file: f, r: read(f) }));
    const last = reads[reads.length - 1];
    entries = timeline(reads.map((x) => ({ gen: x.gen, file: x.file, turns: x.r.turns })));
    unparsed = last.r.counts.bad;
    // Counted as the index counts: a turn several generations hold, once.
    // The session's facts from every generation (a rewrite may cut the newest one's first line).
    const facts = sessionFacts(reads.map((x) => x.r.facts)) ?? last.r.facts;
    const beside = besideReads(found.others);
    info = found.info ?? { ...infoFromFile(last.file, lentFacts(facts, beside), last.r.turns), turns: countTurns(entries.map((e) => e.turn)) };
    info = { ...info, tokens: sessionTokens(entries.map((e) => e.turn), reads, beside) };
  }
  if (section !== undefined && !found.info) info = ofSection(info, section, entries.map((e) => e.turn));
  const view = ({ turn: t, gen, file: f, rewritten }: TimelineEntry<FloorFile>): TurnView => ({
    n: t.n,
    role: t.role,
    kind: t.kind,
    text: t.text,
    thinking: cut(t.thinking, max),
    tools: t.tools.map((u) => ({ name: u.name, arguments: cut(u.arguments, max), output: cut(u.output, max), is_error: u.is_error })),
    model: t.model,
    ts: t.ts,
    tokens: t.tokens,
    sidechain: t.sidechain,
    branch: t.branch,
    gen,
    rewritten_away: rewritten ? { gens: [...rewritten.gens], after: rewritten.after } : null,
    citation: citeSpan(f.mf.dir, f.mf.machine, f.lake_path, t.span, f.gen),
  });
  // A range counts the newest generation's turns; what was rewritten away goes with the turn it follows.
  const at = (e: TimelineEntry<FloorFile>) => (e.rewritten ? Math.max(1, e.rewritten.after) : e.turn.n);
  return {
    session: info,
    gen: input.gen ?? null,
    generations: found.gens.map((g) => g.gen),
    total: entries.length,
    unparsed_lines: unparsed,
    turns: entries.filter((e) => at(e) >= from && at(e) <= to).map(view),
  };
}
