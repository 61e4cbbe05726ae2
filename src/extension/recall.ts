// What the editor's main thread needs of the recall tools, without loading them (they run in the
// worker: worker/recall.ts): who the calling chat is, how big a tool's text may be, and the
// `brain sql` command line the worker runs for brain_sql.
import type { Env } from '../core/home';
import { sqlLimits } from '../core/sqllimits';

/** The chat session a tool call comes from, as the editor passes it in the invocation token (an
 * object holding `sessionId` in the editors this runs in; opaque by its declared type), so that
 * the chat's own session is left out of its search as brain mcp leaves out its caller's. */
export function chatSessionOf(token: unknown): string | undefined {
  if (!token || typeof token !== 'object') return undefined;
  const t = token as { sessionId?: unknown };
  return typeof t.sessionId === 'string' && t.sessionId.trim() ? t.sessionId.trim() : undefined;
}

/** Characters of JSON an editor tool returns at most: about 8k tokens. */
export const MAX_OUTPUT = 32_000;

/** Trims a result to MAX_OUTPUT, dropping whole list items from the end and saying so. */
export function sized(result: unknown): string {
  let text = JSON.stringify(result, null, 1);
  if (text.length <= MAX_OUTPUT) return text;
  const r = result as Record<string, unknown>;
  for (const key of ['hits', 'turns', 'rows']) {
    const list = r?.[key];
    if (!Array.isArray(list)) continue;
    let n = list.length;
    while (n > 1 && text.length > MAX_OUTPUT) {
      n = Math.max(1, Math.floor(n * 0.7));
      text = JSON.stringify({ ...r, [key]: list.slice(0, n), truncated: `${list.length - n} more ${key} left out to fit; narrow the request` }, null, 1);
    }
  }
  return text.length <= MAX_OUTPUT ? text : `${text.slice(0, MAX_OUTPUT)}\n… (cut to ${MAX_OUTPUT} characters; narrow the request)`;
}

/** The most bytes brain_sql asks of `brain sql`: the editor's tool answers are MAX_OUTPUT
 * characters, pretty-printed, so a bigger answer would only be cut again (and mid-JSON). */
export const LM_SQL_MAX_BYTES = 24_000;

/** The `brain sql` command line brain_sql runs, and how long to let it run: the statement's own
 * limit ([sql] timeout, BRAIN_SQL_TIMEOUT; the child stops it) plus time to bring the cache up to
 * date first. */
export function sqlCommand(query: string, limit: number, home: string, env: Env): { args: string[]; killAfterMs: number } {
  const lim = sqlLimits(home, env);
  const maxBytes = Math.min(lim.maxBytes, LM_SQL_MAX_BYTES);
  return {
    args: ['sql', '--json', '--limit', String(limit), '--max-bytes', String(maxBytes), '--timeout', `${lim.timeoutMs}ms`, '--', query],
    killAfterMs: lim.timeoutMs === 0 ? 24 * 3600_000 : lim.timeoutMs + 10 * 60_000,
  };
}
