// The sessions of every floor the extension can see: this machine's BRAIN_HOME and, for a local
// store, each other machine's <store>/<machine>/ folder. Kept current by reading each manifest on
// from where it was last read, so a refresh costs O(new manifest lines), plus one parse of each
// session file that grew. Runs in the worker, never on the extension host's main thread.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentByLane } from '../core/agents';
import { readConfig } from '../core/config';
import { layout, type Env } from '../core/home';
import { machineName } from '../core/machine';
import { readManifest, type ManifestLine } from '../core/floor/manifest';
import type { SessionInfo, SessionView } from './protocol';
import { parseLakeFile, type ParsedSession } from './stopgap';

interface FloorRoot {
  machine: string;
  root: string;
  local: boolean;
  read: number;
  sessions: Map<string, Acc>;
}

interface Acc {
  lane: string;
  session: string;
  gen: number;
  lakePath: string;
  bytes: number;
  lines: number;
  firstEvent: string | null;
  firstCapture: string | null;
  lastCapture: string | null;
  origin: string;
  parsedAt?: number;
  parsed?: ParsedSession;
}

export class FloorView {
  private roots = new Map<string, FloorRoot>();
  readonly home: string;
  readonly machine: string;

  constructor(home: string, private env: Env) {
    this.home = home;
    this.machine = machineName(home, env);
    this.roots.set(home, { machine: this.machine, root: home, local: true, read: 0, sessions: new Map() });
  }

  /** The store folder, when it is a local folder this process can read. */
  storeDir(): string | null {
    const c = readConfig(this.home, this.env);
    if (c.kind !== 'ok' || !c.config.store || c.config.store.host) return null;
    return c.config.store.path;
  }

  private discoverStore(): void {
    const store = this.storeDir();
    if (!store) return;
    let names: string[];
    try {
      names = fs.readdirSync(store);
    } catch {
      return;
    }
    for (const m of names) {
      if (m === this.machine || m.startsWith('.')) continue;
      const root = path.join(store, m);
      if (!this.roots.has(root) && fs.existsSync(layout(root).manifest)) {
        this.roots.set(root, { machine: m, root, local: false, read: 0, sessions: new Map() });
      }
    }
  }

  /** Reads new manifest lines everywhere; returns how many sessions changed. */
  refresh(): number {
    this.discoverStore();
    let changed = 0;
    for (const r of this.roots.values()) {
      const file = layout(r.root).manifest;
      let size: number;
      try {
        size = fs.statSync(file).size;
      } catch {
        continue;
      }
      if (size < r.read) r.read = 0; // a store copy replaced under us: read it again
      if (size === r.read) continue;
      const got = readManifest(file, r.read);
      r.read = got.length;
      const touched = new Set<string>();
      for (const m of got.lines) {
        this.add(r, m);
        touched.add(`${m.lane}/${m.session}`);
      }
      changed += touched.size;
    }
    return changed;
  }

  private add(r: FloorRoot, m: ManifestLine): void {
    const key = `${m.lane}/${m.session}`;
    let a = r.sessions.get(key);
    if (!a || m.gen > a.gen) {
      a = { lane: m.lane, session: m.session, gen: m.gen, lakePath: m.lake_path, bytes: 0, lines: 0, firstEvent: m.event_ts_first, firstCapture: m.captured_at, lastCapture: m.captured_at, origin: m.origin_path, parsedAt: undefined };
      const prev = r.sessions.get(key);
      if (prev) {
        a.firstEvent = prev.firstEvent ?? a.firstEvent;
        a.firstCapture = prev.firstCapture;
      }
      r.sessions.set(key, a);
    }
    if (m.gen < a.gen) return;
    a.bytes = Math.max(a.bytes, m.byte_to);
    a.lines = Math.max(a.lines, m.line_to);
    a.lastCapture = m.captured_at;
    a.firstEvent ??= m.event_ts_first;
  }

  private parsed(r: FloorRoot, a: Acc): ParsedSession {
    if (a.parsed && a.parsedAt === a.bytes) return a.parsed;
    try {
      a.parsed = parseLakeFile(path.join(r.root, a.lakePath), a.lane, { machine: r.machine, lakePath: a.lakePath, gen: a.gen });
    } catch {
      a.parsed = { turns: [], firstTime: null, lastTime: null };
    }
    a.parsedAt = a.bytes;
    return a.parsed;
  }

  private info(r: FloorRoot, a: Acc): SessionInfo {
    const p = this.parsed(r, a);
    const firstUser = p.turns.find((t) => t.role === 'user');
    const lakeDir = a.lakePath.split('/').slice(2, -1);
    const project = p.cwd ?? (lakeDir.find((s) => s.startsWith('-')) ?? lakeDir[0] ?? '(unknown)');
    return {
      machine: r.machine,
      lane: a.lane,
      agentLabel: agentByLane(a.lane)?.label ?? a.lane,
      session: a.session,
      project,
      title: firstUser ? oneLine(firstUser.text, 120) : `(${a.session})`,
      started: p.firstTime ?? a.firstEvent ?? a.firstCapture,
      updated: p.lastTime ?? a.lastCapture,
      turns: p.turns.length,
      lakePath: a.lakePath,
      root: r.root,
      bytes: a.bytes,
      lines: a.lines,
      cwd: p.cwd,
      branch: p.branch,
      model: p.model,
      origin: a.origin,
    };
  }

  sessions(): SessionInfo[] {
    const out: SessionInfo[] = [];
    for (const r of this.roots.values()) for (const a of r.sessions.values()) out.push(this.info(r, a));
    return out;
  }

  find(session: string, machine?: string): { r: FloorRoot; a: Acc } | undefined {
    for (const r of this.roots.values()) {
      if (machine && r.machine !== machine) continue;
      for (const a of r.sessions.values()) if (a.session === session || a.lakePath === session) return { r, a };
    }
    return undefined;
  }

  view(session: string, machine?: string): SessionView | undefined {
    const f = this.find(session, machine);
    if (!f) return undefined;
    return { info: this.info(f.r, f.a), turns: this.parsed(f.r, f.a).turns };
  }

  /** The floor root holding a machine's lake (for verifying citations). */
  rootOf(machine: string): string | undefined {
    for (const r of this.roots.values()) if (r.machine === machine) return r.root;
    return undefined;
  }
}

export function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
