// What an agent brain can set up declares in its folder's harness.ts: its CLI and settings folder,
// and plans for brain init (the session-start hook, the MCP registration, the skill link). A plan
// only reads: it says what to change (new file content, or commands to run) and the generic code
// in core/harness and core/setup/hooks.ts applies it, so doctor runs the same plan and writes
// nothing.
import type { Env } from '../home';

/** How a harness starts `brain mcp`. */
export interface McpServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface RegPlan {
  /** The agent's lane. */
  harness: string;
  file: string;
  /** absent: harness not on this machine; ok; add / update: to do; foreign: a "brain" entry that
   * is not brain's; unparsable: the file cannot be read as its format (left alone). */
  action: 'absent' | 'ok' | 'add' | 'update' | 'foreign' | 'unparsable';
  detail: string;
  /** Commands of the harness's own CLI that make it right (run them, or print them without it). */
  commands?: string[][];
  /** Environment added when running them. */
  runEnv?: Record<string, string>;
  /** Or: the file's new text. */
  content?: string;
}

export interface HookPlanItem {
  /** The agent's lane. */
  agent: string;
  file: string;
  /** create: file missing; add: our entry missing; update: ours is there but different (or doubled);
   * ok: nothing to do; unparsable: left alone; foreign: a file of that name that is not ours. */
  action: 'create' | 'add' | 'update' | 'ok' | 'unparsable' | 'foreign';
  detail: string;
  /** New content when action is create/add/update. */
  content?: string;
  note?: string;
}

export interface Caller {
  session: string;
  /** Where the id came from, e.g. "env CLAUDE_CODE_SESSION_ID" or "_meta.threadId". */
  source: string;
}

export interface AgentHarness {
  /** Its CLI's name on PATH. */
  bin: string;
  /** The folder it keeps its settings in (there even when it runs as an editor extension). */
  configDir(env: Env): string;
  /** The user skill folder brain links its skill into. */
  skillsDir?(env: Env): string;
  /** A session-start hook that runs `brain hook <lane>`: the file and what to write there. */
  hookFile?(env: Env): string;
  planHook?(file: string, brainCmd: string[]): HookPlanItem;
  /** Registering `brain mcp` (reads only; see RegPlan). */
  planMcp?(spec: McpServerSpec, env: Env): RegPlan;
  /** Environment variables in which it names the session to the tools it starts. */
  sessionEnv?: readonly string[];
  /** The calling session from a tools/call request's _meta. */
  sessionFromMeta?(meta: Record<string, unknown>): Caller | null;
}
