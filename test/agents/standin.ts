// Loopback stand-ins for the three model API families the real agent CLIs speak: the Anthropic
// Messages API (Claude Code), the OpenAI Responses API (Codex) and OpenAI chat completions (Pi).
// Each streams SSE the way the real service does, so the CLIs run their normal code paths and write
// their normal transcripts. Nothing here talks to anything but 127.0.0.1.
//
// The responder is stateless: which scripted reply to send is read from the request itself (the
// latest scripted user prompt in the history, and how many model replies follow it). So a retry,
// a resumed session or a side request never shifts the script out of step.
import * as http from 'node:http';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { GEMINI_MODEL, gemini } from './standin-gemini';

/** One model call's answer: some text, and/or one shell command for the agent to run. */
export interface Reply {
  text?: string;
  /** A shell command; the stand-in sends it as the agent's own shell tool (Bash, exec_command, bash). */
  shell?: string;
}

/** One user prompt and the model calls that answer it, in order (a shell reply, then a final text). */
export interface Turn {
  prompt: string;
  replies: Reply[];
}

export type Family = 'anthropic' | 'responses' | 'chat' | 'gemini';

export interface LoggedRequest {
  at: string;
  method: string;
  url: string;
  /** What the stand-in made of it: 'main', 'side', 'count_tokens', 'unknown', ... */
  kind: string;
  /** For main requests: turn index and reply index answered, or why nothing matched. */
  note?: string;
  body?: unknown;
}

export interface StandIn {
  family: Family;
  port: number;
  /** Base URL as each CLI wants it (Anthropic without /v1, OpenAI ones with /v1). */
  baseUrl: string;
  log: LoggedRequest[];
  /** The conversation the stand-in answers; tests may replace it between runs. */
  script: Turn[];
  /** Requests the stand-in did not expect: printed by tests on failure. */
  unknown(): LoggedRequest[];
  /** A readable dump of the log, for assertion messages. */
  dump(): string;
  /** Holds the answer to scripted turn `turn`, reply `reply` until released, so a test can look at
   * the agent's transcript (and the floor) while the agent is mid-conversation. */
  pauseBefore(turn: number, reply: number): Pause;
  close(): Promise<void>;
}

export interface Pause {
  /** Resolves when the agent has asked for the held reply. */
  reached: Promise<void>;
  release(): void;
}

type Gate = (turn: number, reply: number) => Promise<void>;

export const MODEL = {
  anthropic: 'claude-sonnet-4-5-20250929',
  responses: 'gpt-5-codex-standin',
  chat: 'standin-chat-1',
  gemini: GEMINI_MODEL,
};

