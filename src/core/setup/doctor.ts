// `brain doctor`: read-only. One answer to "why is my backup stale": config, rsync, store, timer,
// last sync, hooks, lock, retention, each problem with the command that fixes it. It runs init's
// own planning (planHooks, timerPlan) without writing, so the two cannot disagree, and it has no
// --fix because nearly every fix is `brain init`, which leaves what is right alone.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { failureLogPath, recentFailures } from '../floor/failures';
import { freeBytes, recordingProblem } from '../floor/health';
import { RAISE_WATCHES, watchBudget, watchPollMs } from '../floor/watch';
import { readConfig, type Config } from '../config';
import { loadSqlite } from '../sqlite';
import { tryLock } from '../floor/lock';
import type { Env } from '../home';
import { planHooks } from './hooks';
import { syncPaths } from '../store/paths';
import { retentionGuard, retentionWarning } from '../store/retention';
import { effectiveWarning, mtimeOf, problems, readState } from '../store/state';
import { ageText } from '../store/machines';
import { homeNotWritable } from '../errors';
import { timerStatus, type Platform } from './timer';
import { ownerFailure, storeLabel } from '../store/rsync';
import { openTransport } from '../store/transport';
import { readFloorId } from '../store/floorid';
import { setting } from '../settings';
import { askStore } from '../remote/client';

export interface DoctorCheck {
  name: string;
  level: 'ok' | 'warn' | 'fail' | 'info';
  detail: string;
  fix?: string;
}

export interface DoctorOptions {
  env: Env;
  brainCmd: string[];
  platform?: Platform;
  now?: number;
  /** Skip the network check of an ssh store. */
  offline?: boolean;
}

export function rsyncVersion(bin: string, env: Env): { ok: boolean; version?: string; major?: number; minor?: number; detail: string } {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', env: env as NodeJS.ProcessEnv, timeout: 10_000 });
  if (r.error || r.status !== 0) return { ok: false, detail: `cannot run ${bin}: ${r.error?.message ?? r.stderr?.trim() ?? `exit ${r.status}`}` };
  const m = /version\s+v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(r.stdout);
  if (!m) return { ok: false, detail: `${bin} --version printed no version: ${r.stdout.split('\n')[0]}` };
  return { ok: true, version: `${m[1]}.${m[2]}${m[3] ? `.${m[3]}` : ''}`, major: +m[1], minor: +m[2], detail: r.stdout.split('\n')[0].trim() };
}

/** Whose <store>/<machine>/ is it (floorid.ts)? `recorded`: the id there ('' for none). */
function ownerCheck(home: string, cfg: Config, recorded: string): DoctorCheck {
  const ours = readFloorId(home);
  const where = `${storeLabel(cfg)}/${cfg.machine}/`;
  if (!recorded) return { name: 'machine name', level: 'ok', detail: `${where} records no floor yet: the next sync records this one (a folder from before floor ids goes to the floor whose manifest matches)` };
  if (recorded === ours) return { name: 'machine name', level: 'ok', detail: `${where} is this floor's (${ours.slice(0, 8)}…)` };
  // An id cut short (a first sync that the store's disk filled up on, with an older brain) claims
  // nothing: the sync decides the folder as if it had none and finishes the id.
  if (!/^[0-9a-f]{32}$/.test(recorded)) {
    return {
      name: 'machine name',
      level: 'warn',
      detail: `${where}.brain/floor-id is unfinished (${JSON.stringify(recorded.slice(0, 40))}, not a floor id: a first sync was cut short, e.g. by a full store disk); the next sync finishes it if the folder is this floor's (nothing sent yet, or its manifest starts like ours)`,
      fix: 'make room at the store if it is full, then `brain sync --now`',
    };
  }
  const f = ownerFailure(cfg, recorded);
  return { name: 'machine name', level: 'fail', detail: `${f.label}: ${f.message.replace(/, so nothing was synced$/, '')}`, fix: f.hint };
}

