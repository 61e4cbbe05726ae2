// Who is asking: the session of the agent that calls a recall tool, so that its search leaves that
// session out (it would otherwise find its own question first). Each harness says it differently;
// what was checked against the installed CLIs:
//   Claude Code 2.1  sets CLAUDE_CODE_SESSION_ID in the environment of the stdio MCP servers it
//                    starts and of the Bash tool's commands (the transcript is <that id>.jsonl).
//   Codex 0.171      passes no session variable to MCP servers; it sends the thread id with each
//                    tools/call as _meta.threadId / _meta.sessionId (and in
//                    _meta["x-codex-turn-metadata"].session_id). Shell commands get CODEX_THREAD_ID
//                    and CODEX_SESSION_ID (the same id, the one in the rollout file's name).
//   Pi 0.73          has no MCP; its skill runs the CLI, which sees no session variable.
// BRAIN_SESSION_ID lets any other harness (or a wrapper script) say it explicitly.
import type { Env } from '../home';

export interface Caller {
  session: string;
  /** Where the id came from, e.g. "env CLAUDE_CODE_SESSION_ID" or "_meta.threadId". */
  source: string;
}

/** Environment variables that name the calling session, in the order they are trusted. */
export const SESSION_ENV = ['BRAIN_SESSION_ID', 'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID', 'CODEX_SESSION_ID'] as const;

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim().length > 0 ? v.trim() : null;
}

/** The calling session from a request's _meta (sent per call, so it is right even when one server
 * outlives a session), else from the environment the harness started us with. */
export function callerSession(env: Env, meta?: Record<string, unknown> | null): Caller | null {
  if (meta && typeof meta === 'object') {
    const turn = meta['x-codex-turn-metadata'];
    const cands: [unknown, string][] = [
      [meta.threadId, '_meta.threadId'],
      [meta.sessionId, '_meta.sessionId'],
      [turn && typeof turn === 'object' ? (turn as Record<string, unknown>).session_id : undefined, '_meta["x-codex-turn-metadata"].session_id'],
    ];
    for (const [v, source] of cands) {
      const s = str(v);
      if (s) return { session: s, source };
    }
  }
  for (const k of SESSION_ENV) {
    const s = str(env[k]);
    if (s) return { session: s, source: `env ${k}` };
  }
  return null;
}
