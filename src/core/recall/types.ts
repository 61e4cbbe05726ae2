// The recall surface, declared once: each tool's input (as a JSON Schema the MCP server and the
// VS Code language-model tools hand over verbatim, and as a TypeScript type) and its output. The
// CLI's --json prints these outputs as they are.
import type { Citation, Role, Tokens, TurnKind } from '../turns';
import { registry } from '../agents';
import type { SqlColumn, SqlResult } from '../cache/query';

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// ---------------------------------------------------------------- shared

/** A session as every recall tool shows it. */
export interface SessionInfo {
  /** The floor's session id (from the file name), what `show` and `read` take. */
  session: string;
  /** Long agent name (the registry's `agent`). */
  agent: string;
  lane: string;
  machine: string;
  /** Working directory of the session (the transcript's, else the hook's meta record). */
  project: string | null;
  /** Git remote or common dir from the meta record, when a hook took one. */
  repo: string | null;
  started: string | null;
  ended: string | null;
  /** The first user prompt (or the agent's own title when there is none). */
  title: string;
  /** User and assistant turns in the session. */
  turns: number;
  /** The id the agent itself wrote, when it differs from `session`. */
  native_session: string | null;
  parent_session: string | null;
  subagent: boolean;
  /** The session's tokens (truth.ts: each reply once, plus usage no reply claims), when read
   * from its file (show); absent in a listing. */
  tokens?: Tokens;
}

/** How recall uses the turn index (turns.sqlite). 'live' (the default): open it and bring it up to
 * date first, which writes. 'snapshot': search reads a private copy of the file when it is whole
 * and current, and nothing else opens it, so nothing is written (brain mcp). 'off': read the files
 * (brain search --scan). */
export type IndexUse = 'live' | 'snapshot' | 'off';

/** What the caller decides about a recall call (not part of a tool's input). */
export interface RecallOptions {
  index?: IndexUse;
  /** 'live' in a long-lived process (the editor's worker): keep the index open between searches. */
  keepOpen?: boolean;
}

/** Why a search read the files when the caller turned the index off. */
export const INDEX_OFF = 'the turn index is off';

// ---------------------------------------------------------------- search

export interface SearchInput {
  /** Literal text, matched case-insensitively as a substring. */
  term: string;
  /** Lanes or agent names from the registry, comma-separated. */
  agent?: string;
  /** Glob over the project path, its last folder name, or the repo (case-insensitive). */
  project?: string;
  /** Machine name(s), comma-separated. */
  machine?: string;
  /** Sessions active since: an ISO date/time, or 30m, 12h, 7d, 2w. */
  since?: string;
  /** Sessions listed (default 20). */
  limit?: number;
  /** A session id to leave out: the session that is searching. */
  skip?: string;
  /** Date order (newest first) within each tier instead of most matching turns first. */
  newest?: boolean;
  /** Search a store folder (every machine in it) instead of BRAIN_HOME. */
  store?: string;
}

export type SnippetField = 'text' | 'thinking' | 'tool_arguments' | 'tool_output' | 'instructions' | 'unparsed_line';

export interface Snippet {
  /** Turn number in the session (0 for a line that is not a turn). */
  turn: number;
  role: Role | null;
  field: SnippetField;
  text: string;
  /** The generation of the session file it is in (a rewrite opens a new one; see docs/floor.md). */
  gen: number;
  /** The newest generation no longer holds it: only an older one does. */
  rewritten_away: boolean;
  citation: Citation;
}

export interface SearchHit extends SessionInfo {
  /** 'turns': user or assistant text says it; 'tools': only tool output, thinking, tool
   * arguments or an unparsed line do. */
  tier: 'turns' | 'tools';
  /** Turns that hold the term (in the tier's sense). */
  matching_turns: number;
  /** The generation the first snippet is in: the newest that holds the term. */
  gen: number;
  /** Only generations older than the newest hold the term (rewritten away). */
  rewritten_away: boolean;
  snippets: Snippet[];
}

/** A floor file recall would not read: its lake_path (from a manifest, or the index built from
 * one) leaves the machine's folder, or a symlink sits on its way. Its bytes are never read. */
export interface RefusedFile {
  machine: string;
  lake_path: string;
  /** The session the manifest says the file holds, when known. */
  session?: string;
  problem: string;
}

export interface SearchOutput {
  term: string;
  /** 'index': the turn index answered the turn tier; 'scan': the files were read. */
  source: 'index' | 'scan';
  /** Why the scan was used instead of the index. */
  fallback: string | null;
  /** Whether tool output, thinking and arguments were searched (only while the list has room). */
  tool_output_searched: boolean;
  /** Sessions found in the searched tiers, before --limit. */
  total: number;
  /** One line saying all of the above. */
  header: string;
  hits: SearchHit[];
  /** Floor files left unread because their path is not safe to follow (empty when none). */
  refused: RefusedFile[];
  /** With a store configured: whether the other machines were searched there, and how. */
  store?: StoreSearched;
}

