// The parts of package.json's `contributes` that name agents or restate the core: every LM tool's
// input schema (the core's declared inputs), the descriptions that list agents or dialect views,
// the Sessions view's welcome text and the Getting Started walkthrough. package.json is static JSON, so scripts/sync-manifest.mjs
// writes these into it (the build runs it) and a test fails when the two differ. No vscode here.
import { registry, type AgentRegistry } from '../core/agents';
import { INPUT_SCHEMAS, TOOL_NAMES, lmToolName } from '../core/recall/types';

export interface ToolTexts {
  inputSchema: unknown;
  userDescription?: string;
  modelDescription?: string;
}

export interface WalkthroughStep {
  id: string;
  title: string;
  description: string;
  media: { markdown: string };
  completionEvents: string[];
}

export interface Walkthrough {
  id: string;
  title: string;
  description: string;
  steps: WalkthroughStep[];
}

export interface ContributedTexts {
  languageModelTools: Record<string, ToolTexts>;
  viewsWelcome: Record<string, string>;
  walkthroughs: Walkthrough[];
}

/** Getting Started: the three things a new user does, each step a link to the command that does it. */
function gettingStarted(agents: string, count: number): Walkthrough {
  const md = (n: string) => ({ markdown: `media/walkthrough/${n}.md` });
  return {
    id: 'agentBrain.gettingStarted',
    title: 'Get Started with Agent Brain',
    description: `Record the sessions of ${count} coding agents on this machine, back them up to one store, and find them again with checkable citations.`,
    steps: [
      {
        id: 'store',
        title: 'Back up your sessions',
        description:
          `Agent Brain is already recording ${agents} sessions into ~/.brain. Pick a store folder (a mounted disk, or a folder on an ssh host) and the first backup runs at once; every machine you set up backs up into the same store.\n` +
          '[Set Up Backup…](command:agentBrain.setUpBackup)\nOr copy once to any folder: [Back Up To Folder…](command:agentBrain.backupToFolder)',
        media: md('store'),
        completionEvents: ['onCommand:agentBrain.setUpBackup', 'onCommand:agentBrain.backupToFolder'],
      },
      {
        id: 'search',
        title: 'Find a session again',
        description: 'Search every recorded session as you type (a code identifier, a path, a phrase); Enter opens the session at the matching turn, each turn with a citation you can check.\n[Search Sessions](command:agentBrain.searchSessions)',
        media: md('search'),
        completionEvents: ['onCommand:agentBrain.searchSessions', 'onCommand:agentBrain.openSession'],
      },
      {
        id: 'chat',
        title: 'Let chat use your sessions',
        description:
          'In chat, reference #brainSearch, #brainRead, #brainCite, #brainVerify or #brainSql (or let the model pick them): it searches your sessions, reads the turns it found and cites them.\n[Open Chat](command:workbench.action.chat.open)',
        media: md('chat'),
        completionEvents: ['onCommand:workbench.action.chat.open'],
      },
    ],
  };
}

export function contributedTexts(reg: AgentRegistry = registry()): ContributedTexts {
  const agents = reg.labels();
  const tools: Record<string, ToolTexts> = {};
  for (const name of TOOL_NAMES) tools[lmToolName(name)] = { inputSchema: JSON.parse(JSON.stringify(INPUT_SCHEMAS[name])) };
  tools.brain_search.userDescription = `Search every recorded coding-agent session (${agents}) on this machine and the store.`;
  tools.brain_search.modelDescription =
    `Searches the user's recorded coding-agent sessions (${agents}) for a literal, case-insensitive text (code identifiers, paths, phrases). ` +
    'Sessions where the user or assistant said it come first, most matching turns first; then sessions where only tool output, thinking or tool arguments hold it. ' +
    'Each hit: session id, agent, project, machine, start and end time, title (first user prompt), matching turns, up to 3 snippets each with a citation. ' +
    'Then read the session with brain_read_session. Pass `store` to search every machine backed up to a store folder.';
  tools.brain_sql.modelDescription =
    'Runs one read-only DuckDB statement over the session cache: derived.messages (msg_id, agent, session_id, role, model, text, event_time, captured_at, file_id, witness_gen, line_no, is_sidechain: a sub-agent message, parent_session), ' +
    `the dialect views ${reg.dialectViews()}, and the floor.* tables (files, raw_lines, …). ` +
    'Rows are capped (limit, default 100) and so are bytes (a long value is cut and ends with …[cut <size>]; read it in parts with substr); a statement is stopped after 30 s by default; any statement that writes is refused. Use it for counts per day, project, model, agent or machine, token totals, tool usage.';
  return {
    languageModelTools: tools,
    viewsWelcome: {
      'agentBrain.sessions': `No sessions recorded yet. Agent Brain records the sessions of ${reg.list.length} coding agents (${agents}) on this machine as they are written.\n[Set Up Backup…](command:agentBrain.setUpBackup)\n[Show Status](command:agentBrain.showStatus)\n[Get Started](command:workbench.action.openWalkthrough?%22agent-brain.agent-brain%23agentBrain.gettingStarted%22)`,
    },
    walkthroughs: [gettingStarted(agents, reg.list.length)],
  };
}

type Pkg = {
  contributes: {
    languageModelTools: ({ name: string } & Record<string, unknown>)[];
    viewsWelcome: { view: string; contents: string }[];
    walkthroughs?: Walkthrough[];
  };
};

/** package.json's text with the contributed texts put in (key order kept, as npm writes it). */
export function syncedPackageJson(text: string, texts: ContributedTexts = contributedTexts()): string {
  const pkg = JSON.parse(text) as Pkg;
  for (const t of pkg.contributes.languageModelTools) {
    const want = texts.languageModelTools[t.name];
    if (!want) throw new Error(`package.json declares LM tool ${t.name}, which the extension does not register`);
    for (const [k, v] of Object.entries(want)) t[k] = v;
  }
  const declared = new Set(pkg.contributes.languageModelTools.map((t) => t.name));
  for (const name of Object.keys(texts.languageModelTools)) {
    if (!declared.has(name)) throw new Error(`package.json does not declare the LM tool ${name}`);
  }
  for (const w of pkg.contributes.viewsWelcome) {
    const want = texts.viewsWelcome[w.view];
    if (want !== undefined) w.contents = want;
  }
  pkg.contributes.walkthroughs = texts.walkthroughs;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
