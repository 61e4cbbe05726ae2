// config.toml in BRAIN_HOME: which machine this is and where its floor is backed up. Parsed with
// smol-toml and validated strictly, so a typo fails loudly (in status, doctor and the status bar)
// instead of quietly syncing to the wrong place. `brain init` writes it from TEMPLATE only.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { BrainError } from './errors';
import { layout, type Env } from './home';
import { SQL_KEYS, sqlTable } from './sqllimits';
import { setting } from './settings';
import { MACHINE_RE, storeReserved, validMachineName } from './machine';

export interface StoreConfig {
  /** Absolute folder holding one folder per machine. */
  path: string;
  /** ssh destination (`host`, `user@host`, or an ssh config alias); absent for a local store. */
  host?: string;
  /** Sync only over an already open ssh ControlMaster (store hosts that need a human to log in). */
  ssh_mux_only: boolean;
}

export interface Config {
  machine: string;
  /** Where `machine` came from: a test override, the file, or the hostname. */
  machineFrom: 'env' | 'config' | 'hostname';
  store?: StoreConfig;
  /** rsync binary, pinned at install because a timer brings its own PATH. */
  rsync_path: string;
  /** Seconds between two walks of the floor by `brain tick`. */
  interval: number;
  file: string;
}

export const DEFAULT_INTERVAL = 600;
const MIN_INTERVAL = 60;
const MAX_INTERVAL = 86_400;

const TOP_KEYS = ['machine', 'rsync_path', 'interval', 'store', 'sql'];
const STORE_KEYS = ['path', 'host', 'ssh_mux_only'];

