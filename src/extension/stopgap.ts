// STOPGAP until the recall core (src/core/recall, issue 3) lands: a small reader that turns one lake
// file into turns, so the Sessions view, the reader and search have something real to show. It is
// deliberately minimal (no branch/compaction handling, no token counts); every caller goes through
// floorview.ts, which switches to the core's functions as soon as they exist.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Citation } from '../core/turns';
import type { TurnView } from './protocol';

export interface ParsedSession {
  turns: TurnView[];
  cwd?: string;
  branch?: string;
  model?: string;
  firstTime: string | null;
  lastTime: string | null;
}

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function textOf(content: unknown, kinds = ['text', 'input_text', 'output_text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b: J) => b && kinds.includes(b.type) && typeof b.text === 'string')
    .map((b: J) => b.text as string)
    .join('\n');
}

function thinkingOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((b: J) => b && b.type === 'thinking' && typeof b.thinking === 'string')
    .map((b: J) => b.thinking as string)
    .join('\n');
}

function toolsOf(content: unknown): { name: string; input: string }[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((b: J) => b && (b.type === 'tool_use' || b.type === 'toolCall'))
    .map((b: J) => ({ name: String(b.name ?? 'tool'), input: JSON.stringify(b.input ?? b.arguments ?? {}, null, 1).slice(0, 4000) }));
}

/** System-injected user lines that are not the user's own words. */
function injected(text: string): boolean {
  const t = text.trimStart();
  return t.length === 0 || /^<(environment_context|user_instructions|permissions|INSTRUCTIONS|command-|local-command|system-reminder)/i.test(t) || t.startsWith('# AGENTS.md') || t.startsWith('Caveat:');
}

interface Line {
  no: number;
  from: number;
  to: number;
  j: J | null;
}

/** Reads a lake file's lines with their byte ranges (a torn last line included as it is). */
function readLines(file: string): { lines: Line[]; buf: Buffer } {
  const buf = fs.readFileSync(file);
  const lines: Line[] = [];
  let start = 0;
  let no = 0;
  while (start < buf.length) {
    let nl = buf.indexOf(10, start);
    const end = nl === -1 ? buf.length : nl + 1;
    no++;
    let j: J | null = null;
    try {
      j = JSON.parse(buf.toString('utf8', start, nl === -1 ? buf.length : nl));
    } catch {
      /* not JSON: still on the floor, not a turn */
    }
    lines.push({ no, from: start, to: end, j });
    start = end;
    nl = -1;
  }
  return { lines, buf };
}