/** Can the store host run the search over every machine (node there, the store side answering)? */
async function storeSearchCheck(cfg: Config, env: Env): Promise<DoctorCheck> {
  const host = cfg.store!.host!;
  const a = await askStore(cfg, env, { op: 'probe' }, 'live');
  if (a.kind === 'value') {
    const p = a.value;
    const others = p.machines.filter((m) => m !== cfg.machine);
    return {
      name: 'store search',
      level: 'ok',
      detail: `node ${p.node} on ${host} searches the store's ${others.length} other machine${others.length === 1 ? '' : 's'}${others.length ? ` (${others.join(', ')})` : ''} there${p.scan_because ? `; it reads the files (${p.scan_because})` : ", with the store's turn index kept there"}`,
    };
  }
  const f = a.kind === 'error' ? { message: a.error.message, hint: a.error.hint } : a.failure;
  return { name: 'store search', level: 'warn', detail: `search, show and cite --verify reach this machine only: ${f.message}`, fix: f.hint };
}

export async function doctor(home: string, opts: DoctorOptions): Promise<DoctorCheck[]> {
  const { env } = opts;
  const now = opts.now ?? Date.now();
  const { checks: out, cfg } = configCheck(home, env);
  out.push(rsyncCheck(cfg, env));
  if (cfg?.store) out.push(...(await storeChecks(home, cfg, opts)));
  out.push(recordingCheck(home));
  const wb = watchesCheck(env);
  if (wb) out.push(wb);
  out.push(timerCheck(opts));
  out.push(...syncChecks(home, env, now, cfg));
  out.push(...hookChecks(opts));
  out.push(await lockCheck(home));
  out.push(...retentionChecks(home, env, now, cfg));
  return out;
}

// Without a store a sync has nowhere to go: the fix is to configure one.
const NO_STORE_FIX = 'configure a store: brain init --store PATH (a mounted folder) or --store HOST:PATH (ssh), then brain sync --now';

function configCheck(home: string, env: Env): { checks: DoctorCheck[]; cfg: Config | undefined } {
  const r = readConfig(home, env);
  if (r.kind === 'missing') return { checks: [{ name: 'config', level: 'fail', detail: `no config at ${r.file}`, fix: 'brain init --store PATH   (or --store HOST:PATH)' }], cfg: undefined };
  if (r.kind === 'invalid') return { checks: [{ name: 'config', level: 'fail', detail: r.error.message, fix: r.error.hint }], cfg: undefined };
  const cfg = r.config;
  const check: DoctorCheck = {
    name: 'config',
    level: cfg.store ? 'ok' : 'fail',
    detail: cfg.store ? `${cfg.file}: machine ${cfg.machine} (${cfg.machineFrom}), store ${storeLabel(cfg)}${cfg.store.ssh_mux_only ? ' (ssh_mux_only)' : ''}, interval ${cfg.interval}s` : `${cfg.file} has no [store]`,
    fix: cfg.store ? undefined : 'brain init --store PATH   (or --store HOST:PATH)',
  };
  return { checks: [check], cfg };
}

function rsyncCheck(cfg: Config | undefined, env: Env): DoctorCheck {
  const rsyncBin = cfg?.rsync_path ?? 'rsync';
  const rv = rsyncVersion(rsyncBin, env);
  if (!rv.ok) return { name: 'rsync', level: 'fail', detail: rv.detail, fix: 'install rsync 3 (apt install rsync / brew install rsync), then `brain init` pins its path' };
  if ((rv.major ?? 0) < 3) return { name: 'rsync', level: 'fail', detail: `${rsyncBin} is ${rv.version}: --append-verify needs rsync 3`, fix: 'install rsync 3 (brew install rsync on macOS), then run `brain init` to pin it' };
  return { name: 'rsync', level: 'ok', detail: `${rsyncBin}: ${rv.detail}` };
}

/** The store: a folder there and writable, or a host that answers; whose floor it holds; and
 * whether search reaches the other machines there. */
