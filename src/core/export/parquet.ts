// `brain export --parquet DIR`: the derived tables of every reachable machine as Hive-partitioned
// Parquet, DIR/<table>/machine=<m>/agent=<a>/*.parquet, for DuckDB, Spark, Trino or a warehouse.
// This machine's rows come from its own cache; another machine's from a cache built beside the
// export (DIR/.brain-export/floors/<m>/) over a copy of its floor, fetched from the store with rsync
// (read only; the store and its floors are never written). Incremental by machine: a machine
// whose manifest has not grown since the last export keeps its files; one that grew has its
// partitions written beside the old ones and swapped in.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openCache } from '../cache';
import { BrainError } from '../errors';
import { brainHome, layout, mkdirPrivate, type Env } from '../home';
import { machineName } from '../machine';
import { writeFileAtomic } from '../floor/durable';
import { storeLabel } from '../store/rsync';
import { sshBase, sshOptions } from '../store/sshcmd';
import { configuredStore } from '../remote/everywhere';

/** Exported table → the derived relation it holds (one row per session in sessions, however many
 * files hold it; per recorded file in files; per reply in usage; per call in tool_calls). */
export const EXPORT_TABLES: Record<string, string> = {
  sessions: 'derived.sessions',
  files: 'derived.files',
  messages: 'derived.messages',
  usage: 'derived.usage',
  tool_calls: 'derived.calls',
};

export interface ExportMachine {
  machine: string;
  /** 'written': its partitions are new; 'current': unchanged since the last export. */
  state: 'written' | 'current';
  rows: Record<string, number>;
}

export interface ExportResult {
  dir: string;
  machines: ExportMachine[];
  /** Why other machines are not in it (no store configured, the store out of reach). */
  notes: string[];
}

interface Stamps {
  [machine: string]: string;
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function run(cmd: string, args: string[], env: Env): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    const c = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, LC_ALL: 'C' } as NodeJS.ProcessEnv });
    c.stderr.on('data', (d) => (stderr += d.toString()));
    c.on('error', (e) => resolve({ code: null, stderr: e.message }));
    c.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The floors of the store's other machines, copied (incrementally) into `into`. */
async function fetchFloors(env: Env, own: string, into: string): Promise<{ ok: true; machines: string[] } | { ok: false; note: string }> {
  const cfg = configuredStore(env);
  if (!cfg) return { ok: false, note: 'no store is configured: this machine only (brain init --store PATH or HOST:PATH adds the others)' };
  const s = cfg.store!;
  mkdirPrivate(into);
  // Only what a floor is: lake, manifest and meta of each machine folder; nothing of this machine.
  const filters = [`--exclude=/${own}/`, '--include=/*/', '--include=/*/lake/***', '--include=/*/manifest/***', '--include=/*/meta/***', '--exclude=*'];
  const src = s.host ? `${s.host}:${s.path}/` : `${s.path}/`;
  // No --delete: the cache built inside each copy (brain.duckdb) stays, and floors only grow.
  // Another machine's folder is not trusted: its symlinks, FIFOs and devices are not copied (a
  // floor holds regular files only; the cache's reads would follow or block on them).
  const args = ['-a', '--no-links', '--no-specials', '--no-devices', ...filters, ...(s.host ? ['-e', [...sshBase(env), ...sshOptions(cfg, env)].join(' ')] : []), src, `${into}/`];
  const r = await run(cfg.rsync_path, args, env);
  if (r.code !== 0 && r.code !== 24) {
    return { ok: false, note: `other machines not exported: copying their floors from ${storeLabel(cfg)} failed (rsync exit ${r.code ?? 'none'}: ${r.stderr.trim().split('\n').pop() ?? ''})` };
  }
  const machines = fs
    .readdirSync(into, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(layout(path.join(into, d.name)).manifest))
    .map((d) => d.name)
    .sort();
  return { ok: true, machines };
}

function stampOf(home: string): string {
  try {
    const st = fs.statSync(layout(home).manifest);
    return `${st.size}:${Math.round(st.mtimeMs)}`;
  } catch {
    return 'none';
  }
}

/** Makes every file under `dir` 0600 and every folder 0700 (`dir` included). */
function privateTree(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) privateTree(p);
    else if (e.isFile()) fs.chmodSync(p, 0o600);
  }
}

/** Writes one machine's partitions of every table into `dir`, swapping them in whole. */
async function writeMachine(dir: string, machine: string, home: string): Promise<Record<string, number>> {
  const h = await openCache(home, { readOnly: false });
  const rows: Record<string, number> = {};
  try {
    for (const [table, rel] of Object.entries(EXPORT_TABLES)) {
      const final = path.join(dir, table, `machine=${machine}`);
      const tmp = path.join(dir, table, `.machine=${machine}.new-${process.pid}`);
      fs.rmSync(tmp, { recursive: true, force: true });
      mkdirPrivate(path.dirname(tmp));
      const n = Number((await (await h.conn.run(`SELECT count(*) FROM ${rel}`)).getRows())[0][0]);
      rows[table] = n;
      if (n > 0) await h.conn.run(`COPY (SELECT * FROM ${rel}) TO ${sqlString(tmp)} (FORMAT parquet, PARTITION_BY (agent), OVERWRITE_OR_IGNORE)`);
      // DuckDB writes with the process's umask: the export holds session text, private like the
      // floor (files 0600, folders 0700) before it takes its final name. Its text is the cache's,
      // which holds secrets masked.
      if (n > 0) privateTree(tmp);
      const old = `${final}.old-${process.pid}`;
      if (fs.existsSync(final)) fs.renameSync(final, old);
      if (n > 0) fs.renameSync(tmp, final);
      fs.rmSync(old, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    h.close();
  }
  return rows;
}

export async function exportParquet(dirArg: string, env: Env): Promise<ExportResult> {
  const dir = path.resolve(dirArg);
  try {
    mkdirPrivate(dir);
  } catch (e) {
    throw new BrainError('export-dir', `cannot make the export folder ${dir}: ${(e as Error).message}`, 'pass a folder you can write', { cause: e });
  }
  const home = brainHome(env);
  const own = configuredStore(env)?.machine ?? machineName(home, env);
  const work = path.join(dir, '.brain-export');
  const stampFile = path.join(work, 'stamps.json');
  let stamps: Stamps = {};
  try {
    stamps = JSON.parse(fs.readFileSync(stampFile, 'utf8')) as Stamps;
  } catch {
    /* a first export */
  }
  const notes: string[] = [];
  const floors: { machine: string; home: string }[] = [{ machine: own, home }];
  const far = await fetchFloors(env, own, path.join(work, 'floors'));
  if (far.ok) for (const m of far.machines) floors.push({ machine: m, home: path.join(work, 'floors', m) });
  else notes.push(far.note);
  const out: ExportMachine[] = [];
  for (const f of floors) {
    const stamp = stampOf(f.home);
    const have = Object.keys(EXPORT_TABLES).some((t) => fs.existsSync(path.join(dir, t, `machine=${f.machine}`)));
    if (stamps[f.machine] === stamp && have) {
      out.push({ machine: f.machine, state: 'current', rows: {} });
      continue;
    }
    const rows = await writeMachine(dir, f.machine, f.home);
    stamps[f.machine] = stamp;
    // Made here when missing: without a store nothing was fetched into the work folder before.
    writeFileAtomic(stampFile, JSON.stringify(stamps));
    out.push({ machine: f.machine, state: 'written', rows });
  }
  return { dir, machines: out, notes };
}
