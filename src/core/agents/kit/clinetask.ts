// Cline's task folders, which its forks Roo Code and Kilo Code kept: tasks/<id>/ holds
// ui_messages.json (what the chat showed, ClineMessage[]), api_conversation_history.json (what
// was sent to the model), task_metadata.json (files in context, model use) and, in Roo Code,
// history_item.json (the task's entry in the history: workspace, totals), each rewritten whole
// with JSON.stringify. The task folder is the session: all three files are captured (as
// generations), and the turns come from ui_messages.json alone, which holds every prompt, reply,
// tool call and the token counts of each model call (say "api_req_started").
import type { Checkpoint, Dialect, ParseOptions, Turn } from '../../turns';
import { homeDir, pathFor, type Env } from '../../home';
import { setting } from '../../settings';
import { editorUserDirs } from '../copilot/paths';
import type { AgentFiles, OriginRoot } from '../types';
import { addText, addThinking } from './parser';
import { isObj, num, strOrNull, tsOf, type Obj } from './jsonl';
import { DocumentParser, asText, withoutGeneration } from './document';

/** VS Code-family user folders (Copilot Chat's list) plus Cursor's, where these extensions run too. */
export function extensionUserDirs(env: Env): { prefix: string; dir: string }[] {
  const p = pathFor(env);
  const home = homeDir(env);
  const platform = setting(env, 'BRAIN_PLATFORM');
  const cursor =
    platform === 'darwin'
      ? p.join(home, 'Library', 'Application Support', 'Cursor', 'User')
      : platform === 'win32'
        ? p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), 'Cursor', 'User')
        : p.join(env.XDG_CONFIG_HOME || p.join(home, '.config'), 'Cursor', 'User');
  const out = editorUserDirs(env);
  if (!out.some((d) => d.dir === cursor)) out.push({ prefix: 'cursor', dir: cursor });
  return out;
}

const TASK_FILE = /^[^/]+\/(ui_messages|api_conversation_history|task_metadata|history_item)\.json$/;

/** The files of the task folders under globalStorage/<publisher>/tasks/ in every editor (lake
 * prefix: the editor), plus `more` roots holding task folders of the same shape. The session is
 * the task folder: the folder above the file. */
export function taskFolderFiles(publisher: string, more: (env: Env) => { prefix: string; dir: string }[] = () => []): AgentFiles {
  return {
    roots(env: Env): OriginRoot[] {
      const editors = extensionUserDirs(env).map(({ prefix, dir }) => ({ prefix, dir: pathFor(env).join(dir, 'globalStorage', publisher, 'tasks') }));
      return [...editors, ...more(env)].map(({ prefix, dir }) => ({ dir, lakePrefix: prefix, include: (rel: string) => TASK_FILE.test(rel) }));
    },
    rewritesWhole: () => true,
    sessionOf(rel) {
      const parts = rel.split('/');
      return parts.length >= 2 ? parts[parts.length - 2] : rel;
    },
  };
}

/** Cline's own data folder (the CLI's, and the extension's since it moved out of the editor):
 * CLINE_DATA_DIR, else CLINE_DIR/data, else ~/.cline/data. */
export function clineDataDir(env: Env): string {
  const p = pathFor(env);
  if (env.CLINE_DATA_DIR?.trim()) return env.CLINE_DATA_DIR.trim();
  return p.join(env.CLINE_DIR?.trim() || p.join(homeDir(env), '.cline'), 'data');
}

// ---- ui_messages.json ----

function parseJson(s: unknown): Obj | null {
  if (typeof s !== 'string' || !s.trim().startsWith('{')) return null;
  try {
    const o = JSON.parse(s) as unknown;
    return isObj(o) ? o : null;
  } catch {
    return null;
  }
}

/** What an ask/say that shows the model's words says: plain text, or the JSON of a question
 * (followup: {question, options}) or a plan-mode answer ({response}). */
function shownText(m: Obj): string {
  const j = parseJson(m.text);
  if (j) return [j.question, j.response].filter((x): x is string => typeof x === 'string').join('\n\n');
  return typeof m.text === 'string' ? m.text : '';
}

const PROMPTS = new Set(['task', 'user_feedback']);
const REPLIES = new Set(['text', 'completion_result', 'plan_completion_result']);
const ASK_REPLIES = new Set(['followup', 'plan_mode_respond', 'act_mode_respond']);
const OUTPUTS = new Set(['command_output', 'mcp_server_response', 'browser_action_result']);
/** Cline's own environment block names the working folder in every first request. */
const CWD = /# Current Working Directory \(([^)\n]+)\) Files/;

/** The calls a reply makes: tools, commands, MCP calls, browser actions. */
const CALLS = new Set(['tool', 'command', 'use_mcp_server', 'browser_action_launch', 'browser_action']);

/** A call's name: the tool a `tool` message names, `execute_command`, the MCP server and tool. */
function callName(kind: string, text: unknown): string {
  const j = parseJson(text);
  if (kind === 'tool') return strOrNull(j?.tool) ?? 'tool';
  if (kind === 'command') return 'execute_command';
  if (kind === 'use_mcp_server') return ['use_mcp_server', strOrNull(j?.serverName), strOrNull(j?.toolName)].filter(Boolean).join(':');
  return 'browser_action';
}