/** Characters a store path may hold: it is quoted inside a shell command on the store host. */
const UNSAFE_PATH_RE = /['"\\`$\n\r\t]/;

function fail(file: string, what: string, hint: string, code = 'config-invalid'): never {
  throw new BrainError(code, `${file}: ${what}`, hint);
}

/** Where a parse error is, as editors and compilers write it: `config.toml:LINE:COL: what`. */
export function tomlErrorMessage(file: string, e: unknown): string {
  const t = e as { line?: unknown; column?: unknown; message?: unknown };
  const what = String(t?.message ?? e).split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
  const at = typeof t?.line === 'number' ? `:${t.line}${typeof t.column === 'number' ? `:${t.column}` : ''}` : '';
  return `${file}${at}: not valid TOML: ${what}`;
}

/** The line a key is written on (1-based), so a value error points at it like a parse error does.
 * `table` is the [section] it sits in (null: above every section). */
export function keyLine(text: string, table: string | null, key: string): number | undefined {
  let cur: string | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    const h = /^\[\s*([^\]]+?)\s*\]/.exec(l);
    if (h) {
      cur = h[1];
      continue;
    }
    const m = /^("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=/.exec(l);
    if (m && cur === table && m[1].replace(/^["']|["']$/g, '') === key) return i + 1;
  }
  return undefined;
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

export function defaultMachine(): string {
  // A hostname may carry a domain or characters a folder name should not: keep its first label.
  const h = os.hostname().split('.')[0].replace(/[^A-Za-z0-9._-]/g, '-');
  return validMachineName(h) ? h : 'machine';
}

/** Parses an interval: seconds as a number, or "90s", "10m", "1h". */
export function parseInterval(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'string') return null;
  const m = /^\s*(\d+)\s*(s|m|h)?\s*$/.exec(v);
  if (!m) return null;
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

/** Validates parsed TOML. Throws BrainError('config-invalid') naming the key and the value. */
export function validateConfig(raw: Record<string, unknown>, file: string, env: Env = process.env, opts: { checkLocalStore?: boolean; text?: string } = {}): Config {
  // `file:LINE` when the key can be found in the text (a value error then reads like a parse error).
  const at = (table: string | null, key: string): string => {
    const n = opts.text !== undefined ? keyLine(opts.text, table, key) : undefined;
    return n ? `${file}:${n}` : file;
  };
  for (const k of Object.keys(raw)) {
    if (!TOP_KEYS.includes(k)) {
      fail(at(null, k), `unknown key ${JSON.stringify(k)} (= ${show(raw[k])})`, `known keys: ${TOP_KEYS.join(', ')}; [store] holds ${STORE_KEYS.join(', ')}; [sql] holds ${SQL_KEYS.join(', ')}`);
    }
  }
  let machine: string;
  let machineFrom: Config['machineFrom'];
  if (raw.machine !== undefined) {
    if (typeof raw.machine !== 'string' || !validMachineName(raw.machine)) {
      if (typeof raw.machine === 'string' && storeReserved(raw.machine)) fail(at(null, 'machine'), `machine = ${show(raw.machine)} is a name the store's root uses for itself`, 'choose another name (it names this machine\'s folder at the store)');
      fail(at(null, 'machine'), `machine = ${show(raw.machine)} is not a plain folder name`, 'use letters, digits, ".", "_" and "-" (it names this machine\'s folder at the store)');
    }
    machine = raw.machine;
    machineFrom = 'config';
  } else {
    machine = defaultMachine();
    machineFrom = 'hostname';
  }
  const named = setting(env, 'BRAIN_MACHINE');
  if (named) {
    // It names a folder at the store, like the config's machine: the same rule, or a sync could
    // write beside (or above) the machine folders.
    if (!validMachineName(named)) {
      throw new BrainError('config-invalid', `BRAIN_MACHINE=${show(named)} is not a plain folder name`, 'use letters, digits, ".", "_" and "-" (it names this machine\'s folder at the store), or unset it');
    }
    machine = named;
    machineFrom = 'env';
  }

  let rsync_path = 'rsync';
  if (raw.rsync_path !== undefined) {
    if (typeof raw.rsync_path !== 'string' || raw.rsync_path.length === 0) {
      fail(at(null, 'rsync_path'), `rsync_path = ${show(raw.rsync_path)} is not a path`, 'set it to the rsync binary, e.g. rsync_path = "/usr/bin/rsync"');
    }
    if (raw.rsync_path.includes('/') && !path.isAbsolute(raw.rsync_path)) {
      fail(at(null, 'rsync_path'), `rsync_path = ${show(raw.rsync_path)} is relative`, 'use an absolute path (a timer runs with its own working folder), or a bare name looked up on PATH');
    }
    rsync_path = raw.rsync_path;
  }

  let interval = DEFAULT_INTERVAL;
  if (raw.interval !== undefined) {
    const n = parseInterval(raw.interval);
    if (n === null || n < MIN_INTERVAL || n > MAX_INTERVAL) {
      fail(at(null, 'interval'), `interval = ${show(raw.interval)} is not between ${MIN_INTERVAL} seconds and 1 day`, 'write seconds (600) or a duration ("10m", "1h")');
    }
    interval = n;
  }

  // brain sql and the sql tools read [sql] themselves (cache/limits.ts); checked here for doctor.
  if (raw.sql !== undefined) sqlTable(raw.sql, file);

  let store: StoreConfig | undefined;
  if (raw.store !== undefined) {
    if (typeof raw.store !== 'object' || raw.store === null || Array.isArray(raw.store)) {
      fail(at(null, 'store'), `store = ${show(raw.store)} is not a [store] table`, 'write it as a [store] section with path = "/absolute/folder"');
    }
    const s = raw.store as Record<string, unknown>;
    for (const k of Object.keys(s)) {
      if (!STORE_KEYS.includes(k)) {
        fail(at('store', k), `unknown key ${JSON.stringify(k)} in [store] (= ${show(s[k])})`, `[store] holds ${STORE_KEYS.join(', ')}; machine, rsync_path and interval go above it`);
      }
    }
    if (typeof s.path !== 'string' || s.path.length === 0) {
      fail(at('store', 'path'), `[store] path = ${show(s.path)} is missing or not a string`, 'set path = "/absolute/folder" (on the store host when host is set)');
    }
    if (!s.path.startsWith('/')) {
      fail(at('store', 'path'), `[store] path = ${show(s.path)} is not absolute`, 'write the full path, starting with "/"');
    }
    if (UNSAFE_PATH_RE.test(s.path)) {
      fail(at('store', 'path'), `[store] path = ${show(s.path)} holds a quote, backslash, "$", backtick or control character`, 'choose a folder name without them (the path is quoted in a shell command on the store host)');
    }
    let host: string | undefined;
    if (s.host !== undefined) {
      if (typeof s.host !== 'string' || s.host.trim().length === 0) {
        fail(at('store', 'host'), `[store] host = ${show(s.host)} is not a host name`, 'set host = "user@server" or an ssh config alias, or remove it for a local store');
      }
      if (s.host.includes(':')) {
        fail(at('store', 'host'), `[store] host = ${show(s.host)} contains a colon`, 'put the folder in path and only the host in host (host = "server", path = "/srv/brain")');
      }
      if (/\s/.test(s.host) || s.host.startsWith('-') || UNSAFE_PATH_RE.test(s.host)) {
        fail(at('store', 'host'), `[store] host = ${show(s.host)} is not a plain ssh destination`, 'use user@host or an alias from ~/.ssh/config, without spaces, quotes or a leading "-"');
      }
      host = s.host;
    }
    let ssh_mux_only = false;
    if (s.ssh_mux_only !== undefined) {
      if (typeof s.ssh_mux_only !== 'boolean') {
        fail(at('store', 'ssh_mux_only'), `[store] ssh_mux_only = ${show(s.ssh_mux_only)} is not true or false`, 'write ssh_mux_only = true or false');
      }
      ssh_mux_only = s.ssh_mux_only;
      if (ssh_mux_only && !host) {
        fail(at('store', 'ssh_mux_only'), `[store] ssh_mux_only = true without host`, 'ssh_mux_only only applies to an ssh store: add host = "…" or remove ssh_mux_only');
      }
    }
    const p = s.path.length > 1 ? s.path.replace(/\/+$/, '') : s.path;
    if (!host && opts.checkLocalStore !== false) {
      let isDir = false;
      try {
        isDir = fs.statSync(p).isDirectory();
      } catch {
        /* missing */
      }
      if (!isDir) {
        fail(at('store', 'path'),
          `[store] path = ${show(s.path)} does not exist on this machine`,
          `a local store's folder must exist (a forgotten host line fails here instead of filling a local copy): mount it, create it with \`brain init --store ${p}\`, or add host = "…" for an ssh store`,
          'config-store-missing',
        );
      }
    }
    store = { path: p, host, ssh_mux_only };
  }
  return { machine, machineFrom, store, rsync_path, interval, file };
}

export type ConfigResult =
  | { kind: 'missing'; file: string }
  | { kind: 'ok'; config: Config }
  | { kind: 'invalid'; file: string; error: BrainError };

/** Reads and validates BRAIN_HOME/config.toml. Never throws for a bad file: the caller shows it. */
export function readConfig(home: string, env: Env = process.env): ConfigResult {
  const file = layout(home).config;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing', file };
    return { kind: 'invalid', file, error: new BrainError('config-unreadable', `${file}: ${(e as Error).message}`, 'check its permissions', { cause: e }) };
  }
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (e) {
    return {
      kind: 'invalid',
      file,
      error: new BrainError('config-unparsable', tomlErrorMessage(file, e), 'fix the line it names (brain init never overwrites a file it cannot parse)', { cause: e }),
    };
  }
  try {
    return { kind: 'ok', config: validateConfig(raw, file, env, { text }) };
  } catch (e) {
    if (e instanceof BrainError) return { kind: 'invalid', file, error: e };
    throw e;
  }
}

/** Like readConfig, but throws the BrainError; a missing file is an error naming `brain init`. */
export function loadConfig(home: string, env: Env = process.env): Config {
  const r = readConfig(home, env);
  if (r.kind === 'ok') return r.config;
  if (r.kind === 'invalid') throw r.error;
  throw new BrainError('config-missing', `no config at ${r.file}`, 'run `brain init --store /path` (a mounted folder) or `brain init --store host:/path` (ssh)');
}

/** `--store PATH` (local) or `--store HOST:PATH` (ssh), split on the first colon. */
export function parseStoreArg(arg: string): { path: string; host?: string } {
  if (arg.startsWith('/')) return { path: arg };
  const i = arg.indexOf(':');
  if (i <= 0) {
    throw new BrainError('store-arg', `--store ${JSON.stringify(arg)} is neither an absolute path nor HOST:/PATH`, 'write --store /mnt/backup/brain or --store server:/srv/brain');
  }
  return { host: arg.slice(0, i), path: arg.slice(i + 1) };
}

export interface TemplateValues {
  machine?: string;
  store?: { path: string; host?: string; ssh_mux_only?: boolean };
  rsync_path?: string;
  interval?: number;
}

function q(s: string): string {
  return JSON.stringify(s);
}

/** The one config template: every rule the validator enforces is written beside its key. */
export function renderConfig(v: TemplateValues): string {
  const L: string[] = [];
  L.push('# Agent Brain configuration (written by `brain init`; edit freely, `brain doctor` checks it).');
  L.push('# Unknown keys and bad values are rejected with a message naming them.');
  L.push('');
  L.push("# This machine's folder name at the store: <store path>/<machine>/. Letters, digits, . _ -");
  L.push('# Default: the hostname.');
  L.push(v.machine ? `machine = ${q(v.machine)}` : `# machine = ${q(defaultMachine())}`);
  L.push('');
  L.push('# The rsync binary, pinned at install: a timer runs with its own PATH. Absolute, or a bare name.');
  L.push(`rsync_path = ${q(v.rsync_path ?? 'rsync')}`);
  L.push('');
  L.push('# How often `brain tick` (run by the timer every 5 minutes) looks for changes: seconds, or');
  L.push('# "10m" / "1h", between 60 seconds and 1 day. A change waits at most this plus one timer period.');
  L.push(v.interval !== undefined ? `interval = ${v.interval}` : `# interval = ${q('10m')}`);
  L.push('');
  L.push('# SQL (`brain sql`, and the sql tool of `brain mcp` and the editor). BRAIN_SQL_TIMEOUT and');
  L.push('# BRAIN_SQL_MAX_BYTES override these.');
  L.push('#   timeout    a statement is stopped after this long: seconds, or "1.5s" / "2m"; 0: no limit.');
  L.push('#   max_bytes  the most an agent\'s answer holds (at least 4096); longer values are cut, saying so.');
  L.push('# [sql]');
  L.push(`# timeout = ${q('30s')}`);
  L.push('# max_bytes = 40000');
  L.push('');
  L.push('# Where the floor (lake/, manifest/, meta/) is backed up. Each machine writes only its own');
  L.push('# <path>/<machine>/ folder; nothing there is ever deleted or rewritten.');
  L.push('#   path          absolute; for a local store the folder must already exist (a mounted disk),');
  L.push('#                 so a forgotten host line fails instead of filling a local copy.');
  L.push('#   host          ssh destination (user@server or an ~/.ssh/config alias), no colon; omit for');
  L.push('#                 a local store. ssh runs with BatchMode: set up key or agent auth first.');
  L.push('#   ssh_mux_only  true: sync only over an already open ControlMaster (`ssh -O check`), for');
  L.push('#                 store hosts that need a human to log in. Requires host.');
  if (v.store) {
    L.push('[store]');
    L.push(`path = ${q(v.store.path)}`);
    L.push(v.store.host ? `host = ${q(v.store.host)}` : '# host = "user@server"');
    L.push(v.store.ssh_mux_only ? 'ssh_mux_only = true' : '# ssh_mux_only = false');
  } else {
    L.push('# [store]');
    L.push('# path = "/mnt/backup/brain"');
    L.push('# host = "user@server"');
    L.push('# ssh_mux_only = false');
  }
  L.push('');
  return L.join('\n');
}
