// The scripted conversation as a flat list of events (user text, assistant text, shell call, its
// output), and the same projection of what the project's dialect makes of the captured lake file.
// Comparing the two proves the normaliser reads what the real CLI wrote today.
import * as path from 'node:path';
import type { Sandbox } from '../helpers/env';
import { laneRel, readTurns as readFileTurns } from '../../src/core/index/read';
import type { AgentLane } from './harness';
import type { Turn } from './standin';

export type Event =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'call'; command: string }
  | { kind: 'result'; output: string }
  /** Tool output no reply claimed: never expected, so it shows up as a difference. */
  | { kind: 'unclaimed'; output: string };

export function expectedTurns(script: Turn[], lane: AgentLane): Event[] {
  void lane;
  const out: Event[] = [];
  for (const t of script) {
    out.push({ kind: 'user', text: t.prompt });
    for (const r of t.replies) {
      if (r.text) out.push({ kind: 'assistant', text: r.text });
      if (r.shell) {
        out.push({ kind: 'call', command: r.shell });
        // Every scripted command is an echo; its output is the echoed words.
        out.push({ kind: 'result', output: r.shell.replace(/^echo\s+/, '') });
      }
    }
  }
  return out;
}

/** '' when equal; else a readable diff. Tool output is compared by containment: agents wrap it
 * (Codex adds "Process exited with code 0 / Output:" lines). */
export function sameTurns(got: Event[], want: Event[]): string {
  const show = (e: Event | undefined) => (e ? JSON.stringify(e) : '(nothing)');
  const lines: string[] = [];
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) {
    const g = got[i];
    const w = want[i];
    const ok =
      g &&
      w &&
      g.kind === w.kind &&
      (w.kind === 'result' ? (g as { output: string }).output.includes(w.output) : JSON.stringify(g) === JSON.stringify(w));
    if (!ok) lines.push(`#${i}: got ${show(g)}\n     want ${show(w)}`);
  }
  return lines.length ? `normalised turns differ from the script:\n${lines.join('\n')}\n--- got\n${got.map(show).join('\n')}` : '';
}

/** A shell call's command, whatever the agent's tool calls it (Bash {command}, exec_command {cmd},
 * shell {command: [bash, -lc, cmd]}, Pi bash {command}). */
export function commandOf(args: unknown): string {
  let a = args;
  if (typeof a === 'string') {
    try {
      a = JSON.parse(a);
    } catch {
      return a as string;
    }
  }
  const o = (a ?? {}) as { command?: unknown; cmd?: unknown };
  const c = o.command ?? o.cmd;
  if (Array.isArray(c)) return String(c[c.length - 1]);
  return String(c ?? '');
}

/** Reads the captured lake file through the project's own dialect (the one reader the index,
 * show and search use) and projects its turns onto the script's events. Recorded instructions
 * (system turns: environment context, skills listings) are not part of the conversation. */
export function readTurns(lane: AgentLane, sb: Sandbox, lakeRel: string): Event[] {
  const { rel } = laneRel(lakeRel);
  const r = readFileTurns(path.join(sb.brain, lakeRel), lane, rel, { full: true });
  if (!r) throw new Error(`no dialect reads ${lakeRel} (lane ${lane})`);
  if (r.counts.bad > 0) throw new Error(`${r.counts.bad} line(s) of ${lakeRel} did not parse`);
  const out: Event[] = [];
  for (const t of r.turns) {
    if (t.role === 'system') continue;
    if (t.role === 'user') out.push({ kind: 'user', text: t.text });
    else if (t.role === 'tool') out.push({ kind: 'unclaimed', output: t.tools.map((x) => x.output).join('\n') || t.text });
    else {
      if (t.text) out.push({ kind: 'assistant', text: t.text });
      for (const u of t.tools) {
        out.push({ kind: 'call', command: commandOf(u.arguments) });
        out.push({ kind: 'result', output: u.output });
      }
    }
  }
  return out;
}
