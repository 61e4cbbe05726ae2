// What the front ends show about found secrets: the list with "rotate this" guidance and where
// each session lives (local lake file, origin, store copies), and a one-line summary for doctor,
// the status-bar tooltip and the Backup view. Read-only: reads the cache, the config and the store.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readConfig } from '../config';
import type { Env } from '../home';
import { readLedger } from '../store/ledger';
import { syncPaths } from '../store/paths';
import { readCache, type SecretFinding } from './cache';
import { rotateAdvice, rotateShort, type SecretKind } from './kinds';

export interface StoreCopies {
  /** none: no store configured; local: the store folder was looked at; ssh: not contacted, the
   * ledger of this machine's last sync was read instead; invalid: config.toml does not parse. */
  store: 'none' | 'local' | 'ssh' | 'invalid' | 'unreachable';
  /** Machine folders at the store holding <machine>/<lake_path>. */
  machines: string[];
  note?: string;
}

export interface SecretPlace extends SecretFinding {
  /** Absolute path of the lake file on this machine. */
  lake_file: string;
  store_copies: StoreCopies;
  /** The shell check of the citation: prints the sha256 when the line is unchanged. */
  check: string;
}

export interface SecretGroup {
  secret_id: string;
  kind: SecretKind;
  label: string;
  preview: string;
  rotate: string;
  first_seen: string;
  sessions: number;
  places: SecretPlace[];
}

export interface SecretsSummary {
  /** Findings (places) and distinct credentials. */
  count: number;
  secrets: number;
  sessions: number;
  newest: { first_seen: string; kind: SecretKind; label: string; preview: string; agent: string; session: string; rotate: string } | null;
  last_scan: string | null;
  /** Manifest bytes not scanned yet (0 when the guard is caught up). */
  pending_bytes: number;
  errors: number;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Finds which machine folders of the configured store hold each lake path. */
export function storeLocator(home: string, env: Env): (lakePath: string) => StoreCopies {
  const cfg = readConfig(home, env);
  if (cfg.kind === 'missing' || (cfg.kind === 'ok' && !cfg.config.store)) {
    return () => ({ store: 'none', machines: [], note: 'no store configured: the floor on this machine is the only copy' });
  }
  if (cfg.kind === 'invalid') return () => ({ store: 'invalid', machines: [], note: cfg.error.message });
  const { store, machine } = cfg.config;
  if (!store) throw new Error('unreachable');
  if (store.host) {
    // Listing an ssh store could prompt or hang; the ledger says what this machine's copy holds.
    const ledger = readLedger(syncPaths(home).ledger);
    return (lakePath) => ({
      store: 'ssh',
      machines: ledger.files[lakePath] ? [machine] : [],
      note: `ssh store ${store.host}:${store.path} not contacted; from this machine's last sync`,
    });
  }
  let folders: string[];
  try {
    folders = fs
      .readdirSync(store.path, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch (e) {
    const msg = `store ${store.path} cannot be read: ${(e as Error).message}`;
    return () => ({ store: 'unreachable', machines: [], note: msg });
  }
  return (lakePath) => ({
    store: 'local',
    machines: folders.filter((m) => fs.existsSync(path.join(store.path, m, lakePath))),
  });
}

/** Findings grouped by credential, newest first, each place with its store copies. */
export function listSecrets(home: string, env: Env): SecretGroup[] {
  const { cache } = readCache(home);
  if (cache.findings.length === 0) return [];
  const locate = storeLocator(home, env);
  const copies = new Map<string, StoreCopies>();
  const groups = new Map<string, SecretGroup>();
  for (const f of cache.findings) {
    const lp = f.citation.lake_path;
    let sc = copies.get(lp);
    if (!sc) copies.set(lp, (sc = locate(lp)));
    const lakeFile = path.join(home, lp);
    const place: SecretPlace = {
      ...f,
      lake_file: lakeFile,
      store_copies: sc,
      check: `sed -n '${f.citation.line_from === f.citation.line_to ? f.citation.line_from : `${f.citation.line_from},${f.citation.line_to}`}p' ${shellQuote(lakeFile)} | sha256sum`,
    };
    let g = groups.get(f.secret_id);
    if (!g) {
      groups.set(
        f.secret_id,
        (g = { secret_id: f.secret_id, kind: f.kind, label: f.label, preview: f.preview, rotate: rotateAdvice(f.kind), first_seen: f.first_seen, sessions: 0, places: [] }),
      );
    }
    g.places.push(place);
    if (f.first_seen < g.first_seen) g.first_seen = f.first_seen;
  }
  const out = [...groups.values()];
  for (const g of out) {
    g.sessions = new Set(g.places.map((p) => `${p.lane}/${p.session}`)).size;
    g.places.sort((a, b) => a.citation.lake_path.localeCompare(b.citation.lake_path) || a.citation.line_from - b.citation.line_from);
  }
  out.sort((a, b) => (a.first_seen < b.first_seen ? 1 : a.first_seen > b.first_seen ? -1 : a.label.localeCompare(b.label)));
  return out;
}

/** Counts and the newest finding, from the cache alone (cheap: for doctor, tooltips, views). */
export function secretsSummary(home: string): SecretsSummary {
  const { cache } = readCache(home);
  let manifestSize = 0;
  try {
    manifestSize = fs.statSync(path.join(home, 'manifest', 'manifest.jsonl')).size;
  } catch {
    /* no floor yet */
  }
  let newest: SecretFinding | null = null;
  for (const f of cache.findings) if (!newest || f.first_seen > newest.first_seen) newest = f;
  return {
    count: cache.findings.length,
    secrets: new Set(cache.findings.map((f) => f.secret_id)).size,
    sessions: new Set(cache.findings.map((f) => `${f.lane}/${f.session}`)).size,
    newest: newest
      ? { first_seen: newest.first_seen, kind: newest.kind, label: newest.label, preview: newest.preview, agent: newest.agent, session: newest.session, rotate: rotateShort(newest.kind) }
      : null,
    last_scan: cache.stats.last_scan,
    pending_bytes: Math.max(0, manifestSize - cache.scanned_to),
    errors: cache.errors.length,
  };
}

/** One line for a tooltip or a doctor check: "2 secrets in 1 session — rotate: …". */
export function summaryLine(s: SecretsSummary): string {
  if (s.count === 0) return s.last_scan ? 'no secrets found in captured sessions' : 'secret scan has not run yet';
  const n = s.newest;
  return `${s.secrets} secret${s.secrets === 1 ? '' : 's'} in ${s.sessions} session${s.sessions === 1 ? '' : 's'} — newest: ${n?.label} ${n?.preview} (${n?.agent}); run \`brain secrets\` and rotate`;
}
