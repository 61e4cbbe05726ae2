// A model API on 127.0.0.1 for the real agent CLIs, scripted for one thing: when the user's prompt
// holds MARK, ask for one tool call (an MCP tool of brain's), then end with a short text once the
// tool's result comes back. Any other request (titles, side calls) gets a short text. Every request
// body is kept, so a test can read what the agent sent: its system prompt (skills), its tool list
// (MCP tools) and the tool result (what brain mcp answered).
// Anthropic Messages (Claude Code), OpenAI Responses (Codex) and chat completions (Pi), streamed.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export const MARK = 'BRAIN-RECALL-PROBE';

export interface ToolCall {
  /** Claude Code: the tool's full name (mcp__brain__search). Codex: the namespace (mcp__brain) and name. */
  name: string;
  namespace?: string;
  input: Record<string, unknown>;
}

export interface Scripted {
  baseUrl: string;
  bodies: string[];
  /** The tool result text the agent sent back, once it has. */
  toolResult(): string | null;
  close(): Promise<void>;
}

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function anthropic(body: any, res: http.ServerResponse, call: ToolCall | null, seq: number): void {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const text = (m: any) => (typeof m?.content === 'string' ? m.content : Array.isArray(m?.content) ? m.content.map((c: any) => c.text ?? '').join('\n') : '');
  const answered = msgs.some((m) => Array.isArray(m.content) && m.content.some((c: any) => c.type === 'tool_result'));
  const asked = msgs.some((m) => m.role === 'user' && text(m).includes(MARK));
  const useTool = call && asked && !answered;
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const send = sse(res);
  send('message_start', { type: 'message_start', message: { id: `msg_${seq}`, type: 'message', role: 'assistant', model: body?.model ?? 'claude-standin', content: [], stop_reason: null, stop_sequence: null, usage } });
  if (useTool) {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_${seq}`, name: call.name, input: {} } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } });
  } else {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: useTool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function responses(body: any, res: http.ServerResponse, call: ToolCall | null, seq: number): void {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  const answered = input.some((i) => i.type === 'function_call_output');
  const asked = input.some((i) => i.type === 'message' && i.role === 'user' && JSON.stringify(i.content).includes(MARK));
  const item =
    call && asked && !answered
      ? { id: `fc_${seq}`, type: 'function_call', status: 'completed', call_id: `call_${seq}`, name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}), arguments: JSON.stringify(call.input) }
      : { id: `msg_${seq}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] };
  const send = sse(res);
  let n = 0;
  const ev = (type: string, d: Record<string, unknown>) => send(type, { type, sequence_number: n++, ...d });
  const base = { id: `resp_${seq}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body?.model ?? 'gpt-standin' };
  ev('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  ev('response.output_item.added', { output_index: 0, item });
  ev('response.output_item.done', { output_index: 0, item });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

function chat(body: any, res: http.ServerResponse, seq: number): void {
  const send = (d: unknown) => res.write(`data: ${JSON.stringify(d)}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const base = { id: `chatcmpl-${seq}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'standin' };
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Done.' }, finish_reason: null }] });
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });
  res.write('data: [DONE]\n\n');
  res.end();
}

export async function startScripted(family: 'anthropic' | 'responses' | 'chat', call: ToolCall | null = null): Promise<Scripted> {
  const bodies: string[] = [];
  let seq = 0;
  const server = http.createServer((req, res) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => {
      const url = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [] }));
        return;
      }
      bodies.push(b);
      let body: any = {};
      try {
        body = JSON.parse(b);
      } catch {
        /* keep the raw text */
      }
      seq++;
      if (family === 'anthropic' && url.endsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
      } else if (family === 'anthropic') anthropic(body, res, call, seq);
      else if (family === 'responses') responses(body, res, call, seq);
      else chat(body, res, seq);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: family === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
    bodies,
    toolResult() {
      for (const raw of bodies) {
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          continue;
        }
        for (const m of body.messages ?? []) {
          for (const c of Array.isArray(m.content) ? m.content : []) {
            if (c.type === 'tool_result') return typeof c.content === 'string' ? c.content : (c.content ?? []).map((x: any) => x.text ?? '').join('');
          }
        }
        for (const i of body.input ?? []) {
          if (i.type === 'function_call_output') return typeof i.output === 'string' ? i.output : (i.output ?? []).map((x: any) => x.text ?? '').join('\n');
        }
      }
      return null;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