/** Starts a stand-in on 127.0.0.1 on a free port. `logFile` (optional) receives every request as a line. */
export async function startStandIn(family: Family, script: Turn[], logFile?: string): Promise<StandIn> {
  const log: LoggedRequest[] = [];
  const state = { script };
  let seq = 0;
  const pauses: { turn: number; reply: number; reach: () => void; released: Promise<void> }[] = [];
  const gate: Gate = async (turn, reply) => {
    const p = pauses.find((x) => x.turn === turn && x.reply === reply);
    if (!p) return;
    p.reach();
    await p.released;
  };
  const record = (r: LoggedRequest) => {
    log.push(r);
    if (logFile) fs.appendFileSync(logFile, JSON.stringify({ ...r, body: summarize(r.body) }) + '\n');
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const entry: LoggedRequest = { at: new Date().toISOString(), method: req.method ?? '', url: req.url ?? '', kind: 'unknown', body };
      try {
        const handled =
          family === 'gemini'
            ? await gemini(req, res, body, state.script, entry, ++seq, gate, pick)
            : await (family === 'anthropic' ? anthropic : family === 'responses' ? responses : chat)(req, res, body, state.script, entry, ++seq, gate);
        if (!handled) {
          entry.kind = 'unknown';
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'not_found_error', message: `stand-in: no route ${req.method} ${req.url}` } }));
        }
      } catch (e) {
        entry.kind = 'error';
        entry.note = String((e as Error).stack ?? e);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: `stand-in failed: ${(e as Error).message}` } }));
      }
      record(entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = family === 'anthropic' || family === 'gemini' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;
  return {
    family,
    port,
    baseUrl,
    log,
    get script() {
      return state.script;
    },
    set script(s: Turn[]) {
      state.script = s;
    },
    unknown: () => log.filter((r) => r.kind === 'unknown' || r.kind === 'error' || r.kind === 'unscripted'),
    dump: () => log.map((r) => `${r.at} ${r.method} ${r.url} [${r.kind}] ${r.note ?? ''}`).join('\n'),
    pauseBefore(turn, reply) {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => (reach = r));
      const released = new Promise<void>((r) => (release = r));
      pauses.push({ turn, reply, reach, released });
      return { reached, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Bodies are large (system prompts, tool schemas); the log file keeps only the shape. */
function summarize(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const b = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (k === 'tools' && Array.isArray(v)) out.tools = v.map((t: any) => t.name ?? t.function?.name ?? t.type);
    else if ((k === 'system' || k === 'instructions') && v) out[k] = `<${JSON.stringify(v).length} chars>`;
    else if ((k === 'messages' || k === 'input') && Array.isArray(v)) out[k] = v.map((m: any) => JSON.stringify(m).slice(0, 300));
    else out[k] = v;
  }
  return out;
}

// ---- choosing the reply -------------------------------------------------------------------

/** Finds the scripted turn whose prompt is in the latest user message that holds typed text, and
 * how many model replies already follow it; the next reply is replies[count]. */
function pick(script: Turn[], userTexts: { index: number; text: string }[], repliesAfter: (index: number) => number): { turn: number; reply: number; found: Reply | undefined } | undefined {
  for (let u = userTexts.length - 1; u >= 0; u--) {
    const { index, text } = userTexts[u];
    // The latest scripted prompt wins: a prompt repeated across turns is matched from the end.
    for (let t = script.length - 1; t >= 0; t--) {
      if (text.includes(script[t].prompt)) {
        const reply = repliesAfter(index);
        return { turn: t, reply, found: script[t].replies[reply] };
      }
    }
  }
  return undefined;
}

function sse(res: http.ServerResponse): (event: string | null, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => {
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    res.write((event ? `event: ${event}\n` : '') + `data: ${payload}\n\n`);
  };
}

/** Splits text into a few pieces so the client really assembles a stream. */
function pieces(s: string, n = 3): string[] {
  if (s.length < n * 2) return [s];
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

const rid = (prefix: string, seq: number) => `${prefix}${String(seq).padStart(6, '0')}standin${Math.random().toString(36).slice(2, 10)}`;

// ---- Anthropic Messages API ---------------------------------------------------------------

function anthropicText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b: any) => b && b.type === 'text')
    .map((b: any) => b.text)
    .join('\n');
}

