// The sessions the Sessions view shows, from the core: this machine's from its turn index (kept
// current incrementally, the same rows `brain search` ranks), other machines' from their floors in
// a local store (manifest read on from where it stopped, each changed file read by its dialect).
// Long-lived (it holds the turn index open and reads each manifest on from where it stopped): the
// extension's worker keeps one; nothing in it knows of an editor.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentByLane } from '../agents';
import { readConfig } from '../config';
import { layout, type Env } from '../home';
import { machineName } from '../machine';
import { OverBudgetError, readManifest, readStoreManifest, type ManifestLine } from '../floor/manifest';
import { DeadlineError, NotRegularError } from '../safeopen';
import { laneRel, readTurns, type FileTurns } from '../index/read';
import { baseOfGen, formOf, homeRoot, projectFromPath, readMeta } from '../index/roots';
import { openIndex, type FileRow, type SessionRow, type TurnIndex } from '../index/turnindex';
import { mergeFacts } from '../index/turnindex/sessions';
import { shownForm } from '../index/turncount';
import { readSession } from './read';
import { lakeFile } from '../index/lakepath';
import { INDEX_OFF, type IndexUse, type SessionInfo, type TurnView } from './types';
import { countTurns, type FileFacts } from '../turns';
import { bySection, type FloorFile } from './scan';
import { infoFromFile, infoFromRow, sectionInfo } from './session';

/** What a file no dialect could read tells of its session. */
const EMPTY_FACTS: FileFacts = { native_session: null, parent_session: null, cwd: null, started: null, ended: null, title_hint: null, subagent: false };

/** One session as a list of sessions shows it (the editor's Sessions view): recall's SessionInfo
 * (from the same mappers search uses), ready to show, and where its file lies. */
export interface ListedSession extends SessionInfo {
  /** The session's working folder where known, else the lake folder it came from; never null. */
  project: string;
  /** Never empty: the session id in parentheses when no prompt was found. */
  title: string;
  /** The agent's display name (the registry's `label`). */
  agentLabel: string;
  /** Lake path of the newest generation, relative to the floor's root (its BRAIN_HOME or store folder). */
  lakePath: string;
  /** The floor's root this session lives in (this machine's BRAIN_HOME or <store>/<machine>). */
  root: string;
  bytes: number;
  lines: number;
  /** The working folder when the transcript or the hook's record names it. */
  cwd?: string;
  branch?: string;
  model?: string;
}

export interface SessionView {
  info: ListedSession;
  turns: TurnView[];
}

interface StoreFloor {
  machine: string;
  root: string;
  read: number;
  sessions: Map<string, Acc>;
}

interface Acc {
  lane: string;
  session: string;
  gen: number;
  /** The file of its newest generation show reads (shownForm) and its size, once read (fromFloor). */
  lakePath: string;
  bytes: number;
  lines: number;
  /** Every file of that generation: an archived copy, or a second form of the session. */
  files: Map<string, { bytes: number; lines: number }>;
  first: string | null;
  last: string | null;
  parsedAt?: number;
  /** The session as its file tells it; one per section when the file gathers several sessions. */
  infos?: SessionInfo[];
  cwd?: string;
}

/** A session as the list shows it, from its SessionInfo and where its newest file lies. */
export function listed(info: SessionInfo, where: { root: string; lakePath: string; bytes: number; lines: number; project: string | null; cwd?: string; branch?: string }): ListedSession {
  return {
    ...info,
    project: info.project ?? where.project ?? '(unknown)',
    title: info.title || `(${info.session})`,
    agentLabel: agentByLane(info.lane)?.label ?? info.lane,
    lakePath: where.lakePath,
    root: where.root,
    bytes: where.bytes,
    lines: where.lines,
    cwd: where.cwd,
    branch: where.branch,
  };
}

export class FloorView {
  readonly home: string;
  readonly machine: string;
  private index: TurnIndex | null = null;
  /** Why the turn index is not used (better-sqlite3 cannot load, or the file cannot be written). */
  indexProblem: string | null = null;
  private stores = new Map<string, StoreFloor>();
  private homeFloor: StoreFloor;

  /** opts.index 'off': the sessions come from the floor's files, and the turn index is not opened. */
  constructor(
    home: string,
    private env: Env,
    private opts: { index?: Exclude<IndexUse, 'snapshot'> } = {},
  ) {
    this.home = home;
    this.machine = machineName(home, env);
    this.homeFloor = { machine: this.machine, root: home, read: 0, sessions: new Map() };
    this.openOwnIndex();
  }

  private indexIno = 0;

