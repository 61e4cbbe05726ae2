// The store side: answers one request over a store folder (one BRAIN_HOME-shaped folder per
// machine). It runs where the data is: in this process for a local store folder, or on the ssh
// store host inside dist/remote.js (main.ts), which needs nothing there but node.
import { BrainError } from '../errors';
import { setting } from '../settings';
import { withDeadline } from '../safeopen';
import type { Env } from '../home';
import { storeRoot } from '../index/roots';
import { laneRel, readTurns } from '../index/read';
import { lakeFile } from '../index/lakepath';
import { cite, readSession, search, verify } from '../recall';
import { floorFiles } from '../recall/scan';
import { infoFromFile } from '../recall/session';
import { INDEX_OFF, type IndexUse, type SearchOutput } from '../recall/types';
import { listed, type ListedSession } from '../recall/floorview';
import type { StoreReplies, StoreReply, StoreRequest } from './protocol';

export interface HostOptions {
  index: IndexUse;
  /** Said instead of "the turn index is off" when the store side cannot keep one. */
  scanBecause?: string | null;
}

function noHits(term: string): SearchOutput {
  return { term, source: 'scan', fallback: null, tool_output_searched: true, total: 0, header: `0 sessions for ${JSON.stringify(term)}`, hits: [], refused: [] };
}

/** The answer to one request; a BrainError (a session not there, a store folder missing) comes
 * back as a value too, so the asking side can tell it from a connection that failed. */
export function answer(storePath: string, req: StoreRequest, env: Env, o: HostOptions): StoreReply {
  try {
    // Store folders are other machines' to fill: what one of them costs is bounded (safeopen.ts).
    const secs = setting(env, 'BRAIN_STORE_TIMEOUT');
    return { ok: true, value: withDeadline(secs, `the store side's ${req.op}`, () => run(storePath, req, env, o)) };
  } catch (e) {
    if (e instanceof BrainError) return { ok: false, error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } };
    return { ok: false, error: { code: 'store-side-failed', message: `the store side failed: ${(e as Error).message ?? String(e)}`, hint: 'this is a bug in brain; please report it with the message' } };
  }
}

function run(storePath: string, req: StoreRequest, env: Env, o: HostOptions): StoreReplies[StoreRequest['op']] {
  switch (req.op) {
    case 'search': {
      const root = storeRoot(storePath);
      const asked = req.input.machine ? new Set(req.input.machine.split(',').map((m) => m.trim())) : null;
      const machines = root.machines.map((m) => m.machine).filter((m) => !req.except.includes(m) && (!asked || asked.has(m)));
      if (machines.length === 0) return noHits(req.input.term);
      const r = search({ ...req.input, store: storePath, machine: machines.join(',') }, env, { index: o.index });
      if (r.fallback === INDEX_OFF && o.scanBecause) {
        r.header = r.header.replace(`scan (${INDEX_OFF})`, `scan (${o.scanBecause})`);
        r.fallback = o.scanBecause;
      }
      return r;
    }
    case 'read':
      return readSession({ ...req.input, store: storePath }, env, { index: o.index });
    case 'verify':
      return verify({ ...req.input, store: storePath }, env);
    case 'cite':
      return cite({ ...req.input, store: storePath }, env);
    case 'sessions':
      return sessions(storePath, req.except);
    case 'probe':
      return { node: process.version, scan_because: o.index === 'off' ? (o.scanBecause ?? INDEX_OFF) : null, machines: storeRoot(storePath).machines.map((m) => m.machine) };
    default:
      throw new BrainError('store-request', `the store side does not know ${JSON.stringify((req as { op?: unknown }).op)}`, 'use the same brain version on every machine');
  }
}

/** One entry per session (its newest generation), read by its dialect. `root` is the machine's
 * folder on the store side. */
function sessions(storePath: string, except: string[]): ListedSession[] {
  const root = storeRoot(storePath);
  root.machines = root.machines.filter((m) => !except.includes(m.machine));
  const newest = new Map<string, ReturnType<typeof floorFiles>[number]>();
  for (const f of floorFiles(root)) {
    const k = `${f.mf.machine}\0${f.lane}\0${f.session}`;
    const had = newest.get(k);
    if (!had || f.gen > had.gen) newest.set(k, f);
  }
  const out: ListedSession[] = [];
  for (const f of newest.values()) {
    try {
      let lines = 0;
      const r = readTurns(lakeFile(f.mf.dir, f.lake_path), f.lane, laneRel(f.lake_path).rel, { full: false, to: f.to, tail: f.unterminated, onBad: () => undefined });
      if (!r) continue;
      lines = r.turns.reduce((n, t) => Math.max(n, t.span.line_to), 0);
      const info = infoFromFile(f, r.facts, r.turns);
      out.push(listed(info, { root: f.mf.dir, lakePath: f.lake_path, bytes: f.to ?? 0, lines, project: info.project, cwd: r.facts.cwd ?? undefined }));
    } catch {
      /* a file refused or gone is left out of the list; search and verify name it */
    }
  }
  return out.sort((a, b) => (b.ended ?? '').localeCompare(a.ended ?? '') || a.session.localeCompare(b.session));
}