async function anthropic(req: http.IncomingMessage, res: http.ServerResponse, body: any, script: Turn[], entry: LoggedRequest, seq: number, gate: Gate): Promise<boolean> {
  const url = (req.url ?? '').split('?')[0];
  if (req.method === 'HEAD' || (req.method === 'GET' && (url === '/' || url === ''))) {
    entry.kind = 'probe';
    res.writeHead(200);
    res.end();
    return true;
  }
  if (req.method === 'POST' && url === '/v1/messages/count_tokens') {
    entry.kind = 'count_tokens';
    const n = Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ input_tokens: n }));
    return true;
  }
  if (req.method === 'GET' && url === '/v1/models') {
    entry.kind = 'models';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [{ type: 'model', id: MODEL.anthropic, display_name: 'Stand-in', created_at: '2025-09-29T00:00:00Z' }], has_more: false, first_id: MODEL.anthropic, last_id: MODEL.anthropic }));
    return true;
  }
  if (req.method !== 'POST' || url !== '/v1/messages') return false;

  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const hasTools = Array.isArray(body?.tools) && body.tools.some((t: any) => t.name === 'Bash');
  const userTexts = messages.map((m, index) => ({ index, text: m.role === 'user' ? anthropicText(m.content) : '' })).filter((u) => u.text);
  const choice = hasTools ? pick(script, userTexts, (i) => messages.slice(i + 1).filter((m) => m.role === 'assistant').length) : undefined;
  let blocks: any[];
  let stop: string;
  if (choice?.found) {
    entry.kind = 'main';
    entry.note = `turn ${choice.turn} reply ${choice.reply}`;
    await gate(choice.turn, choice.reply);
    ({ blocks, stop } = anthropicBlocks(choice.found, seq));
  } else {
    // Side requests (titles, summaries, quota probes) carry no Bash tool; anything else unmatched
    // is a script error the test should see.
    entry.kind = hasTools ? 'unscripted' : 'side';
    entry.note = choice ? `turn ${choice.turn} has no reply ${choice.reply}` : hasTools ? 'no scripted prompt in request' : undefined;
    blocks = [{ type: 'text', text: hasTools ? 'The stand-in has nothing scripted here.' : 'Stand-in session' }];
    stop = 'end_turn';
  }
  const usage = { input_tokens: 100 + messages.length, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 7 };
  const msg = { id: rid('msg_01', seq), type: 'message', role: 'assistant', model: body?.model ?? MODEL.anthropic };
  if (!body?.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid('req_01', seq) });
    res.end(JSON.stringify({ ...msg, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
    return true;
  }
  const send = sse(res);
  send('message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  send('ping', { type: 'ping' });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const p of pieces(b.text)) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const p of pieces(JSON.stringify(b.input))) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send('message_stop', { type: 'message_stop' });
  res.end();
  return true;
}

function anthropicBlocks(r: Reply, seq: number): { blocks: any[]; stop: string } {
  const blocks: any[] = [];
  if (r.text) blocks.push({ type: 'text', text: r.text });
  if (r.shell) blocks.push({ type: 'tool_use', id: rid('toolu_01', seq), name: 'Bash', input: { command: r.shell, description: 'Run the scripted command' } });
  return { blocks, stop: r.shell ? 'tool_use' : 'end_turn' };
}

// ---- OpenAI Responses API (Codex) ---------------------------------------------------------

function responsesText(item: any): string {
  if (!item || item.type !== 'message' || item.role !== 'user') return '';
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content)) return '';
  return item.content
    .filter((c: any) => c.type === 'input_text')
    .map((c: any) => c.text)
    .join('\n');
}

/** Codex offers one of several shell tools depending on version and features; answer with the one offered. */
function codexShellCall(tools: any[], command: string): { name: string; arguments: string } {
  const names = new Set(tools.map((t) => t.name ?? t.function?.name));
  if (names.has('exec_command')) return { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  if (names.has('shell_command')) return { name: 'shell_command', arguments: JSON.stringify({ command }) };
  if (names.has('shell')) return { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
  throw new Error(`stand-in: Codex offered no shell tool (tools: ${[...names].join(', ')})`);
}

async function responses(req: http.IncomingMessage, res: http.ServerResponse, body: any, script: Turn[], entry: LoggedRequest, seq: number, gate: Gate): Promise<boolean> {
  const url = (req.url ?? '').split('?')[0];
  if (req.method === 'GET' && url === '/v1/models') {
    entry.kind = 'models';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL.responses, object: 'model', created: 1750000000, owned_by: 'standin' }] }));
    return true;
  }
  if (req.method !== 'POST' || url !== '/v1/responses') return false;
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const userTexts = input.map((it, index) => ({ index, text: responsesText(it) })).filter((u) => u.text);
  // Each earlier model call left one run of model-made items (reasoning, assistant message, calls).
  const modelRuns = (i: number) => {
    let runs = 0;
    let inRun = false;
    for (const it of input.slice(i + 1)) {
      const byModel = it.type === 'function_call' || it.type === 'reasoning' || it.type === 'custom_tool_call' || it.type === 'local_shell_call' || (it.type === 'message' && it.role === 'assistant');
      if (byModel && !inRun) runs++;
      inRun = byModel;
    }
    return runs;
  };
  const choice = pick(script, userTexts, modelRuns);
  const items: any[] = [];
  if (choice?.found) {
    entry.kind = 'main';
    entry.note = `turn ${choice.turn} reply ${choice.reply}`;
    await gate(choice.turn, choice.reply);
    if (choice.found.text) items.push({ id: rid('msg_', seq), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: choice.found.text, annotations: [] }] });
    if (choice.found.shell) items.push({ id: rid('fc_', seq), type: 'function_call', status: 'completed', call_id: rid('call_', seq), ...codexShellCall(tools, choice.found.shell) });
  } else {
    entry.kind = tools.length ? 'unscripted' : 'side';
    entry.note = choice ? `turn ${choice.turn} has no reply ${choice.reply}` : 'no scripted prompt in request';
    items.push({ id: rid('msg_', seq), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'The stand-in has nothing scripted here.', annotations: [] }] });
  }
  const respId = rid('resp_', seq);
  const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body?.model ?? MODEL.responses };
  const usage = { input_tokens: 200 + input.length, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 209 + input.length };
  const send = sse(res);
  let n = 0;
  const ev = (type: string, data: Record<string, unknown>) => send(type, { type, sequence_number: n++, ...data });
  ev('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = item.content[0].text as string;
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const p of pieces(text)) ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: p });
      ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text });
      ev('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: item.content[0] });
    } else {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const p of pieces(item.arguments)) ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: p });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response: { ...base, status: 'completed', output: items, usage } });
  res.end();
  return true;
}

