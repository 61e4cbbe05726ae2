// The scripted conversation as a flat list of events (user text, assistant text, shell call, its
// output), and the same projection of what the project's dialect makes of the captured lake file.
// Comparing the two proves the normaliser reads what the real CLI wrote today.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Sandbox } from '../helpers/env';
import type { AgentLane } from './harness';
import type { Turn } from './standin';

export type Event =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'call'; command: string }
  | { kind: 'result'; output: string };

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

/** Reads the captured session through the project's dialect. The dialect module is engineer A's
 * (src/core/agents/dialects.ts); until it lands this says so instead of passing. */
export function readTurns(lane: AgentLane, sb: Sandbox, lakeRel: string, session: string): Event[] {
  const modPath = path.resolve(__dirname, '..', '..', 'src', 'core', 'agents', 'dialects');
  if (!fs.existsSync(modPath + '.ts')) throw new Error(`the turn normaliser is not there yet: ${modPath}.ts (engineer A's dialects); this case runs once it lands`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(modPath) as Record<string, unknown>;
  void mod;
  void sb;
  void lakeRel;
  void session;
  throw new Error(`adapt test/agents/turns.ts readTurns to the dialect interface in ${modPath}.ts`);
}
