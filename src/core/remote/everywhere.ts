// Recall over every machine: this machine's floor answers first (and alone when the store cannot
// be reached, saying so), then the store answers for every other machine where its data is
// (client.ts). A layer around the recall core: an input that names a store folder, or a machine
// with no store configured, gets the core's answer unchanged.
import * as path from 'node:path';
import { readConfig, type Config } from '../config';
import { BrainError } from '../errors';
import { brainHome, type Env } from '../home';
import { cite, readSession, search, verify } from '../recall';
import { checkLine, citedFile, shellQuote } from '../recall/cite';
import type { Citation } from '../turns';
import type { CiteInput, CiteOutput, ReadInput, ReadOutput, RecallOptions, SearchHit, SearchInput, SearchOutput, VerifyInput, VerifyOutput } from '../recall/types';
import type { ListedSession } from '../recall/floorview';
import { DEFAULT_LIMIT } from '../recall/search';
import { storeLabel } from '../store/rsync';
import { askStore } from './client';
import { plural, sourceText } from '../recall/words';

/** The configured store, when there is one (a config that does not read is the sync's to report). */
export function configuredStore(env: Env): Config | null {
  const c = readConfig(brainHome(env), env);
  return c.kind === 'ok' && c.config.store ? c.config : null;
}

function machineList(s?: string): string[] | null {
  return s ? s.split(',').map((x) => x.trim()).filter(Boolean) : null;
}

/** Both lists ranked as the core ranks one: the conversation tier first, most matching turns first
 * (or newest first), then start time. */
export function mergeHits(a: SearchHit[], b: SearchHit[], newest: boolean): SearchHit[] {
  const t = (h: SearchHit) => Date.parse(h.started ?? '') || 0;
  const tier = (h: SearchHit) => (h.tier === 'turns' ? 0 : 1);
  return [...a, ...b].sort((x, y) => tier(x) - tier(y) || (newest ? t(y) - t(x) || y.matching_turns - x.matching_turns : y.matching_turns - x.matching_turns || t(y) - t(x)) || x.session.localeCompare(y.session));
}


export async function searchEverywhere(input: SearchInput, env: Env, opts: RecallOptions = {}): Promise<SearchOutput> {
  if (input.store) return search(input, env, opts);
  const cfg = configuredStore(env);
  const wanted = machineList(input.machine);
  // The store host starts on its part first and works while this machine searches its own floor
  // (an ssh store: the connection and the remote search overlap the local one).
  const asking = cfg && !(wanted && wanted.every((m) => m === cfg.machine)) ? askStore(cfg, env, { op: 'search', input, except: [cfg.machine] }, opts.index) : null;
  const local = search(input, env, opts);
  if (!cfg || !asking) return local;
  const label = storeLabel(cfg);
  const a = await asking;
  if (a.kind !== 'value') {
    const why = a.kind === 'error' ? a.error.message : a.failure.message;
    const hint = a.kind === 'error' ? a.error.hint : a.failure.hint;
    const note = `other machines not searched: ${why}${hint ? ` (${hint})` : ''}; this machine only`;
    return { ...local, header: `${local.header} · ${note}`, store: { label, searched: false, note } };
  }
  const far = a.value;
  const limit = input.limit ?? DEFAULT_LIMIT;
  const all = mergeHits(local.hits, far.hits, !!input.newest);
  const hits = all.slice(0, limit);
  const total = local.total + far.total;
  const machines = [...new Set(far.hits.map((h) => h.machine))];
  const tools = local.tool_output_searched && far.tool_output_searched;
  const parts = [`${plural(total, 'session')} for ${JSON.stringify(input.term)}`];
  if (total > hits.length) parts.push(`showing ${hits.length}`);
  parts.push(`this machine: ${sourceText(local)}`);
  parts.push(`store ${label}${machines.length ? ` (${machines.join(', ')})` : ''}: ${sourceText(far)}`);
  parts.push(tools ? 'tool output searched' : 'tool output not searched: the list is full (raise --limit to search it)');
  const refused = [...local.refused, ...far.refused];
  if (refused.length) parts.push(`${plural(refused.length, 'floor file')} refused (unsafe path, not read)`);
  return {
    ...local,
    tool_output_searched: tools,
    total,
    header: parts.join(' · '),
    hits,
    refused,
    store: { label, searched: true, note: null, source: far.source, fallback: far.fallback },
  };
}

