// The recall tools as the worker answers them (LM tools, Search Sessions, Verify/Copy Citation).
// All read-only. Each goes to the core's recall function; where that has not landed yet, to the
// stopgap reader over the same floor (see stopgap.ts).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from '../core/errors';
import type { Env } from '../core/home';
import type { Citation } from '../core/turns';
import type { FloorView } from './floorview';
import { oneLine } from './floorview';
import type { SessionInfo, TurnView } from './protocol';

export interface RecallCtx {
  home: string;
  view: FloorView;
  env: Env;
}

export interface SearchHit {
  session: string;
  machine: string;
  agent: string;
  project: string;
  title: string;
  started: string | null;
  turns: number;
  matching_turns: number;
  snippets: { turn: number; role: string; text: string; citation: Citation }[];
}

function snippet(text: string, at: number, len: number): string {
  const from = Math.max(0, at - 80);
  const to = Math.min(text.length, at + len + 120);
  return `${from > 0 ? '…' : ''}${oneLine(text.slice(from, to), 240)}${to < text.length ? '…' : ''}`;
}

export function search(ctx: RecallCtx, input: { query: string; limit?: number; agent?: string; project?: string; machine?: string }): { hits: SearchHit[]; note: string } {
  const q = String(input.query ?? '').toLowerCase();
  if (!q) throw new BrainError('usage', 'query is empty', 'pass the words to look for');
  const limit = Math.min(Math.max(Number(input.limit ?? 10), 1), 50);
  const hits: SearchHit[] = [];
  for (const s of ctx.view.sessions()) {
    if (input.agent && s.lane !== input.agent && s.agentLabel.toLowerCase() !== String(input.agent).toLowerCase()) continue;
    if (input.machine && s.machine !== input.machine) continue;
    if (input.project && !s.project.toLowerCase().includes(String(input.project).toLowerCase())) continue;
    const v = ctx.view.view(s.session, s.machine);
    if (!v) continue;
    const matching = v.turns.filter((t) => t.text.toLowerCase().includes(q));
    if (!matching.length) continue;
    hits.push({
      session: s.session,
      machine: s.machine,
      agent: s.agentLabel,
      project: s.project,
      title: s.title,
      started: s.started,
      turns: s.turns,
      matching_turns: matching.length,
      snippets: matching.slice(0, 3).map((t) => ({ turn: t.index, role: t.role, text: snippet(t.text, t.text.toLowerCase().indexOf(q), q.length), citation: t.citation })),
    });
  }
  hits.sort((a, b) => b.matching_turns - a.matching_turns || String(b.started).localeCompare(String(a.started)));
  return { hits: hits.slice(0, limit), note: 'scan of user and assistant turn text' };
}

export function readSession(ctx: RecallCtx, input: { session: string; machine?: string; from?: number; to?: number }): { session: SessionInfo; turns: TurnView[]; total: number } {
  const v = ctx.view.view(String(input.session ?? ''), input.machine);
  if (!v) throw new BrainError('no-session', `no session ${JSON.stringify(input.session)} on the floor`, 'use brain_search to find a session id');
  const from = Math.max(1, Number(input.from ?? 1));
  const to = Math.min(v.turns.length, Number(input.to ?? from + 19));
  return { session: v.info, turns: v.turns.slice(from - 1, to), total: v.turns.length };
}

function lakeFile(ctx: RecallCtx, machine: string, lakePath: string): string {
  const root = machine ? ctx.view.rootOf(machine) : ctx.home;
  if (!root) throw new BrainError('no-machine', `machine ${JSON.stringify(machine)} is not on this floor or the store`, 'check the citation\'s machine');
  const rel = path.normalize(lakePath);
  if (rel.startsWith('..') || path.isAbsolute(rel) || !rel.startsWith('lake' + path.sep)) throw new BrainError('bad-path', `lake path ${JSON.stringify(lakePath)} is not inside lake/`, 'pass the lake_path of a citation');
  return path.join(root, rel);
}

/** Byte range of lines A..B (1-based, inclusive), as `sed -n 'A,Bp'` prints them. */
function lineRange(buf: Buffer, a: number, b: number): { from: number; to: number } | null {
  let line = 1;
  let pos = 0;
  let from = -1;
  while (pos <= buf.length) {
    if (line === a) from = pos;
    const nl = buf.indexOf(10, pos);
    const end = nl === -1 ? buf.length : nl + 1;
    if (line === b) return from >= 0 && end > from ? { from, to: end } : null;
    if (nl === -1) return null;
    pos = end;
    line++;
  }
  return null;
}

export function cite(ctx: RecallCtx, input: { machine?: string; lake_path: string; line_from: number; line_to: number }): Citation {
  const machine = input.machine || ctx.view.machine;
  const file = lakeFile(ctx, machine, input.lake_path);
  const a = Number(input.line_from);
  const b = Number(input.line_to ?? a);
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < a) throw new BrainError('usage', `line range ${a}..${b} is not valid`, 'line_from ≥ 1 and line_to ≥ line_from');
  const buf = fs.readFileSync(file);
  const r = lineRange(buf, a, b);
  if (!r) throw new BrainError('out-of-range', `${input.lake_path} has fewer than ${b} lines`, 'cite lines that exist');
  const gen = Number(/\.g(\d+)\.[^.]+$/.exec(input.lake_path)?.[1] ?? 1);
  return { machine, lake_path: input.lake_path, gen, line_from: a, line_to: b, byte_from: r.from, byte_to: r.to, sha256: createHash('sha256').update(buf.subarray(r.from, r.to)).digest('hex') };
}

export function verify(ctx: RecallCtx, input: { citation: Citation } | Citation): { ok: boolean; message: string; actual_sha256?: string } {
  const c = ('citation' in input ? input.citation : input) as Citation;
  let now: Citation;
  try {
    now = cite(ctx, { machine: c.machine, lake_path: c.lake_path, line_from: c.line_from, line_to: c.line_to });
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  if (now.sha256 === c.sha256 && now.byte_from === c.byte_from && now.byte_to === c.byte_to) return { ok: true, message: `lines ${c.line_from}-${c.line_to} of ${c.lake_path} hash to ${c.sha256}` };
  return { ok: false, message: `lines ${c.line_from}-${c.line_to} of ${c.lake_path} are bytes ${now.byte_from}-${now.byte_to} hashing to ${now.sha256}, not ${c.byte_from}-${c.byte_to} ${c.sha256}`, actual_sha256: now.sha256 };
}

export async function recall(tool: string, input: unknown, ctx: RecallCtx): Promise<unknown> {
  ctx.view.refresh();
  const i = (input ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  switch (tool) {
    case 'brain_search':
      return search(ctx, i as { query: string });
    case 'brain_read_session':
      return readSession(ctx, i as { session: string });
    case 'brain_cite':
      return cite(ctx, i as { lake_path: string; line_from: number; line_to: number });
    case 'brain_verify_citation':
      return verify(ctx, i as { citation: Citation });
    case 'brain_sql':
      throw new BrainError('unavailable', 'SQL over the DuckDB cache is not available in this build', 'use brain_search and brain_read_session');
    default:
      throw new BrainError('no-tool', `unknown tool ${tool}`);
  }
}
