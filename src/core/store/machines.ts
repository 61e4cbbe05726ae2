// Every machine in the store, read from the store itself (the one place every machine writes):
// its folder, the versions it has run (.brain/<version>.json, one file per version, never
// rewritten) and the age of its newest file. One listing of the store (transport.ts): read
// directly for a local folder, one `rsync --list-only` over ssh (reading only).
import type { Config } from '../config';
import type { Env } from '../home';
import { shownName, storeReserved } from '../machine';
import { openTransport, type StoreEntry } from './transport';

export { parseListing } from './ssh';

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

/** Folds a recursive listing (paths relative to the store root) into machines. */
export function summarize(entries: StoreEntry[]): MachineInfo[] {
  const by = new Map<string, MachineInfo>();
  const get = (m: string) => {
    let x = by.get(m);
    if (!x) by.set(m, (x = { machine: m, versions: [], newest: null, files: 0, bytes: 0, replaced: 0 }));
    return x;
  };
  for (const e of entries) {
    const parts = e.rel.split('/');
    if (parts.length === 0 || parts[0].startsWith('.') || parts[0] === '') continue;
    // The store root's own files (its turn index) are no machine; a folder whose name a machine
    // may not have is shown escaped, never as the name it imitates ("m2" and a zero-width space).
    if ((parts.length === 1 && !e.isDir) || storeReserved(parts[0])) continue;
    const m = get(shownName(parts[0]));
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

export async function listMachines(cfg: Config, env: Env): Promise<MachinesResult> {
  const store = cfg.store;
  if (!store) return { ok: false, label: 'backup not set up', message: `${cfg.file} has no [store]`, hint: 'run `brain init --store PATH`' };
  const t = openTransport(cfg, env);
  if (!(await t.ready())) {
    return { ok: false, label: `no ssh master for ${store.host}`, message: `no ssh master for ${store.host} (ssh_mux_only)`, hint: `open one (ssh -fN ${store.host}), then try again` };
  }
  const r = await t.list();
  if (!r.ok) return { ok: false, ...r.failure };
  return { ok: true, machines: summarize(r.value) };
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