async function storeChecks(home: string, cfg: Config, opts: DoctorOptions): Promise<DoctorCheck[]> {
  const { env } = opts;
  const s = cfg.store!;
  if (!s.host) return localStoreChecks(home, cfg);
  if (s.ssh_mux_only) {
    const up = await openTransport(cfg, env).ready();
    if (!up) return [{ name: 'store', level: 'warn', detail: `no ssh master for ${s.host}: syncs are skipped until one is open`, fix: `ssh -fN ${s.host}   (with ControlMaster/ControlPath in ~/.ssh/config)` }];
    return [{ name: 'store', level: 'ok', detail: `an ssh master to ${s.host} is open` }, await storeSearchCheck(cfg, env)];
  }
  if (opts.offline) return [{ name: 'store', level: 'info', detail: `${storeLabel(cfg)} not checked (--offline)` }];
  // Reaches the host and reads the floor id recorded for this machine's folder, if any.
  const t = openTransport(cfg, { ...env, BRAIN_CONNECT_TIMEOUT: String(setting(env, 'BRAIN_CONNECT_TIMEOUT') ?? 10) });
  const rr = await t.readFile(`${cfg.machine}/.brain/floor-id`);
  if (rr.ok) return [{ name: 'store', level: 'ok', detail: `${s.host} answers and ${s.path} exists` }, ownerCheck(home, cfg, (rr.value ?? '').trim()), await storeSearchCheck(cfg, env)];
  if (rr.failure.label === 'store folder missing') return [{ name: 'store', level: 'fail', detail: `${s.host} answers but ${s.path} does not exist there`, fix: `ssh ${s.host} mkdir -p ${s.path}` }];
  return [{ name: 'store', level: 'fail', detail: rr.failure.message, fix: rr.failure.hint }];
}

/** A store on a mounted folder. */
function localStoreChecks(home: string, cfg: Config): DoctorCheck[] {
  const s = cfg.store!;
  let ok = false;
  try {
    fs.accessSync(s.path, fs.constants.W_OK);
    ok = fs.statSync(s.path).isDirectory();
  } catch {
    /* not there or not writable */
  }
  if (!ok) return [{ name: 'store', level: 'fail', detail: `${s.path} is missing or not writable`, fix: 'mount the store disk, or fix [store] path' }];
  let recorded = '';
  try {
    recorded = fs.readFileSync(path.join(s.path, cfg.machine, '.brain', 'floor-id'), 'utf8').trim();
  } catch {
    /* none recorded yet */
  }
  return [{ name: 'store', level: 'ok', detail: `${s.path} is a writable folder` }, ownerCheck(home, cfg, recorded)];
}

function recordingCheck(home: string): DoctorCheck {
  const rec = recordingProblem(home);
  const ro = homeNotWritable(home);
  if (ro) return { name: 'recording', level: 'fail', detail: ro.message, fix: ro.hint };
  if (rec) return { name: 'recording', level: 'fail', detail: `${rec.label}: ${rec.message}${rec.at ? ` (${rec.at})` : ''}`, fix: rec.hint };
  const free = freeBytes(home);
  return { name: 'recording', level: 'ok', detail: `no capture pass is failing${free !== null ? `; ${(free / 2 ** 30).toFixed(1)} GB free on the disk that holds ${home}` : ''}` };
}

/** Linux: the file watches recording needs against the limit; null elsewhere. */
function watchesCheck(env: Env): DoctorCheck | null {
  const wb = watchBudget(env);
  if (!wb) return null;
  const detail = `${wb.needed} session files and folders to watch; this system allows ${wb.limit} file watches per user, editors and other programs included`;
  // Past half of it, others' watches may take the rest: recording then falls back to walking.
  if (wb.needed > wb.limit / 2) return { name: 'watches', level: 'warn', detail: `${detail}: too few to watch every session at once (recording then walks the folders every ${watchPollMs(env) / 1000} s)`, fix: RAISE_WATCHES };
  return { name: 'watches', level: 'ok', detail };
}

function timerCheck(opts: DoctorOptions): DoctorCheck {
  const ts = timerStatus(opts.brainCmd, opts.env, opts.platform);
  if (!ts.installed) return { name: 'timer', level: 'fail', detail: `${ts.detail}: nothing runs \`brain tick\`, so nothing is backed up`, fix: 'brain timer install   (or brain init)' };
  if (ts.outdated) return { name: 'timer', level: 'warn', detail: `${ts.detail}, but it runs another brain command than this one`, fix: 'brain timer install' };
  if (ts.running === false) return { name: 'timer', level: 'fail', detail: ts.detail, fix: 'brain timer install' };
  return { name: 'timer', level: ts.running ? 'ok' : 'warn', detail: ts.detail, fix: ts.running === null ? 'systemctl --user enable --now brain-tick.timer   (in a login session)' : undefined };
}