// ---- OpenAI chat completions (Pi) ---------------------------------------------------------

function chatText(m: any): string {
  if (!m || m.role !== 'user') return '';
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return m.content
    .filter((c: any) => c.type === 'text')
    .map((c: any) => c.text)
    .join('\n');
}

/** The shell tool a chat-completions agent offers (Pi's bash, Cline's run_commands, Continue's
 * Bash, ...), found by its name and a `command`/`commands` parameter, with its arguments: the
 * command, and false for any other required boolean (e.g. requires_approval). */
function chatShellCall(tools: any[], command: string): { name: string; arguments: string } {
  const fns = tools.map((t) => t.function ?? t).filter((f) => typeof f?.name === 'string');
  const props = (f: any) => (f.parameters?.properties ?? {}) as Record<string, any>;
  const f =
    fns.find((x) => x.name === 'bash') ??
    fns.find((x) => /bash|shell|command|terminal/i.test(x.name) && ('command' in props(x) || 'commands' in props(x)));
  if (!f) throw new Error(`stand-in: the agent offered no shell tool (tools: ${fns.map((x) => x.name).join(', ')})`);
  const p = props(f);
  const args: Record<string, unknown> = {};
  if ('command' in p) args.command = command;
  else args.commands = p.commands?.type === 'array' ? [command] : command;
  for (const r of (f.parameters?.required ?? []) as string[]) if (!(r in args) && p[r]?.type === 'boolean') args[r] = false;
  return { name: f.name, arguments: JSON.stringify(args) };
}

async function chat(req: http.IncomingMessage, res: http.ServerResponse, body: any, script: Turn[], entry: LoggedRequest, seq: number, gate: Gate): Promise<boolean> {
  const url = (req.url ?? '').split('?')[0];
  if (req.method === 'GET' && url === '/v1/models') {
    entry.kind = 'models';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL.chat, object: 'model', created: 1750000000, owned_by: 'standin' }] }));
    return true;
  }
  if (req.method !== 'POST' || url !== '/v1/chat/completions') return false;
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const userTexts = messages.map((m, index) => ({ index, text: chatText(m) })).filter((u) => u.text);
  const choice = pick(script, userTexts, (i) => messages.slice(i + 1).filter((m) => m.role === 'assistant').length);
  let text = '';
  let call: { id: string; name: string; arguments: string } | undefined;
  if (choice?.found) {
    entry.kind = 'main';
    entry.note = `turn ${choice.turn} reply ${choice.reply}`;
    await gate(choice.turn, choice.reply);
    text = choice.found.text ?? '';
    if (choice.found.shell) {
      call = { id: rid('call_', seq), ...chatShellCall(tools, choice.found.shell) };
    }
  } else {
    entry.kind = tools.length ? 'unscripted' : 'side';
    entry.note = choice ? `turn ${choice.turn} has no reply ${choice.reply}` : 'no scripted prompt in request';
    text = 'The stand-in has nothing scripted here.';
  }
  const id = rid('chatcmpl-', seq);
  const created = Math.floor(Date.now() / 1000);
  const model = body?.model ?? MODEL.chat;
  const chunk = (delta: unknown, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const send = sse(res);
  send(null, chunk({ role: 'assistant', content: '' }, null));
  if (text) for (const p of pieces(text)) send(null, chunk({ content: p }, null));
  if (call) {
    send(null, chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
    for (const p of pieces(call.arguments)) send(null, chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }, null));
  }
  send(null, chunk({}, call ? 'tool_calls' : 'stop'));
  send(null, { id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 150 + messages.length, completion_tokens: 8, total_tokens: 158 + messages.length } });
  send(null, '[DONE]');
  res.end();
  return true;
}
