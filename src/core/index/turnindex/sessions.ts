// A session's row in the turn index (update.ts): made when the first of its files is claimed, and
// refreshed from its files' facts, its meta record and its turns after each read of one of them.
// A section of a file that gathers several sessions (Turn.section) has a row of its own, made
// when a read first meets it.
import type { FileFacts } from '../../turns';
import { titleOf } from '../../turns';
import { sessionFacts } from '../../truth';
import { laneRel } from '../read';
import { projectFromPath, readMeta, type MetaRecord } from '../roots';
import type { SectionRead } from '../parse-job';
import { agentByLane } from '../../agents';
import { TurnBatch } from './batch';
import type { FileRow, SessionRow } from './schema';

export abstract class SessionWriter extends TurnBatch {
  protected sessionId(machine: string, lane: string, session: string): number {
    const id = this.st.sessByKey.get(machine, lane, session) as number | undefined;
    if (id !== undefined) return id;
    return Number(this.st.insertSess.run(machine, lane, session).lastInsertRowid);
  }

  /** `fileTurns`: the turns `file` holds, when known (it is then counted without a query if it
   * is the session's only live file: a first build refreshes each session once per file). */
  protected refreshSession(sid: number, facts?: FileFacts, file?: FileRow, fileTurns?: number, known?: MetaRecord | null): void {
    const s = this.st.sessById.get(sid) as SessionRow;
    const live = this.st.liveFileOfSess.all(sid) as FileRow[];
    // The session's facts are its newest generation's (an older one read after it does not win).
    const f = file && file.live && !live.some((x) => x.gen > file.gen) ? file : live[0];
    const factsOf = (x: FileRow) => (x.id === file?.id ? facts : undefined) ?? (x.facts ? (JSON.parse(x.facts) as FileFacts) : null);
    const own: FileFacts | null = (f === file ? facts : undefined) ?? (f?.facts ? (JSON.parse(f.facts) as FileFacts) : null);
    const others = live.filter((x) => x !== f && x.base !== f?.base).map(factsOf);
    const ff = mergeFacts(own, others);
    const mf = this.root.machines.find((m) => m.machine === s.machine);
    // The parse thread read it already (for this session: its job named it), or it is read here.
    const meta = known !== undefined ? known : mf ? readMeta(mf.dir, s.lane, s.session, this.seen) : null;
    const { rel } = f ? laneRel(f.base) : { rel: '' };
    // What a rewrite may have cut from the newest generation (its first line: the session's id,
    // working folder and start) is an older one's (truth.ts: sessionFacts).
    // Then what the session's other files say (mergeFacts).
    const merged = mergeFacts(
      sessionFacts(
        live
          .filter((x) => !f || x.base === f.base)
          .sort((a, b) => a.gen - b.gen)
          .map(factsOf)
          .filter((x): x is FileFacts => !!x),
      ) ?? own,
      others,
    );
    const project = merged?.cwd ?? meta?.cwd ?? projectFromPath(s.lane, rel);
    const repo = meta?.git?.remote ?? meta?.git?.common_dir ?? null;
    const turns = fileTurns !== undefined && live.length === 1 && live[0].id === file?.id ? fileTurns : this.countTurns(sid);
    this.st.updSess.run(
      merged?.native_session ?? null,
      merged?.parent_session ?? null,
      ff?.subagent ? 1 : 0,
      project,
      repo,
      ff?.title_hint ? titleOf(ff.title_hint) : null,
      merged?.started ?? f?.first_seen ?? null,
      ff?.ended ?? f?.last_seen ?? null,
      turns,
      sid,
    );
  }

  /** The session (its index id) of each section of `row`'s file (Turn.section; 0: the file's
   * own), made when first met. */
  protected sectionSessions(row: FileRow, sections: SectionRead[]): (section: number) => number {
    const ids = new Map<number, number>();
    if (sections.length === 0) return () => row.sess_id;
    const own = this.st.sessById.get(row.sess_id) as SessionRow;
    const name = agentByLane(row.lane)?.sectionId;
    return (section) => {
      if (!section || !name) return row.sess_id;
      let id = ids.get(section);
      if (id === undefined) {
        const session = name(own.session, section);
        id = (this.st.sessByKey.get(own.machine, own.lane, session) as number | undefined) ?? Number(this.st.insertSection.run(own.machine, own.lane, session, own.id, section).lastInsertRowid);
        ids.set(section, id);
      }
      return id;
    };
  }

  /** The sessions of a file's sections this read met or cut: what the file's own session says of
   * them (project, repository), their times, and their turns counted again. */
  protected refreshSections(whole: number, sections: SectionRead[], touched: Set<number>): void {
    const own = this.st.sessById.get(whole) as SessionRow;
    const met = new Map<number, SectionRead>();
    for (const x of sections) met.set(x.section, x);
    for (const sid of touched) {
      if (sid === whole) continue;
      const s = this.st.sessById.get(sid) as SessionRow;
      const x = s.section !== null ? met.get(s.section) : undefined;
      const started = [s.started, x?.started].filter((v): v is string => !!v).sort()[0] ?? null;
      const ended = [s.ended, x?.ended].filter((v): v is string => !!v).sort().pop() ?? null;
      this.st.updSess.run(null, null, own.subagent, own.project, own.repo, null, started, ended, this.countTurns(sid), sid);
    }
  }
}

/** A session kept in several files (a task folder, a manifest beside its messages): what its
 * chosen file does not say, another of its files may; its times span them all. */
export function mergeFacts(own: FileFacts | null, others: (FileFacts | null)[]): FileFacts | null {
  const more = others.filter((x): x is FileFacts => !!x);
  if (more.length === 0) return own;
  const out: FileFacts = own ? { ...own } : { ...more[0] };
  for (const o of more) {
    out.native_session ??= o.native_session;
    out.parent_session ??= o.parent_session;
    out.cwd ??= o.cwd;
    out.title_hint ??= o.title_hint;
    if (o.started && (!out.started || o.started < out.started)) out.started = o.started;
    if (o.ended && (!out.ended || o.ended > out.ended)) out.ended = o.ended;
  }
  return out;
}