class ClineTaskParser extends DocumentParser {
  private reply: Turn | null = null;
  /** The reply's last call when it was an ask for approval: its kind and text as written. */
  private asked: { kind: string; text: unknown } | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected document(doc: unknown): void {
    if (/(^|\/)history_item\.json$/.test(withoutGeneration(this.opts.rel))) return this.historyItem(doc);
    if (!Array.isArray(doc)) {
      this.counts.bad++;
      return;
    }
    for (const m of doc) if (isObj(m)) this.message(m);
    this.close();
  }

  /** Roo Code's history_item.json: no turns; the task's folder, and the task that started it. */
  private historyItem(doc: unknown): void {
    if (!isObj(doc)) {
      this.counts.bad++;
      return;
    }
    this.facts.native_session = strOrNull(doc.id);
    this.facts.cwd = strOrNull(doc.workspace);
    this.facts.parent_session = strOrNull(doc.parentTaskId);
    this.seen(tsOf(doc.ts));
  }

  private close(): void {
    if (this.reply) this.emit(this.reply);
    this.reply = null;
    this.asked = null;
  }

  private replyAt(ts: string | null, model: string | null): Turn {
    if (!this.reply) {
      this.reply = this.docTurn('assistant', 'reply', ts);
      this.reply.model = model;
    }
    if (ts) this.reply.ts_last = ts;
    this.reply.model ??= model;
    return this.reply;
  }

  private message(m: Obj): void {
    const ts = tsOf(m.ts);
    this.seen(ts);
    const info = isObj(m.modelInfo) ? m.modelInfo : {};
    const model = strOrNull(info.modelId);
    const kind = m.type === 'say' ? strOrNull(m.say) : m.type === 'ask' ? strOrNull(m.ask) : null;
    if (!kind) return;
    if (m.type === 'say' && PROMPTS.has(kind)) {
      this.close();
      const u = this.docTurn('user', 'prompt', ts);
      addText(u, typeof m.text === 'string' ? m.text : '');
      this.emit(u);
      return;
    }
    if (m.type === 'say' && kind === 'api_req_started') {
      // One model call: its reply is what the chat shows until the next call or prompt.
      this.close();
      const j = parseJson(m.text) ?? {};
      const t = this.replyAt(ts, model);
      if (typeof j.request === 'string') this.facts.cwd ??= CWD.exec(j.request)?.[1]?.trim() ?? null;
      if (['tokensIn', 'tokensOut', 'cacheWrites', 'cacheReads'].some((k) => typeof j[k] === 'number')) {
        // Roo Code and Kilo Code (which name the apiProtocol) count the cached part in tokensIn;
        // Cline does not.
        const cached = num(j.cacheWrites) + num(j.cacheReads);
        const input = typeof j.apiProtocol === 'string' ? Math.max(0, num(j.tokensIn) - cached) : num(j.tokensIn);
        t.tokens = { input, output: num(j.tokensOut), cache_creation: num(j.cacheWrites), cache_read: num(j.cacheReads) };
      }
      return;
    }
    if ((m.type === 'say' && REPLIES.has(kind)) || (m.type === 'ask' && ASK_REPLIES.has(kind))) {
      addText(this.replyAt(ts, model), shownText(m));
      return;
    }
    if (kind === 'reasoning') {
      // A reply whatever it holds: read without tool bodies, the same turns are made.
      const t = this.replyAt(ts, model);
      if (this.opts.full) addThinking(t, typeof m.text === 'string' ? m.text : asText(m.reasoning));
      return;
    }
    if (CALLS.has(kind)) {
      const t = this.replyAt(ts, model);
      // An ask for approval that Cline says again once approved (the same kind and text, the
      // reply's next call) is one call; any other call is one of its own, read with or without
      // tool bodies alike (kit/tasks_cline.sql reads the same rule).
      const again = m.type === 'say' && this.asked?.kind === kind && this.asked.text === m.text;
      this.asked = m.type === 'ask' ? { kind, text: m.text } : null;
      if (again) return;
      t.tools.push({ id: null, name: callName(kind, m.text), arguments: this.opts.full ? asText(m.text) : '', output: '', is_error: false });
      return;
    }
    if (OUTPUTS.has(kind)) {
      const t = this.reply;
      const last = t?.tools[t.tools.length - 1];
      if (t && last) {
        if (this.opts.full) last.output = last.output ? `${last.output}\n${asText(m.text)}` : asText(m.text);
        if (ts) t.ts_last = ts;
      }
      return;
    }
    // Checkpoints, errors, retries, progress lists and asks for approval: no turn of their own.
  }
}

/** Turns from ui_messages.json, facts from history_item.json; the other task files are captured
 * but hold nothing read here. */
export const clineTaskDialect: Dialect = {
  reads: (rel) => /(^|\/)(ui_messages|history_item)\.json$/.test(withoutGeneration(rel)),
  open: (opts, emit, resume) => new ClineTaskParser(opts, emit, resume),
  sharedSpans: () => true,
};
