// The retention guard. Some agents delete their own session files a while after the last change
// (the registry's `retention`: which setting, how long). For each origin session, the day it will be
// swept is its mtime plus that many days; a session due within 7 days that is not yet on the floor,
// in the store and verified is one agent start away from existing nowhere. status and doctor warn.
import { agents, type AgentDef } from '../agents';
import { layout, type Env } from '../home';
import { allOffsets, type OffsetRec } from '../floor/offsets';
import { readLedger } from './ledger';
import { syncPaths } from './paths';
import { statOrNull, walkTree } from '../walk';

export const GUARD_DAYS = 7;
const DAY = 86_400_000;

export interface RetentionRisk {
  origin: string;
  /** When the agent will delete it (ms). */
  due: number;
  why: 'not recorded' | 'not fully recorded' | 'not in the store' | 'store copy behind' | 'store copy has a problem';
  lake_path?: string;
  /** The session the file belongs to (a sub-agent's file belongs to its parent's). */
  session: string;
}

export interface RetentionReport {
  /** The agent that deletes (its display name) and the setting that says when. */
  agent: string;
  setting: string;
  days: number;
  settingsFile: string;
  /** Set when the settings file exists but cannot be read (the agent's default is assumed). */
  settingsProblem?: string;
  /** Sessions, a sub-agent's files counted with their parent's session. */
  sessions: number;
  /** Files those sessions are kept in (transcripts, sub-agent transcripts and their metadata). */
  files: number;
  /** Sessions with a file due for deletion within GUARD_DAYS. */
  dueSoon: number;
  atRisk: RetentionRisk[];
}

/** The agent whose sessions the guard watches (the first in the registry that deletes its own). */
function sweeper(): AgentDef | undefined {
  return agents().find((a) => a.retention);
}

export function retentionGuard(home: string, env: Env = process.env, now = Date.now()): RetentionReport {
  const agent = sweeper();
  const rep: RetentionReport = { agent: agent?.label ?? '', setting: agent?.retention?.setting ?? '', days: 0, settingsFile: '', sessions: 0, files: 0, dueSoon: 0, atRisk: [] };
  const ret = agent?.retention;
  if (!agent || !ret) return rep;
  const cd = ret.period(env);
  Object.assign(rep, { days: cd.days, settingsFile: cd.file, settingsProblem: cd.problem });
  const sessionKey = ret.sessionKey;
  const sessions = new Set<string>();
  const due = new Set<string>();
  let byOrigin: Map<string, OffsetRec> | undefined;
  let ledger: ReturnType<typeof readLedger> | undefined;
  for (const root of agent.roots(env)) {
    walkTree(root.dir, (e) => {
      if (e.dir || !root.include(e.rel)) return;
      const st = statOrNull(e.abs);
      if (!st) return;
      rep.files++;
      // Roots are told apart: the same relative path under two config folders is two sessions.
      const session = `${root.dir}/${sessionKey(e.rel)}`;
      sessions.add(session);
      const when = st.mtimeMs + cd.days * DAY;
      if (when - now > GUARD_DAYS * DAY) return;
      due.add(session);
      // Loaded only when something is due: most runs never read them.
      byOrigin ??= new Map(allOffsets(layout(home).offsets).filter((o) => o.lane === agent.lane).map((o) => [o.origin, o]));
      ledger ??= readLedger(syncPaths(home).ledger);
      const off = byOrigin.get(e.abs);
      if (!off) {
        rep.atRisk.push({ origin: e.abs, due: when, session: sessionKey(e.rel), why: 'not recorded' });
        return;
      }
      if (off.consumed < st.size) {
        // Bytes the floor does not hold yet (a last line waiting for its newline counts too).
        rep.atRisk.push({ origin: e.abs, due: when, session: sessionKey(e.rel), why: 'not fully recorded', lake_path: off.lake_path });
        return;
      }
      const le = ledger.files[off.lake_path];
      if (!le) rep.atRisk.push({ origin: e.abs, due: when, session: sessionKey(e.rel), why: 'not in the store', lake_path: off.lake_path });
      else if (le.problem) rep.atRisk.push({ origin: e.abs, due: when, session: sessionKey(e.rel), why: 'store copy has a problem', lake_path: off.lake_path });
      else if (le.size < off.consumed) rep.atRisk.push({ origin: e.abs, due: when, session: sessionKey(e.rel), why: 'store copy behind', lake_path: off.lake_path });
    });
  }
  rep.sessions = sessions.size;
  rep.dueSoon = due.size;
  rep.atRisk.sort((x, y) => x.due - y.due);
  return rep;
}

export function retentionWarning(rep: RetentionReport, now = Date.now()): string | null {
  if (rep.atRisk.length === 0) return null;
  const first = rep.atRisk[0];
  const days = Math.max(0, Math.ceil((first.due - now) / DAY));
  // Counted in sessions: a session's sub-agent files go with it.
  const n = new Set(rep.atRisk.map((r) => r.session)).size;
  return `${n} ${rep.agent} session${n > 1 ? 's' : ''} will be deleted by ${rep.agent} (${rep.setting} = ${rep.days}) within ${GUARD_DAYS} days and ${n > 1 ? 'are' : 'is'} not yet in the store and verified; the first in ${days} day${days === 1 ? '' : 's'} (${first.why}: ${first.origin})`;
}
