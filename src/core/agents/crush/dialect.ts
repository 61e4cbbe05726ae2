// Crush's row records -> turns. A session's lake file holds its `sessions` row and its `messages`
// rows (kit/rows.ts gives their latest versions). A message has a role ('user', 'assistant',
// 'tool'), a model, created_at in seconds, and `parts`: a JSON array of {type, data}, where type is
// text ({text}), reasoning ({thinking}), tool_call ({id, name, input}), tool_result
// ({tool_call_id, content, is_error}), finish, image, binary. A 'tool' message carries the results
// of the assistant message before it, which they are joined to: it is no turn of its own (one with
// no reply before it is output nobody claimed). A user message is a prompt, an assistant message a
// reply; a deleted message, or one of another role, is an entry, not a turn, and only a reply's
// calls are calls (crush/views.sql reads the same rules).
import type { Span, Turn } from '../../turns';
import { addText, addThinking } from '../kit/parser';
import { cover, isoOf, rowsDialect, type RowSet, type RowsParser, type TurnMaker } from '../kit/rows';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function partsOf(v: unknown): Obj[] {
  const text = Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : null;
  if (!text) return [];
  try {
    const j = JSON.parse(text) as unknown;
    return Array.isArray(j) ? (j.filter((x) => obj(x)) as Obj[]) : [];
  } catch {
    return [];
  }
}

export function crushTurns(rows: RowSet, b: TurnMaker, p: RowsParser): void {
  const facts = p.sessionFacts;
  const ses = rows.rows('sessions')[0];
  if (ses) {
    facts.native_session = str(ses.cols.id);
    facts.title_hint = str(ses.cols.title);
    const parent = str(ses.cols.parent_session_id);
    if (parent) {
      facts.parent_session = parent;
      facts.subagent = true;
    }
    const cwd = str(ses.cols.workspace_cwd);
    if (cwd) facts.cwd = cwd;
  }
  const msgs = rows.rows('messages').slice().sort((x, y) => Number(x.cols.created_at ?? 0) - Number(y.cols.created_at ?? 0) || (String(x.cols.id) < String(y.cols.id) ? -1 : 1));
  let last: Turn | null = null;
  for (const m of msgs) {
    const role = str(m.cols.role);
    const ts = isoOf(m.cols.created_at);
    p.seenTs(ts);
    const parts = partsOf(m.cols.parts);
    if (role === 'tool' && last && !m.deleted) {
      joinResults(last, parts, p.full);
      last.span = cover([last.span, m.span]);
      continue;
    }
    const t = m.deleted ? b.turn('system', 'notice', ts, m.span) : entryOf(b, role, ts, m.span);
    if (role === 'assistant') t.model = str(m.cols.model);
    for (const part of parts) {
      const d = obj(part.data) ?? part;
      const type = str(part.type);
      if (type === 'text') addText(t, str(d.text) ?? '');
      else if (type === 'reasoning' && p.full) addThinking(t, str(d.thinking) ?? '');
      else if (type === 'tool_call') t.tools.push({ id: str(d.id), name: str(d.name) ?? 'tool', arguments: p.full ? (str(d.input) ?? '') : '', output: '', is_error: false });
      else if (type === 'tool_result' && t.role === 'tool') addText(t, str(d.content) ?? '');
    }
    if (m.deleted) t.text = `[deleted] ${t.text}`.trim();
    b.emit(t);
    last = t.role === 'assistant' ? t : null;
  }
}

/** A message as an entry: a prompt, a reply, output nobody claimed (a tool message with no reply
 * before it), or (a system message, a role Crush may add) instructions, not a turn. */
function entryOf(b: TurnMaker, role: string | null, ts: string | null, span: Span): Turn {
  if (role === 'user') return b.turn('user', 'prompt', ts, span);
  if (role === 'assistant') return b.turn('assistant', 'reply', ts, span);
  if (role === 'tool') return b.turn('tool', 'output', ts, span);
  return b.turn('system', 'instructions', ts, span);
}

/** A tool message's results, joined to the reply's calls they answer. */
function joinResults(reply: Turn, parts: Obj[], full: boolean): void {
  for (const part of parts) {
    const d = obj(part.data) ?? part;
    const call = reply.tools.find((t) => t.id === str(d.tool_call_id));
    if (!call) continue;
    if (full) call.output = str(d.content) ?? '';
    call.is_error = d.is_error === true;
  }
}

export const crushDialect = rowsDialect(crushTurns);