export interface StoreSearched {
  /** `host:path` or the store folder. */
  label: string;
  searched: boolean;
  /** Why the other machines were not searched (this machine's hits alone are listed). */
  note: string | null;
  source?: 'index' | 'scan';
  fallback?: string | null;
}

// ---------------------------------------------------------------- read

export interface ReadInput {
  /** Session id, the agent's own id, or an unambiguous prefix. */
  session: string;
  /** Turn range "A..B", "A..", "..B" or "A" (1-based, inclusive). Default: all. */
  turns?: string;
  /** Which machine's session, when the id exists on several. */
  machine?: string;
  /** Longest text per field (thinking, each tool's arguments and output) before it is cut; 0 = no cut. */
  max_chars?: number;
  /** One generation of the session's file as it was; default: one timeline of all of them. */
  gen?: number;
  store?: string;
  /** Which agent's session, when the id names sessions of several (any of its names). */
  agent?: string;
}

export interface ToolView {
  name: string;
  arguments: string;
  output: string;
  is_error: boolean;
}

export interface TurnView {
  n: number;
  role: Role;
  kind: TurnKind;
  text: string;
  thinking: string;
  tools: ToolView[];
  model: string | null;
  ts: string | null;
  tokens: Tokens | null;
  sidechain: boolean;
  branch: boolean;
  /** The generation of the session file this entry is read from. */
  gen: number;
  /** Set when the newest generation no longer holds this entry: the first and last generation
   * that do, and the newest generation's turn it follows (its n; 0: it comes before the first). */
  rewritten_away: { gens: [number, number]; after: number } | null;
  citation: Citation;
}

export interface ReadOutput {
  session: SessionInfo;
  /** The generation asked for; null: one timeline of every generation (the newest's entries and,
   * in place, those only an older one holds). */
  gen: number | null;
  /** The generations the session's file has (1 until an agent rewrites it). */
  generations: number[];
  /** Entries in the session (all roles). */
  total: number;
  /** Lines the dialect could not read (still on the floor). */
  unparsed_lines: number;
  turns: TurnView[];
}

// ---------------------------------------------------------------- cite / verify

export interface CiteInput {
  /** Path relative to the machine's floor, e.g. lake/cc/<project>/<session>.jsonl. */
  lake_path: string;
  line_from: number;
  line_to: number;
  machine?: string;
  store?: string;
}

export type CiteOutput = Citation & {
  /** Present when the range asked for ran past the file's end and was cut to its last line. */
  clamped?: { asked_line_to: number; message: string };
};

export interface VerifyInput {
  citation: Citation;
  store?: string;
}

export interface VerifyOutput {
  ok: boolean;
  /** The file that was read. */
  path: string;
  /** sha256 of the cited bytes as they are now (null when they could not be read). */
  sha256: string | null;
  /** What does not match, when not ok. */
  problem: string | null;
  citation: Citation;
}

// ---------------------------------------------------------------- JSON Schemas

export type JsonSchema = {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
};

const store = { type: 'string', description: 'Read a store folder (one folder per machine) instead of this machine\'s BRAIN_HOME.' };
const machine = { type: 'string', description: 'Machine name (as in citations and the store\'s folders).' };

export const SEARCH_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    term: { type: 'string', minLength: 1, description: 'Literal text to find, case-insensitive substring (code identifiers, paths, phrases).' },
    agent: { type: 'string', description: `${sentence(registry().filterHelp())}.` },
    project: { type: 'string', description: 'Glob over the project path, its last folder name, or the git remote (case-insensitive), e.g. "*brain*".' },
    machine: { type: 'string', description: 'Only these machines (comma-separated).' },
    since: { type: 'string', description: 'Only sessions active since this ISO date/time, or 30m, 12h, 7d, 2w ago.' },
    limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Sessions to list (default 20).' },
    skip: { type: 'string', description: 'A session id to leave out (the session that is searching).' },
    newest: { type: 'boolean', description: 'Newest first within each tier, instead of most matching turns first.' },
    store,
  },
  required: ['term'],
  additionalProperties: false,
};

export const READ_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    session: { type: 'string', minLength: 1, description: 'Session id (from search), the agent\'s own id, or an unambiguous prefix.' },
    turns: { type: 'string', pattern: '^(\\d+)?(\\.\\.)?(\\d+)?$', description: 'Turn range "A..B", "A..", "..B" or "A" (1-based).' },
    machine,
    max_chars: { type: 'integer', minimum: 0, description: 'Cut thinking and each tool argument/output to this many characters (default 2000, 0 = never).' },
    gen: { type: 'integer', minimum: 1, description: 'Read this generation of the session file as it was (a rewrite by the agent opens a new one); default: the newest, with what only older ones held marked rewritten_away.' },
    store,
    agent: { type: 'string', minLength: 1, description: 'Which agent\'s session, when the id names sessions of several agents.' },
  },
  required: ['session'],
  additionalProperties: false,
};

