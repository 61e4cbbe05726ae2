// `brain mcp`: the recall tools over MCP on stdio, on the official SDK's low-level Server, so each
// tool's JSON Schema goes out exactly as the core declares it (the high-level McpServer wants zod).
// It reads only: the floor, the manifest and, for SQL, the cache as it is. It never brings a cache
// up to date (that would write): search reads a private copy of turns.sqlite when that file is
// whole and current with the manifests (the recorder keeps it so), else the files; read_session
// reads the files (the index option 'snapshot'); SQL opens brain.duckdb read-only without updating it. Stdio
// only: no socket is ever opened.
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BrainError } from '../core/errors';
import { brainHome, type Env } from '../core/home';
import type { IndexUse } from '../core/recall/types';
import { ANNOTATIONS, DEFAULT_BUDGET, TOOLS, callTool, isUsage, toolByName, type ToolContext } from '../core/tools';
import { LineTransport } from './stdio';
import { registry } from '../core/agents';

export interface McpOptions {
  env: Env;
  /** Default store folder (every machine's floor) for calls that name none. */
  store?: string;
  /** Largest answer in characters (default DEFAULT_BUDGET). */
  budget?: number;
  version: string;
  /** Where diagnostics go (never stdout: that is the protocol). */
  log?: (line: string) => void;
  /** How search and read_session use the turn index (default 'snapshot': nothing is written). */
  index?: IndexUse;
}

const INSTRUCTIONS = `Agent Brain: every recorded coding-agent session (${registry().labels()}) on this machine, or on every machine in a store.
Use search to find what was said or decided before (a literal phrase, case-insensitive), read_session to read a session's turns (paged: pass "next" as turns), and quote facts with their citation. verify_citation re-hashes a citation; anyone can also check one with: sed -n 'line_from,line_to p' <floor>/<lake_path> | sha256sum. sql answers counts over the cache. Everything is read-only.`;

/** A JSON-RPC error as the SDK sends it (code, message). McpError would prefix its message with
 * "MCP error -32602:", and the client's McpError prefixes it again. */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function errorResult(e: unknown): CallToolResult {
  const err =
    e instanceof BrainError
      ? { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) }
      : { code: 'internal', message: e instanceof Error ? e.message : String(e) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: err }) }] };
}

/** How long a closing server waits for its calls to stop (an interrupted DuckDB statement stops
 * within milliseconds; a file read in progress finishes). */
const DRAIN_MS = 3000;

export interface BrainServer {
  server: Server;
  /** Resolves once no tool call is running, or after ms. */
  drained(ms: number): Promise<void>;
}

export function createServer(opts: McpOptions): BrainServer {
  const running = new Set<Promise<unknown>>();
  const budget = opts.budget ?? DEFAULT_BUDGET;
  // By default the core never opens the turn index for writing (an update, even opening it,
  // writes): search reads a private copy of it when the file is whole and current, else scans;
  // the rest reads the floor's files.
  const index = opts.index ?? 'snapshot';
  const env = opts.env;
  const home = brainHome(opts.env);
  const server = new Server({ name: 'agent-brain', title: 'Agent Brain', version: opts.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as never, annotations: { title: t.title, ...ANNOTATIONS } })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = toolByName(req.params.name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `unknown tool "${req.params.name}"; the tools are ${TOOLS.map((t) => t.name).join(', ')}`);
    // The signal aborts when the client cancels the call or goes away: the sql tool interrupts its
    // statement then.
    const ctx: ToolContext = { env, index, callerEnv: opts.env, store: opts.store, home, budget, meta: req.params._meta as Record<string, unknown> | undefined, signal: extra.signal };
    // Every answer goes out masked (the front door does it): it is sent on to a model provider.
    const call = callTool(tool.name, req.params.arguments ?? {}, ctx);
    running.add(call);
    void call.catch(() => undefined).finally(() => running.delete(call));
    try {
      const out = await call;
      return { content: [{ type: 'text', text: JSON.stringify(out) }] };
    } catch (e) {
      // Arguments that do not fit the declared schema are the caller's error: an MCP error that
      // names the field. Anything else the tool met (no such session, a refused write, a missing
      // cache) is the tool's answer, with what to do.
      if (isUsage(e)) throw new ProtocolError(ErrorCode.InvalidParams, `${tool.name}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
      if (!(e instanceof BrainError)) opts.log?.(`brain mcp: ${tool.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return errorResult(e);
    }
  });
  const drained = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (running.size > 0 && Date.now() < deadline) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...running]), new Promise((r) => (t = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
      clearTimeout(t);
    }
  };
  return { server, drained };
}

/** Serves on the given streams until the client closes stdin. Closing aborts the calls still
 * running (a SQL statement is interrupted) and waits a moment for them to stop. */
export async function serveStdio(opts: McpOptions, stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<void> {
  const { server, drained } = createServer(opts);
  const transport = new LineTransport(stdin, stdout);
  const closed = new Promise<void>((resolve) => (server.onclose = () => resolve()));
  server.onerror = (e) => opts.log?.(`brain mcp: ${e.message}`);
  await server.connect(transport);
  await closed;
  await drained(DRAIN_MS);
}
