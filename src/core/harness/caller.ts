// Who is asking: the session of the agent that calls a recall tool, so that its search leaves that
// session out (it would otherwise find its own question first). Each harness says it differently
// (its harness.ts: sessionEnv, sessionFromMeta); BRAIN_SESSION_ID lets any other harness (or a
// wrapper script) say it explicitly.
import { harnessAgents } from '../agents';
import type { Caller } from '../agents/harness';
import type { Env } from '../home';

export type { Caller };

/** Environment variables that name the calling session, in the order they are trusted. */
export const SESSION_ENV: readonly string[] = ['BRAIN_SESSION_ID', ...harnessAgents().flatMap((a) => a.harness.sessionEnv ?? [])];

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim().length > 0 ? v.trim() : null;
}

/** The calling session from a request's _meta (sent per call, so it is right even when one server
 * outlives a session), else from the environment the harness started us with. */
export function callerSession(env: Env, meta?: Record<string, unknown> | null): Caller | null {
  if (meta && typeof meta === 'object') {
    for (const a of harnessAgents()) {
      const c = a.harness.sessionFromMeta?.(meta);
      if (c) return c;
    }
  }
  for (const k of SESSION_ENV) {
    const s = str(env[k]);
    if (s) return { session: s, source: `env ${k}` };
  }
  return null;
}