export function parseLakeFile(file: string, lane: string, cite: { machine: string; lakePath: string; gen: number }): ParsedSession {
  const { lines, buf } = readLines(file);
  const out: ParsedSession = { turns: [], firstTime: null, lastTime: null };
  // A sub-agent's own file is all sidechain: there the sidechain is the conversation.
  const subagentFile = /(^|\/)agent-[^/]*$/.test(cite.lakePath);
  type Open = { role: TurnView['role']; text: string[]; thinking: string[]; tools: NonNullable<TurnView['tools']>; from: Line; to: Line; time: string | null; key?: string };
  let cur: Open | undefined;
  const close = () => {
    if (!cur) return;
    const text = cur.text.join('\n').trim();
    if (text || cur.tools.length || cur.thinking.length) {
      const c: Citation = {
        machine: cite.machine,
        lake_path: cite.lakePath,
        gen: cite.gen,
        line_from: cur.from.no,
        line_to: cur.to.no,
        byte_from: cur.from.from,
        byte_to: cur.to.to,
        sha256: createHash('sha256').update(buf.subarray(cur.from.from, cur.to.to)).digest('hex'),
      };
      out.turns.push({ index: out.turns.length + 1, role: cur.role, time: cur.time, text, thinking: cur.thinking.join('\n') || undefined, tools: cur.tools.length ? cur.tools : undefined, citation: c });
    }
    cur = undefined;
  };
  const open = (role: TurnView['role'], l: Line, time: string | null, key?: string) => {
    close();
    cur = { role, text: [], thinking: [], tools: [], from: l, to: l, time, key };
    return cur;
  };
  const stamp = (t: unknown) => {
    if (typeof t !== 'string') return null;
    if (!out.firstTime) out.firstTime = t;
    out.lastTime = t;
    return t;
  };
  const attachResult = (output: string) => {
    const t = cur?.tools.find((x) => x.output === undefined);
    if (t) t.output = output.slice(0, 4000);
  };

  for (const l of lines) {
    const j = l.j;
    if (!j || typeof j !== 'object') continue;
    if (lane === 'cc') {
      const time = stamp(j.timestamp);
      if (typeof j.cwd === 'string' && !out.cwd) out.cwd = j.cwd;
      if (typeof j.gitBranch === 'string' && j.gitBranch) out.branch = j.gitBranch;
      const m = j.message;
      if (!m || (j.isSidechain === true && !subagentFile)) continue;
      if (j.type === 'user' && m.role === 'user') {
        const results = Array.isArray(m.content) ? m.content.filter((b: J) => b?.type === 'tool_result') : [];
        if (results.length && cur?.role === 'assistant') {
          for (const r of results) attachResult(typeof r.content === 'string' ? r.content : textOf(r.content));
          cur.to = l;
          continue;
        }
        const text = textOf(m.content);
        if (j.isMeta || injected(text)) continue;
        open('user', l, time).text.push(text);
      } else if (j.type === 'assistant' && m.role === 'assistant') {
        if (typeof m.model === 'string' && !m.model.startsWith('<')) out.model = m.model;
        const t = cur && cur.role === 'assistant' && (cur.key === m.id || !m.id) ? cur : open('assistant', l, time, m.id);
        t.to = l;
        const text = textOf(m.content);
        if (text) t.text.push(text);
        const th = thinkingOf(m.content);
        if (th) t.thinking.push(th);
        t.tools.push(...toolsOf(m.content));
      }
    } else if (lane === 'codex') {
      const time = stamp(j.timestamp);
      const p = j.payload ?? j;
      if (j.type === 'session_meta') {
        if (typeof p.cwd === 'string') out.cwd = p.cwd;
        if (typeof p.git?.branch === 'string') out.branch = p.git.branch;
        continue;
      }
      if (j.type === 'turn_context') {
        if (typeof p.model === 'string') out.model = p.model;
        if (typeof p.cwd === 'string' && !out.cwd) out.cwd = p.cwd;
        continue;
      }
      if (j.type !== 'response_item' && !(j.type === undefined && p.type)) continue;
      if (p.type === 'message' && (p.role === 'user' || p.role === 'assistant')) {
        const text = textOf(p.content);
        if (p.role === 'user') {
          if (injected(text)) continue;
          open('user', l, time).text.push(text);
        } else {
          const t = cur?.role === 'assistant' ? cur : open('assistant', l, time);
          t.to = l;
          t.text.push(text);
        }
      } else if (p.type === 'reasoning') {
        const t = cur?.role === 'assistant' ? cur : open('assistant', l, time);
        t.to = l;
        const s = Array.isArray(p.summary) ? p.summary.map((x: J) => x?.text ?? '').join('\n') : '';
        if (s) t.thinking.push(s);
      } else if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') {
        const t = cur?.role === 'assistant' ? cur : open('assistant', l, time);
        t.to = l;
        t.tools.push({ name: String(p.name ?? p.type), input: String(p.arguments ?? p.input ?? JSON.stringify(p.action ?? {})).slice(0, 4000) });
      } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
        if (cur?.role === 'assistant') {
          cur.to = l;
          attachResult(typeof p.output === 'string' ? p.output : JSON.stringify(p.output));
        }
      }
    } else if (lane === 'pi') {
      const time = stamp(j.timestamp);
      if (j.type === 'session') {
        if (typeof j.cwd === 'string') out.cwd = j.cwd;
        if (typeof j.modelId === 'string') out.model = j.modelId;
        continue;
      }
      if (j.type === 'model_change' && typeof j.modelId === 'string') out.model = j.modelId;
      if (j.type !== 'message' || !j.message) continue;
      const m = j.message;
      if (m.role === 'user') {
        const text = textOf(m.content);
        if (injected(text)) continue;
        open('user', l, time).text.push(text);
      } else if (m.role === 'assistant') {
        if (typeof m.model === 'string') out.model = m.model;
        const t = open('assistant', l, time);
        t.text.push(textOf(m.content));
        const th = thinkingOf(m.content);
        if (th) t.thinking.push(th);
        t.tools.push(...toolsOf(m.content));
      } else if (m.role === 'toolResult' && cur?.role === 'assistant') {
        cur.to = l;
        attachResult(textOf(m.content));
      }
    } else {
      // cursor-agent (and anything else in {role, message:{content}} shape).
      const role = j.role ?? j.message?.role;
      const content = j.message?.content ?? j.content;
      if (role === 'user') {
        const text = textOf(content).replace(/<\/?user_query>/g, '').trim();
        if (injected(text)) continue;
        open('user', l, null).text.push(text);
      } else if (role === 'assistant') {
        const t = cur?.role === 'assistant' ? cur : open('assistant', l, null);
        t.to = l;
        const text = textOf(content);
        if (text) t.text.push(text);
        t.tools.push(...toolsOf(content));
      }
    }
  }
  close();
  return out;
}
