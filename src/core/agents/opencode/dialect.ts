// OpenCode's row records -> turns. A session's lake file holds the rows of its `session`, `message`
// and `part` tables (kit/rows.ts gives their latest versions). A message's `data` is JSON
// ({role, time.created, modelID, tokens, path.cwd, ...}); its parts (by message_id, in id order,
// which OpenCode makes ascending) are its content: `text` (synthetic ones are the harness's),
// `reasoning`, `tool` ({tool, callID, state: {status, input, output | error}}), step markers. A
// user message is a prompt; each assistant message is one reply (one model call). A message that
// was deleted is kept as a notice carrying its last text, so search finds it marked as deleted.
import type { Span, ToolUse, Turn } from '../../turns';
import { addText, addThinking } from '../kit/parser';
import { cover, isoOf, jsonCol, rowsDialect, type Row, type RowSet, type RowsParser, type TurnMaker } from '../kit/rows';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The turns of one OpenCode-family session from its rows. */
export function openCodeTurns(rows: RowSet, b: TurnMaker, p: RowsParser): void {
  const facts = p.sessionFacts;
  const ses = rows.rows('session').find((r) => !r.deleted) ?? rows.rows('session')[0];
  if (ses) {
    facts.native_session = str(ses.cols.id);
    facts.cwd = str(ses.cols.directory);
    facts.title_hint = str(ses.cols.title);
    const parent = str(ses.cols.parent_id);
    if (parent) {
      facts.parent_session = parent;
      facts.subagent = true;
    }
    p.seenTs(isoOf(ses.cols.time_created));
    p.seenTs(isoOf(ses.cols.time_updated));
  }
  const parts = new Map<string, Row[]>();
  for (const r of rows.rows('part')) {
    const m = str(r.cols.message_id);
    if (!m) continue;
    let a = parts.get(m);
    if (!a) parts.set(m, (a = []));
    a.push(r);
  }
  for (const a of parts.values()) a.sort((x, y) => (String(x.cols.id) < String(y.cols.id) ? -1 : 1));
  const msgs = rows
    .rows('message')
    .map((r) => ({ r, d: jsonCol(r.cols.data) ?? {} }))
    .sort((x, y) => num(x.r.cols.time_created) - num(y.r.cols.time_created) || (String(x.r.cols.id) < String(y.r.cols.id) ? -1 : 1));
  for (const { r, d } of msgs) {
    const role = str(d.role);
    const ts = isoOf(obj(d.time)?.created) ?? isoOf(r.cols.time_created);
    p.seenTs(ts);
    const mine = (parts.get(String(r.cols.id)) ?? []).filter((x) => !x.deleted || r.deleted);
    const span: Span = cover([r.span, ...mine.map((x) => x.span)]);
    const t: Turn = r.deleted ? b.turn('system', 'notice', ts, span) : role === 'user' ? b.turn('user', 'prompt', ts, span) : b.turn('assistant', 'reply', ts, span);
    const cwd = str(obj(d.path)?.cwd);
    if (cwd) {
      t.cwd = cwd;
      facts.cwd ??= cwd;
    }
    if (role === 'assistant') {
      t.model = str(d.modelID);
      const tk = obj(d.tokens);
      if (tk) {
        const cache = obj(tk.cache) ?? {};
        t.tokens = { input: num(tk.input), output: num(tk.output) + num(tk.reasoning), cache_creation: num(cache.write), cache_read: num(cache.read) };
      }
    }
    for (const part of mine) {
      const pd = jsonCol(part.cols.data);
      if (!pd) continue;
      const type = str(pd.type);
      if (type === 'text') {
        if (pd.synthetic === true && role === 'user') continue;
        addText(t, str(pd.text) ?? '');
      } else if (type === 'reasoning') {
        if (p.full) addThinking(t, str(pd.text) ?? '');
      } else if (type === 'tool') {
        const st = obj(pd.state) ?? {};
        const tool: ToolUse = {
          id: str(pd.callID),
          name: str(pd.tool) ?? 'tool',
          arguments: p.full && st.input !== undefined ? JSON.stringify(st.input) : '',
          output: p.full ? (str(st.output) ?? str(st.error) ?? '') : '',
          is_error: st.status === 'error',
        };
        t.tools.push(tool);
      }
      p.seenTs(isoOf(obj(pd.time)?.end));
    }
    if (r.deleted) t.text = `[deleted by ${role === 'user' ? 'the user' : 'the agent'}] ${t.text}`.trim();
    t.ts_last = isoOf(obj(d.time)?.completed) ?? ts;
    b.emit(t);
  }
}

export const openCodeDialect = rowsDialect(openCodeTurns);