/** The last sync, the warning it left, the failures of the last day and the files it keeps out. */
function syncChecks(home: string, env: Env, now: number, cfg: Config | undefined): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  const state = readState(home);
  const eff = effectiveWarning(home, env, now);
  const lastOk = mtimeOf(syncPaths(home).lastOk);
  if (!state) out.push({ name: 'last sync', level: cfg?.store ? 'warn' : 'info', detail: cfg?.store ? 'never synced' : 'never synced: no store is configured', fix: cfg?.store ? 'brain sync --now' : NO_STORE_FIX });
  else {
    const age = ageText(Date.parse(state.time), now);
    const okAge = lastOk !== null ? `; last that worked ${ageText(lastOk, now)}` : '; none has worked yet';
    out.push({
      name: 'last sync',
      level: state.status === 'ok' ? 'ok' : 'fail',
      detail: `${state.status} ${age}: ${state.message}${okAge}`,
      fix: state.status === 'ok' ? undefined : state.hint,
    });
  }
  if (eff.warning) out.push({ name: 'warning', level: 'warn', detail: `${eff.warning}: ${eff.message}`, fix: eff.hint });
  const fails = recentFailures(home, now);
  if (fails) {
    const last = fails.entries[fails.entries.length - 1];
    // A warning even when the last sync worked: failing every other run is a problem of its own.
    out.push({ name: 'failures', level: 'warn', detail: `${fails.summary}; the last ${ageText(Date.parse(last.last_at ?? last.at), now)}: ${last.message}`, fix: `each is in ${failureLogPath(home)}; the other checks say what is wrong now` });
  } else out.push({ name: 'failures', level: 'ok', detail: 'no sync or capture failure in the last 24 h' });
  for (const f of problems(state)) out.push({ name: f.code, level: 'fail', detail: f.message, fix: f.code === 'local-corrupt' ? 'brain verify --store' : undefined });
  return out;
}

function hookChecks(opts: DoctorOptions): DoctorCheck[] {
  return planHooks(opts.brainCmd, opts.env).map((h) => ({
    name: `hook ${h.agent}`,
    level: h.action === 'ok' ? 'ok' : h.action === 'unparsable' || h.action === 'foreign' ? 'fail' : 'warn',
    detail: `${h.file}: ${h.action === 'ok' ? h.detail : `${h.action}: ${h.detail}`}${h.note && h.action !== 'ok' ? ` (${h.note})` : ''}`,
    fix: h.action === 'ok' ? undefined : h.action === 'unparsable' ? `fix ${h.file} by hand, then brain init` : h.action === 'foreign' ? `move ${h.file} away, then brain init` : 'brain init',
  }));
}

/** Probes the sync lock without waiting (taking it for an instant creates locks/sync.lock if missing). */
async function lockCheck(home: string): Promise<DoctorCheck> {
  const p = syncPaths(home);
  const held = await tryLock(p.locks, 'sync');
  if (!held) return { name: 'lock', level: 'info', detail: 'a sync is running right now (it holds locks/sync.lock)' };
  held.release();
  return { name: 'lock', level: 'ok', detail: `${p.locks}/sync.lock is free${fs.existsSync(p.pending) ? ' (a pending --now mark is left: the next sync takes it)' : ''}${loadSqlite() ? '' : ' (flock(1) fallback: better-sqlite3 cannot load here)'}` };
}

function retentionChecks(home: string, env: Env, now: number, cfg: Config | undefined): DoctorCheck[] {
  const ret = retentionGuard(home, env, now);
  // No agent in the registry deletes its own sessions: nothing to guard.
  if (!ret.agent) return [];
  const out: DoctorCheck[] = [];
  const rw = retentionWarning(ret, now);
  if (ret.settingsProblem) out.push({ name: 'retention', level: 'warn', detail: `${ret.settingsFile}: ${ret.settingsProblem}` });
  const counted = `${ret.sessions} ${ret.agent} session${ret.sessions === 1 ? '' : 's'} (${ret.files} file${ret.files === 1 ? '' : 's'}, sub-agents' counted with their session), ${ret.dueSoon} due for deletion within 7 days (${ret.setting} = ${ret.days})`;
  out.push(
    rw
      ? { name: 'retention', level: 'fail', detail: rw, fix: cfg?.store ? 'brain record && brain sync --now' : NO_STORE_FIX }
      : { name: 'retention', level: 'ok', detail: ret.dueSoon === 0 ? counted : `${counted}, all in the store` },
  );
  return out;
}
