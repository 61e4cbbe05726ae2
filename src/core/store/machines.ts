// Every machine in the store, read from the store itself (the one place every machine writes):
// its folder, the versions it has run (.brain/<version>.json, one file per version, never
// rewritten) and the age of its newest file. A local store is read directly; an ssh store with one
// `rsync --list-only` over the same ssh options as the sync (reading only).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import type { Env } from '../home';
import { classifyFailure, muxCheck, sshBase, sshOptions } from './transport';
import { statOrNull, walkTree } from '../walk';
import { setting } from '../settings';

export interface MachineInfo {
  machine: string;
  versions: string[];
  /** mtime of the newest floor file (ms), null if none. */
  newest: number | null;
  files: number;
  bytes: number;
  /** Store copies moved aside by repairs (.brain/replaced/). */
  replaced: number;
}

export type MachinesResult = { ok: true; machines: MachineInfo[] } | { ok: false; label: string; message: string; hint: string };

function versionSort(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

interface Entry {
  rel: string;
  isDir: boolean;
  size: number;
  mtime: number;
}

/** Folds a recursive listing (paths relative to the store root) into machines. */
export function summarize(entries: Entry[]): MachineInfo[] {
  const by = new Map<string, MachineInfo>();
  const get = (m: string) => {
    let x = by.get(m);
    if (!x) by.set(m, (x = { machine: m, versions: [], newest: null, files: 0, bytes: 0, replaced: 0 }));
    return x;
  };
  for (const e of entries) {
    const parts = e.rel.split('/');
    if (parts.length === 0 || parts[0].startsWith('.') || parts[0] === '') continue;
    const m = get(parts[0]);
    if (parts.length === 1 || e.isDir) continue;
    if (parts[1] === '.brain') {
      if (parts.length === 3 && parts[2].endsWith('.json')) m.versions.push(parts[2].slice(0, -5));
      else if (parts[2] === 'replaced') m.replaced++;
      continue;
    }
    m.files++;
    m.bytes += e.size;
    if (m.newest === null || e.mtime > m.newest) m.newest = e.mtime;
  }
  for (const m of by.values()) m.versions.sort(versionSort);
  return [...by.values()].sort((a, b) => a.machine.localeCompare(b.machine));
}

function walkLocal(root: string): Entry[] {
  const out: Entry[] = [];
  walkTree(root, (e) => {
    if (e.dir) out.push({ rel: e.rel, isDir: true, size: 0, mtime: 0 });
    else {
      const st = statOrNull(e.abs);
      if (st) out.push({ rel: e.rel, isDir: false, size: st.size, mtime: st.mtimeMs });
    }
  });
  return out;
}

/** Parses `rsync --list-only --no-human-readable` lines (run with TZ=UTC). */
export function parseListing(out: string): Entry[] {
  const res: Entry[] = [];
  for (const line of out.split('\n')) {
    const m = /^([-dlpscb])[rwxsStT-]{9}\S*\s+([\d,]+)\s+(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d) (.+)$/.exec(line);
    if (!m) continue;
    const rel = m[9].replace(/\/$/, '');
    if (rel === '.') continue;
    res.push({
      rel,
      isDir: m[1] === 'd',
      size: Number(m[2].replace(/,/g, '')),
      mtime: Date.UTC(+m[3], +m[4] - 1, +m[5], +m[6], +m[7], +m[8]),
    });
  }
  return res;
}

export async function listMachines(cfg: Config, env: Env): Promise<MachinesResult> {
  const store = cfg.store;
  if (!store) return { ok: false, label: 'backup not set up', message: `${cfg.file} has no [store]`, hint: 'run `brain init --store PATH`' };
  if (!store.host) {
    if (!fs.existsSync(store.path)) return { ok: false, label: 'store folder missing', message: `${store.path} does not exist`, hint: 'mount the store disk or fix [store] path' };
    return { ok: true, machines: summarize(walkLocal(store.path)) };
  }
  if (store.ssh_mux_only && !(await muxCheck(cfg, env))) {
    return { ok: false, label: `no ssh master for ${store.host}`, message: `no ssh master for ${store.host} (ssh_mux_only)`, hint: `open one (ssh -fN ${store.host}), then try again` };
  }
  const ssh = [...sshBase(env), ...sshOptions(cfg, env)].join(' ');
  const args = ['-r', '--list-only', '--no-human-readable', `--timeout=${setting(env, 'BRAIN_IO_TIMEOUT')}`, '-e', ssh, `${store.host}:${store.path}/`];
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    let stdout = '';
    let stderr = '';
    const c = spawn(cfg.rsync_path, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, TZ: 'UTC', LC_ALL: 'C' } as NodeJS.ProcessEnv });
    c.stdout.on('data', (d) => (stdout += d.toString()));
    c.stderr.on('data', (d) => (stderr += d.toString()));
    c.on('error', (e) => resolve({ code: null, stdout, stderr: e.message }));
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  if (r.code !== 0) {
    const f = classifyFailure(cfg, r.code, r.stderr, false)!;
    return { ok: false, label: f.label, message: f.message, hint: f.hint };
  }
  return { ok: true, machines: summarize(parseListing(r.stdout)) };
}

export function ageText(ms: number | null, now = Date.now()): string {
  if (ms === null) return 'no files';
  const d = now - ms;
  if (d < -60_000) return `${Math.round(-d / 60_000)} min in the future (clock skew?)`;
  const s = Math.max(0, Math.round(d / 1000));
  if (s < 90) return `${s}s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}
