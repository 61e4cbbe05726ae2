import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles } from '../types';

const EVENT = /^[^/]+\/events\/event-\d{5,}-[0-9a-fA-F-]{8,}\.json$/;
const STATE = /^[^/]+\/base_state\.json$/;

/** OpenHands CLI: ~/.openhands/conversations/<conversation id>/, holding base_state.json (the
 * conversation's state, rewritten whole) and events/event-<n>-<event id>.json (one new file per
 * event, never changed again). All the files of a conversation are parts of its one session. */
export const openhandsFiles: AgentFiles = {
  roots(env: Env) {
    const p = pathFor(env);
    return [{ dir: p.join(homeDir(env), '.openhands', 'conversations'), lakePrefix: '', include: (rel) => EVENT.test(rel) || STATE.test(rel) }];
  },
  rewritesWhole: (rel) => STATE.test(rel.replace(/\.g\d+\.json$/, '.json')),
  sessionOf: (rel) => rel.split('/')[0],
  partOf: (rel) => rel.split('/')[0] || null,
};

/** The event's number from its file name (event-00042-<id>.json -> 42), or null. */
export function eventIndex(rel: string): number | null {
  const m = /\/event-(\d{5,})-[^/]*$/.exec(rel);
  return m ? Number(m[1]) : null;
}