export const CITE_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    lake_path: { type: 'string', minLength: 1, description: 'Floor path of the file, e.g. lake/cc/<project>/<session>.jsonl.' },
    line_from: { type: 'integer', minimum: 1, description: 'First line (1-based).' },
    line_to: { type: 'integer', minimum: 1, description: 'Last line (inclusive).' },
    machine,
    store,
  },
  required: ['lake_path', 'line_from', 'line_to'],
  additionalProperties: false,
};

export const CITATION_SCHEMA = {
  type: 'object',
  properties: {
    machine: { type: 'string' },
    lake_path: { type: 'string' },
    gen: { type: 'integer', minimum: 1 },
    line_from: { type: 'integer', minimum: 1 },
    line_to: { type: 'integer', minimum: 1 },
    byte_from: { type: 'integer', minimum: 0 },
    byte_to: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    // What cite adds beside the citation proper: a citation it returned verifies as it is.
    clamped: { type: 'object' },
  },
  required: ['machine', 'lake_path', 'gen', 'line_from', 'line_to', 'byte_from', 'byte_to', 'sha256'],
  additionalProperties: false,
} as const;

export const VERIFY_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    citation: { ...CITATION_SCHEMA, description: 'A citation as search, read or cite returned it.' },
    store,
  },
  required: ['citation'],
  additionalProperties: false,
};

/** The read-only SQL tool's input (brain_sql in VS Code, sql over MCP): declared once, beside the others. */
export const SQL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'One read-only DuckDB statement (SELECT, WITH … SELECT, DESCRIBE, SHOW).' },
    limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Most rows returned (default 100).' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

// ---------------------------------------------------------------- the tools

/** Each recall tool's one name. The MCP server offers it as it is; VS Code's language-model tools
 * share one namespace with every extension, so there it carries LM_TOOL_PREFIX (brain_search). */
export const TOOL_NAMES = ['search', 'read_session', 'cite', 'verify_citation', 'sql'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export const LM_TOOL_PREFIX = 'brain_';
export type LmToolName = `${typeof LM_TOOL_PREFIX}${ToolName}`;
export const lmToolName = (t: ToolName): LmToolName => `${LM_TOOL_PREFIX}${t}`;

/** Each tool's input schema by its name (package.json's LM tools declare the same, a test checks). */
export const INPUT_SCHEMAS: Record<ToolName, JsonSchema | typeof SQL_INPUT_SCHEMA> = {
  search: SEARCH_INPUT_SCHEMA,
  read_session: READ_INPUT_SCHEMA,
  cite: CITE_INPUT_SCHEMA,
  verify_citation: VERIFY_INPUT_SCHEMA,
  sql: SQL_INPUT_SCHEMA,
};

export interface RecallToolSpec {
  /** sql is declared by its front ends: it reads the DuckDB cache, not the floor. */
  name: Exclude<ToolName, 'sql'>;
  title: string;
  description: string;
  inputSchema: JsonSchema;
}

/** The recall tools as MCP and the VS Code LM tools declare them (read-only, all of them). */
export const RECALL_TOOLS: RecallToolSpec[] = [
  {
    name: 'search',
    title: 'Search past agent sessions',
    description:
      `Find earlier coding-agent sessions (${registry().labels()}) on this machine or a store of all machines that mention a literal text. Sessions where the user or assistant said it come first, most matching turns first; then sessions where only tool output, thinking or tool arguments hold it. Each hit has up to 3 snippets with citations.`,
    inputSchema: SEARCH_INPUT_SCHEMA,
  },
  {
    name: 'read_session',
    title: 'Read a past session',
    description:
      'Read the turns of one recorded session (a range of turns, or all): user prompts, assistant replies, tool calls with their output, each turn with a citation into the floor.',
    inputSchema: READ_INPUT_SCHEMA,
  },
  {
    name: 'cite',
    title: 'Cite floor lines',
    description:
      'A citation for lines A..B of a floor file: machine, path, generation, line and byte range, and the sha256 of exactly those bytes (checkable with sed -n \'A,Bp\' FILE | sha256sum).',
    inputSchema: CITE_INPUT_SCHEMA,
  },
  {
    name: 'verify_citation',
    title: 'Verify a citation',
    description: 'Re-hash a citation against the floor (or a store folder) and say whether the cited bytes are still exactly what it claims.',
    inputSchema: VERIFY_INPUT_SCHEMA,
  },
];

/** A SQL result as the recall tools answer it: rows as objects keyed by column (what a model reads
 * most easily), with the caps that shaped it. Here, not in cache/, so callers need no DuckDB. */
export function rowsByColumn(r: SqlResult): { columns: SqlColumn[]; rows: Record<string, unknown>[]; truncated: boolean; limit: number; max_bytes: number; cut_values: number } {
  return {
    columns: r.columns,
    rows: r.rows.map((row) => Object.fromEntries(r.columns.map((c, k) => [c.name, row[k]]))),
    truncated: r.truncated,
    limit: r.limit,
    max_bytes: r.max_bytes,
    cut_values: r.cut_values,
  };
}