  private openOwnIndex(): void {
    const o = this.opts.index === 'off' ? { ok: false as const, reason: INDEX_OFF } : openIndex(homeRoot(this.env, this.home));
    if (o.ok) {
      this.index = o.index;
      this.indexProblem = null;
      this.indexIno = inode(o.index.root.index);
    } else this.indexProblem = o.reason;
  }

  /** `brain rebuild` (or a user) may replace or delete the index file under this long-lived
   * handle: the handle would then read and update a file nobody else sees. Reopen on a new inode. */
  private ownIndexCurrent(): void {
    if (!this.index) {
      // Busy: another process was building it; try again now.
      if (this.indexProblem && /busy/.test(this.indexProblem)) this.openOwnIndex();
      return;
    }
    if (inode(this.index.root.index) === this.indexIno) return;
    this.index.close();
    this.index = null;
    this.openOwnIndex();
  }

  close(): void {
    this.index?.close();
    this.index = null;
  }

  /** The store folder, when it is a local folder this process can read. */
  storeDir(): string | null {
    const c = readConfig(this.home, this.env);
    if (c.kind !== 'ok' || !c.config.store || c.config.store.host) return null;
    return c.config.store.path;
  }

  private discoverStore(): void {
    const store = this.storeDir();
    if (!store) return;
    let names: string[];
    try {
      names = fs.readdirSync(store);
    } catch {
      return;
    }
    for (const m of names) {
      if (m === this.machine || m.startsWith('.')) continue;
      const root = path.join(store, m);
      if (!this.stores.has(root) && fs.existsSync(layout(root).manifest)) this.stores.set(root, { machine: m, root, read: 0, sessions: new Map() });
    }
  }

  /** Brings everything up to date; returns how many sessions (or files) changed. */
  refresh(): number {
    let changed = 0;
    this.ownIndexCurrent();
    if (this.index) {
      // The index is shared by every window and the CLI: another may have read the new lines
      // into it already, so "changed" is judged by the manifest, not by this update's work.
      const size = fileSize(layout(this.home).manifest);
      if (size !== this.homeFloor.read) {
        this.homeFloor.read = size;
        changed++;
      }
      try {
        changed += this.index.update().files;
      } catch (e) {
        // Another writer holds the index for a moment: the next refresh catches up.
        if (!/busy|locked/i.test(String((e as Error).message))) throw e;
      }
    } else changed += this.readManifest(this.homeFloor);
    this.discoverStore();
    for (const f of this.stores.values()) changed += this.readManifest(f);
    return changed;
  }

  private readManifest(r: StoreFloor): number {
    const file = layout(r.root).manifest;
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch {
      return 0;
    }
    if (size < r.read) {
      r.read = 0;
      r.sessions.clear();
    }
    if (size === r.read) return 0;
    let got: ReturnType<typeof readManifest>;
    try {
      // Another machine's folder: read under that machine's own budget, so one bad folder leaves
      // the others' sessions shown.
      got = readStoreManifest(path.basename(r.root), file, r.read);
    } catch (e) {
      if (e instanceof NotRegularError || e instanceof DeadlineError || e instanceof OverBudgetError) return 0;
      throw e;
    }
    r.read = got.length;
    const touched = new Set<string>();
    for (const m of got.lines) {
      this.add(r, m);
      touched.add(`${m.lane}/${m.session}`);
    }
    return touched.size;
  }

  private add(r: StoreFloor, m: ManifestLine): void {
    const key = `${m.lane}/${m.session}`;
    let a = r.sessions.get(key);
    if (!a || m.gen > a.gen) {
      a = { lane: m.lane, session: m.session, gen: m.gen, lakePath: m.lake_path, bytes: 0, lines: 0, files: new Map(), first: a?.first ?? m.event_ts_first ?? m.captured_at, last: m.captured_at };
      r.sessions.set(key, a);
    }
    if (m.gen < a.gen) return;
    const f = a.files.get(m.lake_path) ?? { bytes: 0, lines: 0 };
    f.bytes = Math.max(f.bytes, m.byte_to);
    f.lines = Math.max(f.lines, m.line_to);
    a.files.set(m.lake_path, f);
    a.last = m.captured_at;
  }

  /** Each file of the session's newest generation through its dialect (null: none reads it). */
  private readForms(r: StoreFloor, a: Acc): { lakePath: string; bytes: number; lines: number; got: FileTurns | null }[] {
    return [...a.files].map(([lakePath, f]) => {
      const got = (() => {
        try {
          // A store's manifest is another machine's word: its path goes through the guard.
          return readTurns(lakeFile(r.root, lakePath), a.lane, laneRel(lakePath).rel, { full: false, to: f.bytes, tail: true });
        } catch {
          return null;
        }
      })();
      return { lakePath, bytes: f.bytes, lines: f.lines, got };
    });
  }

