// SessionInfo from what is at hand: an index row, or a file parsed just now.
import { agentByLane } from '../agents';
import type { FileFacts, Turn } from '../turns';
import { countTurns, titleOf } from '../turns';
import { titleKey } from '../truth';
import { laneRel } from '../index/read';
import { projectFromPath, readMeta } from '../index/roots';
import type { SessionRow } from '../index/turnindex';
import type { FloorFile } from './scan';
import type { SessionInfo } from './types';

export function agentName(lane: string): string {
  return agentByLane(lane)?.agent ?? lane;
}

export function infoFromRow(r: SessionRow): SessionInfo {
  return {
    session: r.session,
    agent: agentName(r.lane),
    lane: r.lane,
    machine: r.machine,
    project: r.project,
    repo: r.repo,
    started: r.started,
    ended: r.ended,
    title: r.title ?? r.title_hint ?? '',
    turns: r.turns,
    native_session: r.native && r.native !== r.session ? r.native : null,
    parent_session: r.parent,
    subagent: !!r.subagent,
  };
}

export function infoFromFile(f: FloorFile, facts: FileFacts, turns: Turn[]): SessionInfo {
  const meta = readMeta(f.mf.dir, f.lane, f.session);
  // The title: the least titleKey (truth.ts): a real prompt before a slash command, the main
  // conversation's before a sub-agent's.
  let first: Turn | undefined;
  for (const t of turns) if (t.role === 'user' && t.text && (!first || titleKey(t) < titleKey(first))) first = t;
  return {
    session: f.session,
    agent: agentName(f.lane),
    lane: f.lane,
    machine: f.mf.machine,
    project: facts.cwd ?? meta?.cwd ?? projectFromPath(f.lane, laneRel(f.base).rel),
    repo: meta?.git?.remote ?? meta?.git?.common_dir ?? null,
    started: facts.started ?? f.first_seen,
    ended: facts.ended ?? f.last_seen,
    title: first ? titleOf(first.text) : facts.title_hint ? titleOf(facts.title_hint) : '',
    turns: countTurns(turns),
    native_session: facts.native_session && facts.native_session !== f.session ? facts.native_session : null,
    parent_session: facts.parent_session,
    subagent: facts.subagent,
  };
}

/** A section's session (Turn.section, 1 or more) as its file read without the index tells it: its
 * times and title are its turns', not the file's. What comes before the first section is the
 * file's own session, told as the file tells it. */
export function sectionInfo(info: SessionInfo, turns: readonly Turn[]): SessionInfo {
  const times = turns.map((t) => t.ts).filter((x): x is string => !!x).sort();
  const asked = turns.some((t) => t.role === 'user' && t.text);
  return { ...info, started: times[0] ?? null, ended: times[times.length - 1] ?? null, title: asked ? info.title : '' };
}
