// The Gemini API (generateContent, streamGenerateContent, countTokens) as the stand-in speaks it,
// for Gemini CLI (GOOGLE_GEMINI_BASE_URL points it here). Streams SSE chunks the way the service
// does; a scripted shell reply is Gemini CLI's run_shell_command. Requests with a JSON response
// schema (its next-speaker and loop checks) get an object that fits the schema: "user" speaks next.
import type * as http from 'node:http';
import type { LoggedRequest, Reply, Turn } from './standin';

export const GEMINI_MODEL = 'gemini-2.5-flash';

type Pick = (script: Turn[], userTexts: { index: number; text: string }[], repliesAfter: (index: number) => number) => { turn: number; reply: number; found: Reply | undefined } | undefined;

function userText(c: any): string {
  if (!c || c.role !== 'user' || !Array.isArray(c.parts)) return '';
  return c.parts
    .filter((p: any) => typeof p?.text === 'string')
    .map((p: any) => p.text)
    .join('\n');
}

/** A value that fits a JSON schema, as a checker request expects (next_speaker: "user"). */
function fitting(schema: any, key = ''): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (Array.isArray(schema.enum) && schema.enum.length) return key === 'next_speaker' && schema.enum.includes('user') ? 'user' : schema.enum[0];
  const type = String(schema.type ?? '').toLowerCase();
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = fitting(v, k);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  return key === 'next_speaker' ? 'user' : '';
}

function shellCall(body: any, command: string): { name: string; args: Record<string, unknown> } {
  const decls: any[] = (body?.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []);
  const f = decls.find((d) => d.name === 'run_shell_command') ?? decls.find((d) => /shell|command|bash/i.test(d.name));
  if (!f) throw new Error(`stand-in: Gemini CLI offered no shell tool (tools: ${decls.map((d) => d.name).join(', ')})`);
  return { name: f.name, args: { command, description: 'run the scripted command' } };
}

export async function gemini(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: any,
  script: Turn[],
  entry: LoggedRequest,
  seq: number,
  gate: (turn: number, reply: number) => Promise<void>,
  pick: Pick,
): Promise<boolean> {
  const url = (req.url ?? '').split('?')[0];
  const m = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(url);
  if (req.method === 'GET' && /^\/(v1beta|v1)\/models\/?$/.test(url)) {
    entry.kind = 'models';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ models: [{ name: `models/${GEMINI_MODEL}`, supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] }] }));
    return true;
  }
  if (req.method !== 'POST' || !m) return false;
  const [, , model, method] = m;
  if (method === 'countTokens') {
    entry.kind = 'count_tokens';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totalTokens: Math.ceil(JSON.stringify(body ?? {}).length / 4) }));
    return true;
  }
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  const schema = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
  let parts: any[];
  if (schema) {
    entry.kind = 'side';
    parts = [{ text: JSON.stringify(fitting(schema)) }];
  } else {
    const userTexts = contents.map((c, index) => ({ index, text: userText(c) })).filter((u) => u.text);
    const choice = pick(script, userTexts, (i) => contents.slice(i + 1).filter((c) => c.role === 'model').length);
    if (choice?.found) {
      entry.kind = 'main';
      entry.note = `turn ${choice.turn} reply ${choice.reply}`;
      await gate(choice.turn, choice.reply);
      parts = [];
      if (choice.found.text) parts.push({ text: choice.found.text });
      if (choice.found.shell) parts.push({ functionCall: shellCall(body, choice.found.shell) });
    } else {
      entry.kind = 'side';
      entry.note = choice ? `turn ${choice.turn} has no reply ${choice.reply}` : 'no scripted prompt in request';
      parts = [{ text: 'The stand-in has nothing scripted here.' }];
    }
  }
  const prompt = 140 + contents.length;
  const usage = { promptTokenCount: prompt, candidatesTokenCount: 9, totalTokenCount: prompt + 9, cachedContentTokenCount: 0 };
  const responseId = `standin-${seq}`;
  if (method === 'generateContent') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: model, responseId }));
    return true;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (d: unknown) => res.write(`data: ${JSON.stringify(d)}\r\n\r\n`);
  // Text in pieces, then any call, then the finish with the usage (as the service sends it).
  const text = parts.filter((p) => p.text).map((p) => p.text as string).join('');
  const calls = parts.filter((p) => p.functionCall);
  const chunks = text ? [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))].filter(Boolean) : [];
  for (const c of chunks) send({ candidates: [{ content: { role: 'model', parts: [{ text: c }] }, index: 0 }], modelVersion: model, responseId });
  send({ candidates: [{ content: { role: 'model', parts: calls.length ? calls : [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: model, responseId });
  res.end();
  return true;
}
