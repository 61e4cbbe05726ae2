// How long one SQL statement may run and how many bytes one answer may hold, for `brain sql`, the
// MCP sql tool and the editor's brain_sql. A statement past its time is interrupted inside DuckDB;
// an answer reading past its bytes stops fetching rows and cuts long values (query.ts).
// Settings: a flag (brain sql), else BRAIN_SQL_TIMEOUT / BRAIN_SQL_MAX_BYTES, else [sql] in
// config.toml, else the defaults here. Only the [sql] table is read: a store disk that is not
// mounted (which makes the rest of the config invalid) must not stop a query.
import * as fs from 'node:fs';
import { parse } from 'smol-toml';
import { BrainError } from './errors';
import { layout, type Env } from './home';
import { MAX_BYTES_HELP, MIN_MAX_BYTES, parseMaxBytes, parseTimeout, setting, TIMEOUT_HELP } from './settings';

// The parsers live with the settings (the lowest layer); their users import them from here.
export { MAX_BYTES_HELP, MIN_MAX_BYTES, parseMaxBytes, parseTimeout, TIMEOUT_HELP };

export const DEFAULT_SQL_TIMEOUT_MS = 30_000;
/** An agent's answer (MCP, editor tools): about 10k tokens, well under the 25k tokens a harness
 * takes from one tool call. */
export const DEFAULT_TOOL_MAX_BYTES = 40_000;
/** `brain sql` on a terminal or with --json: more than a screen, less than a hang. */
export const DEFAULT_CLI_MAX_BYTES = 8 * 1024 * 1024;
export interface SqlLimits {
  /** Milliseconds a statement may run; 0: no limit. */
  timeoutMs: number;
  /** Bytes an agent's answer may hold (the CLI has its own default, --max-bytes). */
  maxBytes: number;
}

export const SQL_KEYS = ['timeout', 'max_bytes'];

const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** Validates config.toml's [sql] table; throws BrainError('config-invalid') naming the key. */
export function sqlTable(raw: unknown, file: string): Partial<SqlLimits> {
  const bad = (what: string, hint: string): never => {
    throw new BrainError('config-invalid', `${file}: ${what}`, hint);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad(`sql = ${show(raw)} is not a [sql] table`, 'write it as a [sql] section with timeout = "30s" and max_bytes = 40000');
  const t = raw as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!SQL_KEYS.includes(k)) bad(`unknown key ${JSON.stringify(k)} in [sql] (= ${show(t[k])})`, `[sql] holds ${SQL_KEYS.join(', ')}`);
  const out: Partial<SqlLimits> = {};
  if (t.timeout !== undefined) out.timeoutMs = parseTimeout(t.timeout) ?? bad(`[sql] timeout = ${show(t.timeout)} is not a duration up to a day`, `write ${TIMEOUT_HELP}`);
  if (t.max_bytes !== undefined) out.maxBytes = parseMaxBytes(t.max_bytes) ?? bad(`[sql] max_bytes = ${show(t.max_bytes)} is not a size between 4 KiB and 1 GiB`, `write ${MAX_BYTES_HELP}`);
  return out;
}

function fromConfig(home: string): Partial<SqlLimits> {
  const file = layout(home).config;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new BrainError('config-unreadable', `${file}: ${(e as Error).message}`, 'check its permissions', { cause: e });
  }
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new BrainError('config-unparsable', `${file} is not valid TOML: ${(e as Error).message.split('\n')[0]}`, 'fix the line it names; [sql] timeout and max_bytes are read from it', { cause: e });
  }
  return raw.sql === undefined ? {} : sqlTable(raw.sql, file);
}

/** The limits in force: environment over config.toml over the defaults. */
export function sqlLimits(home: string, env: Env): SqlLimits {
  const cfg = fromConfig(home);
  return {
    timeoutMs: setting(env, 'BRAIN_SQL_TIMEOUT') ?? cfg.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS,
    maxBytes: setting(env, 'BRAIN_SQL_MAX_BYTES') ?? cfg.maxBytes ?? DEFAULT_TOOL_MAX_BYTES,
  };
}
