// Every BRAIN_* environment variable the program reads, declared once: its type, default, unit,
// what it does and who it is for. Code reads them only through setting() (lint refuses a direct
// env.BRAIN_X read elsewhere), so a value is parsed one way everywhere and a bad one is named.
// docs/configuration.md's "Environment" table is generated from SETTINGS (scripts/settings-table.mjs) and a test
// keeps the two equal. This file sits in the lowest layer: it imports nothing but errors.ts.
import * as os from 'node:os';
import * as path from 'node:path';
import { BrainError } from './errors';

type Env = Record<string, string | undefined>;

/** Who sets it: a person (documented promise) or the test suite, bench and the program itself. */
export type Audience = 'users' | 'tests';

interface Spec<T> {
  /** For the table: path, text, words, seconds, bytes, count, flag, duration, size. */
  type: string;
  /** The default as the table shows it. */
  shown: string;
  unit?: string;
  for: Audience;
  what: string;
  /** The value when unset or empty. */
  dflt: (env: Env) => T;
  /** The parsed value, or null when `v` is not of the accepted form. */
  parse: (v: string) => T | null;
  /** The accepted form, for the message about a bad value. */
  form: string;
  /** A bad value: `error` stops with a BrainError (what these did before), `warn` says so once on
   * stderr and uses the default (they used to fall back silently). */
  bad: 'error' | 'warn';
}

const spec = <T>(s: Spec<T>): Spec<T> => s;
const none = () => undefined;
const text = (v: string) => v;
const words = (v: string) => v.trim().split(/\s+/).filter(Boolean);
const num = (v: string, ok: (n: number) => boolean): number | null => {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && ok(n) ? n : null;
};
/** Seconds, any number >= 0 (0 included: tests take a line in at once with it). */
const seconds = (v: string) => num(v, (n) => n >= 0);
/** Seconds > 0: a period that 0 would turn into a busy loop. */
const positiveSeconds = (v: string) => num(v, (n) => n > 0);
const wholeBytes = (v: string) => {
  const n = num(v, (x) => x >= 0);
  return n === null ? null : Math.floor(n);
};
const flag = (on: string) => (v: string) => v === on;

export const MIN_MAX_BYTES = 4096;
const MAX_MAX_BYTES = 1024 * 1024 * 1024;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;
export const TIMEOUT_HELP = 'seconds (30), or "1.5s", "500ms", "2m"; 0 for no limit';
export const MAX_BYTES_HELP = `bytes (40000), or "256k", "1m"; at least ${MIN_MAX_BYTES}`;

/** Seconds as a number, or "30", "30s", "1.5s", "500ms", "2m", "1h"; 0 turns the limit off.
 * Null if it is none of these or beyond a day. (Also the form of [sql] timeout and --timeout.) */
export function parseTimeout(v: unknown): number | null {
  let ms: number;
  if (typeof v === 'number' || typeof v === 'bigint') ms = Number(v) * 1000;
  else if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(v);
    if (!m) return null;
    ms = Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : m[2] === 'h' ? 3_600_000 : 1000);
  } else return null;
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_TIMEOUT_MS ? Math.round(ms) : null;
}

/** Bytes as an integer, or "256k", "256KiB", "1MB", "1m" (binary units). Null if it is none of
 * these or outside 4 KiB .. 1 GiB. (Also the form of [sql] max_bytes and --max-bytes.) */
export function parseMaxBytes(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number' || typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string') {
    const m = /^\s*(\d+)\s*(k|kb|kib|m|mb|mib)?\s*$/i.exec(v);
    if (!m) return null;
    const unit = (m[2] ?? '').toLowerCase();
    n = Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
  } else return null;
  return Number.isInteger(n) && n >= MIN_MAX_BYTES && n <= MAX_MAX_BYTES ? n : null;
}

