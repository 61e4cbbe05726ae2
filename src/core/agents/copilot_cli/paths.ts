import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

/** Copilot CLI's folder: $COPILOT_HOME, else ~/.copilot (%USERPROFILE%\.copilot on Windows). */
export function copilotCliDir(env: Env): string {
  return env.COPILOT_HOME || pathFor(env).join(homeDir(env), '.copilot');
}

const EVENTS = /^session-state\/[^/]+\/events\.jsonl$/;
const LEGACY = /^history-session-state\/[^/]+\.json$/;

/** GitHub Copilot CLI: session-state/<id>/events.jsonl (an append-only event log, one event a
 * line) and, from builds before it, history-session-state/<id>.json (one document per session,
 * rewritten whole). The folder's other files (workspace.yaml, checkpoints, session-store.db) are
 * the CLI's own state, not the conversation. */
export const copilotCliFiles: AgentFiles = {
  roots(env: Env) {
    return [{ dir: copilotCliDir(env), lakePrefix: '', include: (rel) => EVENTS.test(rel) || LEGACY.test(rel) }];
  },
  rewritesWhole: (rel) => LEGACY.test(rel),
  sessionOf(rel) {
    const parts = rel.split('/');
    // session-state/<id>/events.jsonl: the folder is the session.
    if (parts[parts.length - 1] === 'events.jsonl' && parts.length >= 2) return parts[parts.length - 2];
    return sessionFromName(rel);
  },
};
