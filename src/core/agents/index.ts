// The agent registry. Adding an agent is one folder (src/core/agents/<lane>/: index.ts, paths.ts,
// dialect.ts, views.sql, optionally harness.ts) plus one line in BUILTIN_AGENTS below; everything
// that names agents (capture, the turn index, the SQL schema, --agent, help texts, the tools'
// descriptions, brain init's harness steps) reads the registry instead of a list of its own.
import { BrainError } from '../errors';
import type { AgentHarness } from './harness';
import type { AgentDef } from './types';
import { cc } from './cc';
import { codex } from './codex';
import { pi } from './pi';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { copilot } from './copilot';
import { cline } from './cline';
import { clineCli } from './cline_cli';
import { roo } from './roo';
import { kiloExt } from './kilo_ext';
import { continueAgent } from './continue';
import { opencode } from './opencode';
import { kilo } from './kilo';
import { crush } from './crush';
import { goose } from './goose';
import { zed } from './zed';
import { kiro } from './kiro';
import { warp } from './warp';
import { cursorIde } from './cursor_ide';

// kilo and crush after opencode: their views.sql use the macros opencode's defines.
const BUILTIN_AGENTS = [cc, codex, pi, cursor, gemini, copilot, cline, clineCli, roo, kiloExt, continueAgent, opencode, kilo, crush, goose, zed, kiro, warp, cursorIde] as const;

/** An agent's short code (lake/<lane>/, the manifest's lane). */
export type Lane = (typeof BUILTIN_AGENTS)[number]['lane'];

/** An agent of the registry. */
export type Agent = AgentDef<Lane>;

/** The part of an agent capture needs. */
export type AgentPaths = Pick<Agent, 'lane' | 'agent' | 'label' | 'roots' | 'sessionOf' | 'rewritesWhole' | 'databases'>;

export type { AgentDef, AgentFiles, OriginRoot } from './types';
export type { DbOrigin, DbTable } from './kit/sqlite';
export { defineAgent } from './types';
export type { AgentHarness } from './harness';

const LANE = /^[a-z][a-z0-9_]*$/;

export class AgentRegistry {
  readonly list: readonly Agent[];
  private readonly names = new Map<string, Agent>();

  /** Refuses two agents with one lane or one name, and a lane that cannot name a SQL view. */
  constructor(list: readonly AgentDef[]) {
    this.list = list as readonly Agent[];
    for (const a of this.list) {
      if (!LANE.test(a.lane)) throw new Error(`agent lane "${a.lane}": use lowercase letters, digits and _`);
      for (const n of this.namesOf(a)) {
        const other = this.names.get(n);
        if (other && other !== a) throw new Error(`agents ${other.lane} and ${a.lane} both answer to "${n}"`);
        this.names.set(n, a);
      }
    }
  }

  private namesOf(a: Agent): string[] {
    return [...new Set([a.lane, a.agent, a.label, ...a.aliases].map((n) => n.toLowerCase()))];
  }

  /** The same agents plus more (a test's toy agent). */
  with(...more: AgentDef[]): AgentRegistry {
    return new AgentRegistry([...this.list, ...more]);
  }

  byLane(lane: string): Agent | undefined {
    return this.list.find((a) => a.lane === lane);
  }

  /** An agent by any of its names: lane, agent name, display name or an alias (any case). */
  find(name: string): Agent | undefined {
    return this.names.get(name.trim().toLowerCase());
  }

  /** A comma-separated list of agent names, as every --agent option and tool filter takes it. */
  parse(spec: string): Agent[] {
    const out: Agent[] = [];
    for (const raw of spec.split(',').map((x) => x.trim()).filter(Boolean)) {
      const a = this.find(raw);
      if (!a) throw new BrainError('usage', `unknown agent "${raw}"`, `agents: ${this.list.map((x) => (x.agent === x.lane ? x.lane : `${x.lane} (${x.agent})`)).join(', ')}`);
      if (!out.includes(a)) out.push(a);
    }
    return out;
  }

  /** "Claude Code, Codex and Pi": the display names, for prose. */
  labels(): string {
    const l = this.list.map((a) => a.label);
    return l.length <= 1 ? (l[0] ?? '') : `${l.slice(0, -1).join(', ')} and ${l[l.length - 1]}`;
  }

  /** "cc, codex, pi": the lanes, for option help. */
  lanes(): string {
    return this.list.map((a) => a.lane).join(', ');
  }

  /** What an agent filter takes, for option help and the tools' input schemas. */
  filterHelp(): string {
    const named = this.list.find((a) => a.agent !== a.lane);
    return `only these agents, comma-separated: ${this.lanes()}${named ? ` (or an agent's name, e.g. ${named.agent})` : ''}`;
  }

  /** "dialects.v_cc, v_codex": the dialect views, for the SQL tools' help. */
  dialectViews(): string {
    return this.list.map((a, i) => `${i === 0 ? 'dialects.' : ''}v_${a.lane}`).join(', ');
  }

  /** The environment variables that move the agents' folders. */
  envVars(): string[] {
    return [...new Set(this.list.flatMap((a) => a.env))];
  }
}

/** The agents this build knows. */
export const BUILTIN = new AgentRegistry(BUILTIN_AGENTS);

let active = BUILTIN;

/** The registry everything reads. */
export function registry(): AgentRegistry {
  return active;
}

/** Test hook: makes `r` the registry until the returned function is called. Parse threads know
 * only the built-in agents, so the turn index parses in its own thread meanwhile. */
export function useRegistry(r: AgentRegistry): () => void {
  const prev = active;
  active = r;
  return () => {
    active = prev;
  };
}

export function agents(): readonly Agent[] {
  return active.list;
}

/** The agents brain can set up (init's hook, MCP and skill steps), in registry order. */
export function harnessAgents(): (Agent & { harness: AgentHarness })[] {
  return active.list.filter((a): a is Agent & { harness: AgentHarness } => !!a.harness);
}

export function agentByLane(lane: string): Agent | undefined {
  return active.byLane(lane);
}

/** How a lane's lake files become turns. */
export function dialectFor(lane: string): Agent['dialect'] | undefined {
  return active.byLane(lane)?.dialect;
}
