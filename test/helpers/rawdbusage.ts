// Token usage summed straight from the SQLite agents' own databases in a HOME (their Linux places),
// with plain SQL, JSON parsing and zstd and nothing of the code under test: what `brain stats` and
// derived.usage must agree with for Goose, Zed, Warp and Cursor's editor chats (Kiro records none).
// The same unit as rawusage.ts: input not served from cache, output, cache write, cache read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import type { Tokens } from './rawusage';

function read<T>(file: string, fn: (db: BetterSqlite3.Database) => T): T | null {
  if (!fs.existsSync(file)) return null;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Per agent name (the manifest's `agent`), the tokens its databases under `home` hold. */
export function rawDbUsage(home: string): Map<string, Tokens> {
  const out = new Map<string, Tokens>();
  const add = (agent: string, t: Tokens) => {
    const o = out.get(agent) ?? { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
    o.input += t.input;
    o.output += t.output;
    o.cacheCreation += t.cacheCreation;
    o.cacheRead += t.cacheRead;
    out.set(agent, o);
  };
  const data = path.join(home, '.local', 'share');
  // OpenCode and Kilo Code (OpenCode's schema): each assistant message's tokens in its data JSON;
  // input as written is what was not served from the cache, reasoning counts as output.
  for (const [agent, file] of [['opencode', path.join(data, 'opencode', 'opencode.db')], ['kilo-code', path.join(data, 'kilo', 'kilo.db')]] as const) {
    read(file, (db) => {
      for (const r of db.prepare('SELECT data FROM message').all() as { data: string }[]) {
        let j: { role?: string; tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } } };
        try {
          j = JSON.parse(r.data);
        } catch {
          continue;
        }
        const t = j.role === 'assistant' ? j.tokens : undefined;
        if (!t) continue;
        add(agent, { input: t.input ?? 0, output: (t.output ?? 0) + (t.reasoning ?? 0), cacheCreation: t.cache?.write ?? 0, cacheRead: t.cache?.read ?? 0 });
      }
    });
  }
  // Goose: per request from usage_ledger (newer builds) for the sessions it has rows of, the
  // session totals of all its requests for the others (accumulated_*, else the plain columns a
  // build without them wrote).
  read(path.join(data, 'goose', 'sessions', 'sessions.db'), (db) => {
    const ledger = !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage_ledger'").get();
    if (ledger) {
      const l = db.prepare('SELECT coalesce(sum(input_tokens), 0) AS i, coalesce(sum(output_tokens), 0) AS o, coalesce(sum(cache_write_tokens), 0) AS cw, coalesce(sum(cache_read_tokens), 0) AS cr FROM usage_ledger').get() as { i: number; o: number; cw: number; cr: number };
      add('goose', { input: l.i, output: l.o, cacheCreation: l.cw, cacheRead: l.cr });
    }
    const r = db
      .prepare(`SELECT coalesce(sum(coalesce(accumulated_input_tokens, input_tokens)), 0) AS i, coalesce(sum(coalesce(accumulated_output_tokens, output_tokens)), 0) AS o FROM sessions${ledger ? ' WHERE id NOT IN (SELECT session_id FROM usage_ledger)' : ''}`)
      .get() as { i: number; o: number };
    add('goose', { input: r.i, output: r.o, cacheCreation: 0, cacheRead: 0 });
  });
  // Zed: each thread (its zstd or plain JSON document), count by count the larger of its
  // cumulative_token_usage (every request's, where the Zed build kept it up) and its per-prompt
  // request_token_usage map added up (each prompt's latest request; the first agent's
  // per-message list repeats earlier usage in its gaps and is not added).
  read(path.join(data, 'zed', 'threads', 'threads.db'), (db) => {
    const four = (u: Record<string, number> | undefined): Tokens => ({ input: u?.input_tokens ?? 0, output: u?.output_tokens ?? 0, cacheCreation: u?.cache_creation_input_tokens ?? 0, cacheRead: u?.cache_read_input_tokens ?? 0 });
    for (const r of db.prepare('SELECT data_type, data FROM threads').all() as { data_type: string; data: Buffer }[]) {
      const doc = JSON.parse((r.data_type === 'zstd' ? zlib.zstdDecompressSync(r.data) : r.data).toString('utf8'));
      const cum = four(doc.cumulative_token_usage);
      const req = doc.request_token_usage;
      const prompts = (req && typeof req === 'object' && !Array.isArray(req) ? Object.values(req) : []).map((u) => four(u as Record<string, number>));
      const sum = (k: keyof Tokens) => prompts.reduce((a, u) => a + u[k], 0);
      add('zed', { input: Math.max(cum.input, sum('input')), output: Math.max(cum.output, sum('output')), cacheCreation: Math.max(cum.cacheCreation, sum('cacheCreation')), cacheRead: Math.max(cum.cacheRead, sum('cacheRead')) });
    }
  });
  // Warp: one total per model and conversation (warp_tokens + byok_tokens), counted as input.
  read(path.join(home, '.local', 'state', 'warp-terminal', 'warp.sqlite'), (db) => {
    const r = db
      .prepare(
        "SELECT coalesce(sum(coalesce(json_extract(t.value, '$.warp_tokens'), 0) + coalesce(json_extract(t.value, '$.byok_tokens'), 0)), 0) AS i FROM agent_conversations, json_each(conversation_data, '$.conversation_usage_metadata.token_usage') t",
      )
      .get() as { i: number };
    add('warp', { input: r.i, output: 0, cacheCreation: 0, cacheRead: 0 });
  });
  // Cursor's editor chats: each bubble's tokenCount.
  read(path.join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb'), (db) => {
    const r = db
      .prepare(
        "SELECT coalesce(sum(json_extract(value, '$.tokenCount.inputTokens')), 0) AS i, coalesce(sum(json_extract(value, '$.tokenCount.outputTokens')), 0) AS o FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;'",
      )
      .get() as { i: number; o: number };
    add('cursor-ide', { input: r.i, output: r.o, cacheCreation: 0, cacheRead: 0 });
  });
  return out;
}