function unreachable(what: string, cfg: Config, why: string, hint?: string): BrainError {
  return new BrainError('store-unreachable', `${what}, and the store ${storeLabel(cfg)} could not be asked: ${why}`, hint);
}

/** A session of this machine from its floor; another machine's (or one not found here) from the store. */
export async function readEverywhere(input: ReadInput, env: Env, opts: RecallOptions = {}): Promise<ReadOutput> {
  if (input.store) return readSession(input, env, opts);
  const cfg = configuredStore(env);
  if (!cfg || input.machine === cfg.machine) return readSession(input, env, opts);
  if (!input.machine) {
    try {
      return readSession(input, env, opts);
    } catch (e) {
      if (!(e instanceof BrainError) || e.code !== 'not-found') throw e;
    }
  }
  const a = await askStore(cfg, env, { op: 'read', input }, opts.index === 'live' ? 'off' : opts.index);
  if (a.kind === 'value') return a.value;
  if (a.kind === 'error') throw a.error;
  throw unreachable(input.machine ? `session "${input.session}" is on ${input.machine}` : `no session "${input.session}" on this machine`, cfg, a.failure.message, a.failure.hint);
}

/** A citation of this machine against its floor; another machine's at the store. */
export async function verifyEverywhere(input: VerifyInput, env: Env): Promise<VerifyOutput> {
  if (input.store) return verify(input, env);
  const cfg = configuredStore(env);
  if (!cfg || input.citation?.machine === cfg.machine) return verify(input, env);
  const a = await askStore(cfg, env, { op: 'verify', input }, 'off');
  if (a.kind === 'error') throw a.error;
  if (a.kind === 'unreachable') throw unreachable(`the citation is of ${input.citation.machine}`, cfg, a.failure.message, a.failure.hint);
  const r = a.value;
  return cfg.store!.host ? { ...r, path: `${cfg.store!.host}:${r.path}` } : r;
}

/** A citation of another machine's lines, made at the store. */
export async function citeEverywhere(input: CiteInput, env: Env): Promise<CiteOutput> {
  const cfg = configuredStore(env);
  if (input.store || !cfg || !input.machine || input.machine === cfg.machine) return cite(input, env);
  const a = await askStore(cfg, env, { op: 'cite', input }, 'off');
  if (a.kind === 'value') return a.value;
  if (a.kind === 'error') throw a.error;
  throw unreachable(`${input.lake_path} is on ${input.machine}`, cfg, a.failure.message, a.failure.hint);
}

/** The shell line that re-hashes a citation where its file is: here, in a local store folder, or
 * on the ssh store host (run through ssh). */
export function checkLineEverywhere(c: Citation, store: string | undefined, env: Env): string {
  const cfg = store ? null : configuredStore(env);
  if (!cfg || c.machine === cfg.machine) return checkLine(c, citedFile(c, store, env));
  const file = path.posix.join(cfg.store!.path, c.machine, c.lake_path);
  return cfg.store!.host ? `ssh ${cfg.store!.host} ${shellQuote(checkLine(c, file))}` : checkLine(c, file);
}

/** Every other machine's sessions at the store (the Sessions view), or why they could not be had. */
export async function storeSessions(env: Env): Promise<{ ok: true; label: string; sessions: ListedSession[] } | { ok: false; label: string; message: string }> {
  const cfg = configuredStore(env);
  if (!cfg) return { ok: false, label: '', message: 'no store configured' };
  const label = storeLabel(cfg);
  const a = await askStore(cfg, env, { op: 'sessions', except: [cfg.machine] }, 'off');
  // A session's root names the host too: the store host's folder is not a path here.
  if (a.kind === 'value') return { ok: true, label, sessions: cfg.store!.host ? a.value.map((s) => ({ ...s, root: `${cfg.store!.host}:${s.root}` })) : a.value };
  return { ok: false, label, message: a.kind === 'error' ? a.error.message : a.failure.message };
}