export const SETTINGS = {
  // Where and who.
  BRAIN_HOME: spec<string>({
    type: 'path', shown: '`~/.brain`', for: 'users', what: 'the folder everything is written to: the floor, the caches, config.toml',
    dflt: (env) => path.join(env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir(), '.brain'), parse: (v) => path.resolve(v), form: 'a folder', bad: 'error',
  }),
  BRAIN_MACHINE: spec<string | undefined>({
    type: 'text', shown: '`machine` in config.toml, else the host name', for: 'users', what: "this machine's name: its folder at the store (checked by config.toml's rules)",
    dflt: none, parse: text, form: 'a plain folder name', bad: 'error',
  }),
  BRAIN_SESSION_ID: spec<string | undefined>({
    type: 'text', shown: 'the harness\'s own variable', for: 'users', what: 'the calling session, left out of its own recall (for harnesses Agent Brain does not know)',
    dflt: none, parse: text, form: 'a session id', bad: 'warn',
  }),
  // Capture.
  BRAIN_QUIET_SECONDS: spec<number>({
    type: 'seconds', shown: '600', unit: 's', for: 'users', what: 'an unterminated last line is taken in once its file has been quiet this long',
    dflt: () => 600, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_REWRITE_QUIET_SECONDS: spec<number>({
    type: 'seconds', shown: '30', unit: 's', for: 'users', what: 'a file its agent rewrites whole keeps a version once it has been quiet this long',
    dflt: () => 30, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_PREFIX_CHECK_BYTES: spec<number>({
    type: 'bytes', shown: '67108864 (64 MiB)', unit: 'B', for: 'users', what: 'bytes of grown sessions a full pass compares with the lake at most',
    dflt: () => 64 << 20, parse: wholeBytes, form: 'a number of bytes, 0 or more', bad: 'warn',
  }),
  BRAIN_WATCH_POLL_SECONDS: spec<number>({
    type: 'seconds', shown: '30', unit: 's', for: 'users', what: 'out of file watches, every session folder is walked this often',
    dflt: () => 30, parse: positiveSeconds, form: 'a number of seconds above 0', bad: 'warn',
  }),
  BRAIN_WATCH_CHECK_SECONDS: spec<number>({
    type: 'seconds', shown: '60', unit: 's', for: 'users', what: 'a watch pass that left prefix checks waiting is followed by a full pass this long after',
    dflt: () => 60, parse: positiveSeconds, form: 'a number of seconds above 0', bad: 'warn',
  }),
  BRAIN_WATCH_LOCK_WAIT_SECONDS: spec<number>({
    type: 'seconds', shown: '30', unit: 's', for: 'tests', what: 'how long a watch pass waits for another writer of the floor',
    dflt: () => 30, parse: positiveSeconds, form: 'a number of seconds above 0', bad: 'warn',
  }),
  BRAIN_HASH_THREAD: spec<boolean>({
    type: 'flag', shown: 'on', for: 'tests', what: '`0` hashes big files (8 MiB and more) inline instead of on a worker thread',
    dflt: () => true, parse: (v) => v !== '0', form: '0 to turn it off', bad: 'warn',
  }),
  BRAIN_CRASH_AT: spec<number>({
    type: 'count', shown: '0 (off)', for: 'tests', what: 'the crash tests: the process kills itself at the Nth crash point it passes',
    dflt: () => 0, parse: (v) => num(v, (n) => Number.isInteger(n) && n >= 0), form: 'a whole number', bad: 'warn',
  }),
  // Caches and recall.
  BRAIN_PAGER: spec<string | undefined>({
    type: 'words', shown: '`$PAGER`, else `less` (with `LESS=FRX` unless `LESS` is set)', for: 'users', what: 'the pager long output to a terminal goes through (`brain show`); empty or `cat`: none',
    dflt: none, parse: text, form: 'a command', bad: 'warn',
  }),
  BRAIN_SQL_TIMEOUT: spec<number | undefined>({
    type: 'duration', shown: '`[sql] timeout`, else 30 s', for: 'users', what: 'how long one SQL statement may run (`30`, `1.5s`, `500ms`, `2m`; 0: no limit)',
    dflt: none, parse: parseTimeout, form: TIMEOUT_HELP, bad: 'error',
  }),
  BRAIN_SQL_MAX_BYTES: spec<number | undefined>({
    type: 'size', shown: '`[sql] max_bytes`, else 40000', unit: 'B', for: 'users', what: "the byte cap of an agent's SQL answer (`40000`, `256k`, `1m`)",
    dflt: none, parse: parseMaxBytes, form: MAX_BYTES_HELP, bad: 'error',
  }),
  BRAIN_DUCKDB_THREADS: spec<number | undefined>({
    type: 'count', shown: "1 for a rebuild, DuckDB's (one per core) for an update", for: 'users', what: 'threads a cache build or update may use (the editor and `brain record`\'s follower run background ones with 1)',
    dflt: none, parse: (v) => num(v, (n) => Number.isInteger(n) && n > 0), form: 'a whole number above 0', bad: 'warn',
  }),
  BRAIN_SQL_DIR: spec<string | undefined>({
    type: 'path', shown: 'sql/ of the install', for: 'tests', what: 'the folder holding the cache schema (00_floor.sql …)',
    dflt: none, parse: text, form: 'a folder', bad: 'warn',
  }),
  BRAIN_CACHE_TRACE: spec<boolean>({
    type: 'flag', shown: 'off', for: 'tests', what: 'any value prints the time of each cache build step on stderr (bench, profiling)',
    dflt: () => false, parse: () => true, form: 'any value', bad: 'warn',
  }),
  BRAIN_NO_SQLITE: spec<boolean>({
    type: 'flag', shown: 'off', for: 'tests', what: '`1` acts as if better-sqlite3 could not load (search falls back to reading files)',
    dflt: () => false, parse: flag('1'), form: '1', bad: 'warn',
  }),
  BRAIN_NO_RG: spec<boolean>({
    type: 'flag', shown: 'off', for: 'tests', what: '`1` scans files without ripgrep',
    dflt: () => false, parse: flag('1'), form: '1', bad: 'warn',
  }),
  BRAIN_INDEX_WORKER: spec<boolean>({
    type: 'flag', shown: 'on', for: 'tests', what: '`0` parses sessions for the turn index on the main thread',
    dflt: () => true, parse: (v) => v !== '0', form: '0 to turn it off', bad: 'warn',
  }),
  BRAIN_INDEX_WORKER_MIN: spec<number>({
    type: 'bytes', shown: '67108864 (64 MiB)', unit: 'B', for: 'tests', what: 'pending bytes from which the turn index parses on worker threads',
    dflt: () => 64 << 20, parse: wholeBytes, form: 'a number of bytes, 0 or more', bad: 'warn',
  }),
  BRAIN_INDEX_PIECE_BYTES: spec<number>({
    type: 'bytes', shown: '33554432 (32 MiB)', unit: 'B', for: 'tests', what: "the most of one session file the turn index parses in one job (a larger one is read in pieces)",
    dflt: () => 32 << 20, parse: (v) => { const n = wholeBytes(v); return n !== null && n >= 1024 ? n : null; }, form: 'a number of bytes, 1024 or more', bad: 'warn',
  }),
  BRAIN_INDEX_WORKER_SCRIPT: spec<string | undefined>({
    type: 'path', shown: 'index-worker.js beside the bundle', for: 'tests', what: "the turn index's worker script",
    dflt: none, parse: text, form: 'a file', bad: 'warn',
  }),
  // Agents' folders.
  BRAIN_PLATFORM: spec<string>({
    type: 'text', shown: "node's `process.platform`", for: 'tests', what: '`darwin` or `win32` looks for agent and editor folders where macOS or Windows keeps them',
    dflt: () => process.platform, parse: text, form: 'a platform name (darwin, linux, win32)', bad: 'warn',
  }),
  BRAIN_EDITOR_USER_DIR: spec<string | undefined>({
    type: 'path', shown: 'none', for: 'tests', what: "the running editor's user folder, read for Copilot chats first",
    dflt: none, parse: text, form: 'a folder', bad: 'warn',
  }),
  BRAIN_PROJECT_DIRS: spec<string[]>({
    type: 'paths', shown: 'none', for: 'users',
    what: "more project folders to look in for the agents that keep their history inside the project (see the agents' table), separated like PATH; config.toml's `project_dirs` adds more, and so do the folders other agents' sessions ran in",
    dflt: () => [], parse: (v) => v.split(path.delimiter).map((x) => x.trim()).filter(Boolean), form: "folders separated by the platform's path separator", bad: 'warn',
  }),
  BRAIN_E2E_OUT: spec<string | undefined>({
    type: 'path', shown: 'none', for: 'tests', what: "the extension registers its test commands, writing to this folder (the e2e suite)",
    dflt: none, parse: text, form: 'a folder', bad: 'warn',
  }),
  // The store.
  BRAIN_SSH_COMMAND: spec<string[]>({
    type: 'words', shown: '`ssh`', for: 'users', what: 'the ssh client rsync runs, with its arguments (e.g. `ssh -F ~/.ssh/brain`)',
    dflt: () => ['ssh'], parse: (v) => (words(v).length > 0 ? words(v) : null), form: 'a command and its arguments', bad: 'warn',
  }),
  BRAIN_RSYNC_ARGS: spec<string[]>({
    type: 'words', shown: 'none', for: 'users', what: 'extra rsync arguments (e.g. `--bwlimit=2m`); none that could delete or rewrite at the store',
    dflt: () => [], parse: words, form: 'rsync options', bad: 'warn',
  }),
  BRAIN_CONNECT_TIMEOUT: spec<number | undefined>({
    type: 'seconds', shown: '20 (doctor: 10)', unit: 's', for: 'users', what: "ssh's ConnectTimeout for the store",
    dflt: none, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_IO_TIMEOUT: spec<number>({
    type: 'seconds', shown: '120', unit: 's', for: 'users', what: "rsync's --timeout: a transfer that moves nothing this long stops",
    dflt: () => 120, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_SYNC_DEADLINE: spec<number>({
    type: 'seconds', shown: '21600 (6 h)', unit: 's', for: 'users', what: 'the longest one sync may run',
    dflt: () => 6 * 3600, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_STORE_TIMEOUT: spec<number>({
    type: 'seconds', shown: '120', unit: 's', for: 'users', what: 'the longest the store side may work on one search, `show` or list of other machines\' sessions (it stops, and the ssh store host\'s process with it); 0 for no limit',
    dflt: () => 120, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_RETRY_DELAY: spec<number>({
    type: 'seconds', shown: '30', unit: 's', for: 'users', what: "the wait before ssh_mux_only's one retry",
    dflt: () => 30, parse: seconds, form: 'a number of seconds, 0 or more', bad: 'warn',
  }),
  BRAIN_SCRUB_BYTES: spec<number>({
    type: 'bytes', shown: '67108864 (64 MiB)', unit: 'B', for: 'users', what: 'bytes of the store copy one sync checks at most',
    dflt: () => 64 * 1024 * 1024, parse: wholeBytes, form: 'a number of bytes, 0 or more', bad: 'warn',
  }),
  BRAIN_SCRUB_FILES: spec<number>({
    type: 'count', shown: '200', for: 'tests', what: 'files of the store copy one sync checks at most',
    dflt: () => 200, parse: wholeBytes, form: 'a whole number, 0 or more', bad: 'warn',
  }),
  BRAIN_BIN: spec<string[] | undefined>({
    type: 'words', shown: 'this install (node and bin/brain)', for: 'tests', what: 'the brain command that hooks, the timer and MCP registrations run',
    dflt: none, parse: (v) => (v.split(' ').filter(Boolean).length > 0 ? v.split(' ').filter(Boolean) : null), form: 'a command and its arguments', bad: 'warn',
  }),
};

export type SettingName = keyof typeof SETTINGS;
type ValueOf<N extends SettingName> = (typeof SETTINGS)[N] extends Spec<infer T> ? T : never;

const warned = new Set<string>();

/** The value of one setting from `env`: parsed, its default when unset or empty. A bad value stops
 * with an error naming the variable and its accepted form, or (for the lenient ones) is said once
 * on stderr and the default used. */
export function setting<N extends SettingName>(env: Env, name: N): ValueOf<N> {
  const s = SETTINGS[name] as unknown as Spec<ValueOf<N>>;
  const raw = env[name];
  if (raw === undefined || raw === '') return s.dflt(env);
  const v = s.parse(raw);
  if (v !== null) return v;
  if (s.bad === 'error') throw new BrainError('config-invalid', `${name}=${raw} is not valid`, `write ${s.form}, or unset it`);
  if (!warned.has(`${name}=${raw}`)) {
    warned.add(`${name}=${raw}`);
    process.stderr.write(`brain: ${name}=${raw} is not valid (${s.form}); using the default, ${s.shown.replace(/`/g, '')}\n`);
  }
  return s.dflt(env);
}

/** The docs/configuration.md table (between its settings markers): one row per variable, users' first. */
export function settingsTable(): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|');
  const rows = (Object.entries(SETTINGS) as [string, Spec<unknown>][])
    .sort((a, b) => (a[1].for === b[1].for ? 0 : a[1].for === 'users' ? -1 : 1))
    .map(([n, s]) => `| \`${n}\` | ${s.type}${s.unit ? ` (${s.unit})` : ''} | ${cell(s.shown)} | ${s.for} | ${cell(s.what)} | ${s.bad === 'error' ? 'stops, naming the accepted form' : 'warned once, default used'} |`);
  return ['| Variable | Type | Default | For | What it does | A bad value |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}