  private fromFloor(r: StoreFloor, a: Acc): ListedSession[] {
    const size = [...a.files.values()].reduce((n, f) => n + f.bytes, 0);
    if (!a.infos || a.parsedAt !== size) {
      // The form show reads (shownForm); the others that hold no turns lend it their facts.
      const forms = this.readForms(r, a);
      const holds = (x: (typeof forms)[number]) => !!x.got && countTurns(x.got.turns) > 0;
      const shown = shownForm(forms, (x) => x.bytes, holds) as (typeof forms)[number];
      [a.lakePath, a.bytes, a.lines] = [shown.lakePath, shown.bytes, shown.lines];
      const got = shown.got;
      const file: FloorFile = {
        mf: { machine: r.machine, dir: r.root },
        lake_path: a.lakePath,
        lane: a.lane,
        session: a.session,
        gen: a.gen,
        base: formOf(a.lakePath, a.gen),
        to: a.bytes,
        unterminated: true,
        first_seen: a.first,
        last_seen: a.last,
      };
      const lent = forms.filter((x) => x !== shown && !holds(x)).map((x) => x.got?.facts ?? null);
      const facts = mergeFacts(got?.facts ?? null, lent) ?? EMPTY_FACTS;
      // A file that gathers several sessions (Turn.section): each section with a turn is one (as
      // the turn index lists them).
      const groups = bySection(file, got?.turns ?? []);
      a.infos = groups
        .filter((g) => g.section === undefined || countTurns(g.turns) > 0)
        .map((g) => (g.section ? sectionInfo(infoFromFile(g.file, facts, g.turns), g.turns) : infoFromFile(g.file, facts, g.turns)));
      a.cwd = facts.cwd ?? readMeta(r.root, a.lane, a.session)?.cwd ?? undefined;
      a.parsedAt = size;
    }
    const { rel } = laneRel(a.lakePath);
    return a.infos.map((info) => listed(info, {
      root: r.root,
      lakePath: a.lakePath,
      bytes: a.bytes,
      lines: a.lines,
      project: projectFromPath(a.lane, rel) ?? rel.split('/')[0] ?? null,
      cwd: a.cwd,
      branch: readMeta(r.root, a.lane, a.session)?.git?.branch ?? undefined,
    }));
  }

  private fromRow(idx: TurnIndex, s: SessionRow): ListedSession {
    // The form show reads, of the newest generation of each (files come newest first).
    const newest = new Map<string, FileRow>();
    for (const x of idx.filesOf(s.id)) if (!newest.has(x.base)) newest.set(x.base, x);
    const f = shownForm([...newest.values()], (x) => x.claimed, (x) => !!x.has_turns);
    return listed(infoFromRow(s), {
      root: this.home,
      lakePath: f?.lake_path ?? '',
      bytes: f?.done ?? 0,
      lines: f?.lines ?? 0,
      project: f ? projectFromPath(s.lane, laneRel(f.base).rel) : null,
      cwd: s.project ?? undefined,
      branch: readMeta(this.home, s.lane, s.session)?.git?.branch ?? undefined,
    });
  }

  sessions(): ListedSession[] {
    const out: ListedSession[] = [];
    if (this.index) for (const s of this.index.sessions()) out.push(this.fromRow(this.index, s));
    else for (const a of this.homeFloor.sessions.values()) out.push(...this.fromFloor(this.homeFloor, a));
    for (const r of this.stores.values()) for (const a of r.sessions.values()) out.push(...this.fromFloor(r, a));
    return out;
  }

  /** A session's turns through the core's readSession (this machine's floor, or the store's). */
  view(session: string, machine?: string): SessionView | undefined {
    const local = !machine || machine === this.machine;
    const store = local ? undefined : this.storeDir();
    if (!local && !store) return undefined;
    // Reading another machine's floor must not create a turn index inside the store.
    const r = readSession({ session, machine: local ? undefined : machine, store: store ?? undefined, max_chars: 4000 }, this.env, { index: local ? this.opts.index : 'off' });
    const info = this.sessions().find((s) => s.session === r.session.session && s.machine === r.session.machine);
    return {
      info:
        info ??
        listed(r.session, {
          root: local ? this.home : path.join(store!, r.session.machine),
          lakePath: r.turns[0]?.citation.lake_path ?? '',
          bytes: 0,
          lines: 0,
          project: '',
        }),
      turns: r.turns,
    };
  }
}

function fileSize(f: string): number {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
}

function inode(file: string): number {
  try {
    return fs.statSync(file).ino;
  } catch {
    return -1;
  }
}
