// Token usage summed straight from the agents' own files, with plain JSON parsing and nothing of
// the code under test: what `brain stats` and derived.usage must agree with. One unit for all
// agents: input not served from cache, output, cache write, cache read.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Tokens {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

type J = Record<string, any>;

const zero = (): Tokens => ({ input: 0, output: 0, cacheCreation: 0, cacheRead: 0 });
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

function jsonLines(file: string): J[] {
  const out: J[] = [];
  for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    try {
      const j = JSON.parse(l);
      if (j && typeof j === 'object') out.push(j);
    } catch {
      /* a torn or foreign line carries no usage */
    }
  }
  return out;
}

/** Claude Code: a reply is written a line per content block, each with its usage so far; per
 * message.id the last line holds the whole. Lines without an id count on their own. */
function claude(file: string): Tokens {
  const last = new Map<string, J>();
  const t = zero();
  const add = (u: J) => {
    t.input += n(u.input_tokens);
    t.output += n(u.output_tokens);
    t.cacheCreation += n(u.cache_creation_input_tokens);
    t.cacheRead += n(u.cache_read_input_tokens);
  };
  for (const j of jsonLines(file)) {
    const u = j.message?.usage;
    if (!u || typeof u !== 'object') continue;
    if (typeof j.message.id === 'string') last.set(j.message.id, u);
    else add(u);
  }
  for (const u of last.values()) add(u);
  return t;
}

/** Codex: token_count events; last_token_usage is the step's usage (its input includes the cached
 * part); an event repeating the previous cumulative total is a duplicate. */
function codex(file: string): Tokens {
  const t = zero();
  let prevTotal: string | undefined;
  let prev: J | undefined;
  for (const j of jsonLines(file)) {
    const p = j.payload;
    if (j.type !== 'event_msg' || p?.type !== 'token_count' || !p.info || typeof p.info !== 'object') continue;
    const total = p.info.total_token_usage;
    const totalText = total === undefined ? undefined : JSON.stringify(total);
    const dup = totalText !== undefined && totalText === prevTotal;
    const step: J | undefined =
      p.info.last_token_usage ??
      (total
        ? {
            input_tokens: n(total.input_tokens) - n(prev?.input_tokens),
            cached_input_tokens: n(total.cached_input_tokens) - n(prev?.cached_input_tokens),
            output_tokens: n(total.output_tokens) - n(prev?.output_tokens),
            cache_write_input_tokens: n(total.cache_write_input_tokens) - n(prev?.cache_write_input_tokens),
          }
        : undefined);
    prevTotal = totalText;
    prev = total;
    if (dup || !step) continue;
    t.input += n(step.input_tokens) - n(step.cached_input_tokens);
    t.cacheRead += n(step.cached_input_tokens);
    t.cacheCreation += n(step.cache_write_input_tokens);
    t.output += n(step.output_tokens);
  }
  return t;
}

/** Pi: one line per reply, its usage on the assistant message. */
function pi(file: string): Tokens {
  const t = zero();
  for (const j of jsonLines(file)) {
    const u = j.type === 'message' && j.message?.role === 'assistant' ? j.message.usage : undefined;
    if (!u || typeof u !== 'object') continue;
    t.input += n(u.input);
    t.output += n(u.output);
    t.cacheCreation += n(u.cacheWrite);
    t.cacheRead += n(u.cacheRead);
  }
  return t;
}

/** Gemini CLI: a gemini message's tokens; in .jsonl the last write of an id wins, and a rewind
 * drops that message and the ones first written after it. input counts the cached part and not
 * the tool prompt, output not the thoughts. */
function gemini(file: string): Tokens {
  let msgs: J[];
  if (file.endsWith('.json')) {
    msgs = (JSON.parse(fs.readFileSync(file, 'utf8')).messages ?? []) as J[];
  } else {
    const byId = new Map<string, J>();
    for (const j of jsonLines(file)) {
      if (typeof j.$rewindTo === 'string') {
        const ids = [...byId.keys()];
        const at = ids.indexOf(j.$rewindTo);
        if (at >= 0) for (const id of ids.slice(at)) byId.delete(id);
      } else if (typeof j.type === 'string') {
        const id = typeof j.id === 'string' ? j.id : `#${byId.size}`;
        // A rewrite keeps the message's place (its first write).
        byId.set(id, j);
      }
    }
    msgs = [...byId.values()];
  }
  const t = zero();
  for (const m of msgs) {
    const k = m.tokens;
    if ((m.type !== 'gemini' && m.type !== 'model') || !k || typeof k !== 'object') continue;
    t.input += n(k.input) - n(k.cached) + n(k.tool);
    t.output += n(k.output) + n(k.thoughts);
    t.cacheRead += n(k.cached);
  }
  return t;
}

/** Copilot Chat: each request's result.usage promptTokens and completionTokens (0.37 on), else its
 * result.metadata promptTokens and outputTokens; a .jsonl log is
 * replayed (snapshot, set, push, delete) to the session it builds. */
function copilot(file: string): Tokens {
  let session: J | undefined;
  if (file.endsWith('.json')) session = JSON.parse(fs.readFileSync(file, 'utf8'));
  else if (file.includes(`${path.sep}chatSessions${path.sep}`)) {
    for (const op of jsonLines(file)) {
      const k: (string | number)[] = Array.isArray(op.k) ? op.k : [];
      if (op.kind === 0 || (op.kind === 1 && k.length === 0)) {
        session = op.v;
        continue;
      }
      if (!session) continue;
      let obj: any = session;
      for (const key of k.slice(0, -1)) obj = obj?.[key];
      const key = k[k.length - 1];
      if (obj === undefined || obj === null || key === undefined) continue;
      if (op.kind === 1) obj[key] = op.v;
      else if (op.kind === 3) Array.isArray(obj) ? obj.splice(Number(key), 1) : delete obj[key];
      else if (op.kind === 2) {
        const list: unknown[] = Array.isArray(obj[key]) ? obj[key] : (obj[key] = []);
        if (typeof op.i === 'number') list.length = Math.min(list.length, op.i);
        if (Array.isArray(op.v)) list.push(...op.v);
      }
    }
  }
  const t = zero();
  for (const r of (session?.requests ?? []) as J[]) {
    // 0.37 on: result.usage {promptTokens, completionTokens}; before: result.metadata.
    const u = r?.result?.usage;
    const md = r?.result?.metadata;
    const pIn = typeof u?.promptTokens === 'number' ? u.promptTokens : md?.promptTokens;
    const pOut = typeof u?.completionTokens === 'number' ? u.completionTokens : md?.outputTokens;
    t.input += n(pIn);
    t.output += n(pOut);
  }
  return t;
}

/** Cline, Roo Code, Kilo Code: ui_messages.json, each model call's say "api_req_started", whose
 * text is JSON with tokensIn, tokensOut, cacheWrites, cacheReads. */
function clineTask(file: string): Tokens {
  const t = zero();
  let msgs: unknown;
  try {
    msgs = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return t;
  }
  for (const m of (Array.isArray(msgs) ? msgs : []) as J[]) {
    if (m?.type !== 'say' || m.say !== 'api_req_started' || typeof m.text !== 'string') continue;
    let j: J;
    try {
      j = JSON.parse(m.text);
    } catch {
      continue;
    }
    // Roo Code's tokensIn (its messages name the apiProtocol) is the whole input, cached part included.
    const inTotal = typeof j.apiProtocol === 'string';
    addFour(t, inTotal ? Math.max(0, n(j.tokensIn) - n(j.cacheWrites) - n(j.cacheReads)) : n(j.tokensIn), n(j.tokensOut), n(j.cacheWrites), n(j.cacheReads));
  }
  return t;
}

/** Aider: each model response is followed by Aider's usage line, "> Tokens: 5.4k sent, 1.6k cache
 * write, 51 received." (counts as Aider shows them: "612", "5,244", "5.4k", "13k"). Every such
 * line counts; input is what was sent less what was written to or read from the cache. */
export function aider(file: string): Tokens {
  const t = zero();
  const count = (s: string | undefined): number => {
    if (s === undefined) return 0;
    const k = s.endsWith('k') ? 1000 : 1;
    return Math.round(parseFloat(s.replace(/k$/, '').split(',').join('')) * k);
  };
  for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!l.startsWith('> Tokens: ')) continue;
    const parts = new Map<string, string>();
    for (const p of l.slice('> Tokens: '.length).split(/[,.] (?=[\d])/)) {
      const m = /^([\d.,]+k?) (sent|cache write|cache hit|received)/.exec(p.trim());
      if (m) parts.set(m[2], m[1]);
    }
    if (!parts.has('sent') || !parts.has('received')) continue;
    const write = count(parts.get('cache write'));
    const hit = count(parts.get('cache hit'));
    t.input += Math.max(0, count(parts.get('sent')) - write - hit);
    t.output += count(parts.get('received'));
    t.cacheCreation += write;
    t.cacheRead += hit;
  }
  return t;
}

/** Amp: a thread document's assistant messages, each with its usage (Anthropic's four counts). */
export function amp(file: string): Tokens {
  const t = zero();
  let doc: J;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return t;
  }
  for (const m of (doc.messages ?? []) as J[]) {
    const u = m?.role === 'assistant' ? m.usage : undefined;
    if (!u || typeof u !== 'object') continue;
    t.input += n(u.inputTokens);
    t.output += n(u.outputTokens);
    t.cacheCreation += n(u.cacheCreationInputTokens);
    t.cacheRead += n(u.cacheReadInputTokens);
  }
  return t;
}

/** Copilot CLI: one session.usage_record event per model call; inputTokens counts the cached
 * prompt (read and written) too. The shutdown event's totals repeat them and are left out. */
function copilotCli(file: string): Tokens {
  const t = zero();
  for (const j of jsonLines(file)) {
    const u = j.type === 'session.usage_record' ? j.data?.usage : undefined;
    if (!u || typeof u !== 'object') continue;
    t.input += Math.max(0, n(u.inputTokens) - n(u.cacheReadTokens) - n(u.cacheWriteTokens));
    t.output += n(u.outputTokens);
    t.cacheCreation += n(u.cacheWriteTokens);
    t.cacheRead += n(u.cacheReadTokens);
  }
  return t;
}

/** Adds one reply's four counts. */
function addFour(t: Tokens, input: number, output: number, cacheCreation: number, cacheRead: number): void {
  t.input += input;
  t.output += output;
  t.cacheCreation += cacheCreation;
  t.cacheRead += cacheRead;
}

/** Cline CLI: <id>.messages.json, each assistant message's metrics. */
function clineCli(file: string): Tokens {
  const t = zero();
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const replies = ((Array.isArray(doc) ? doc : (doc.messages ?? [])) as J[]).filter((m) => m?.role === 'assistant' && m.metrics && typeof m.metrics === 'object');
  for (const { metrics: u } of replies) addFour(t, n(u.inputTokens), n(u.outputTokens), n(u.cacheWriteTokens), n(u.cacheReadTokens));
  return t;
}

/** Continue: each assistant message's usage; prompt_tokens includes the cached part. */
function continueSession(file: string): Tokens {
  const t = zero();
  const history = (JSON.parse(fs.readFileSync(file, 'utf8')).history ?? []) as J[];
  for (const u of history.map((h) => (h?.message?.role === 'assistant' ? h.message.usage : undefined)).filter((u) => u && typeof u === 'object')) {
    const read = n(u.prompt_tokens_details?.cache_read_tokens);
    const write = n(u.prompt_tokens_details?.cache_write_tokens);
    addFour(t, Math.max(0, n(u.prompt_tokens) - read - write), n(u.completion_tokens), write, read);
  }
  return t;
}

/** OpenHands: the conversation state's stats, each LLM's accumulated counts; prompt_tokens
 * includes what was read from the cache. */
export function openhands(file: string): Tokens {
  const t = zero();
  let doc: J;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return t;
  }
  for (const m of Object.values((doc.stats?.usage_to_metrics ?? {}) as Record<string, J>)) {
    const u = m?.accumulated_token_usage;
    if (!u || typeof u !== 'object') continue;
    t.input += Math.max(0, n(u.prompt_tokens) - n(u.cache_read_tokens));
    t.output += n(u.completion_tokens);
    t.cacheCreation += n(u.cache_write_tokens);
    t.cacheRead += n(u.cache_read_tokens);
  }
  return t;
}

/** Qwen Code: an assistant record's usageMetadata; promptTokenCount counts the cached part,
 * candidatesTokenCount is the whole completion. */
function qwen(file: string): Tokens {
  const t = zero();
  for (const j of jsonLines(file)) {
    const u = j.type === 'assistant' ? j.usageMetadata : undefined;
    if (!u || typeof u !== 'object') continue;
    t.input += Math.max(0, n(u.promptTokenCount) - n(u.cachedContentTokenCount));
    t.output += n(u.candidatesTokenCount);
    t.cacheRead += n(u.cachedContentTokenCount);
  }
  return t;
}

/** Factory Droid: the session's totals in <id>.settings.json (the file as it is now). */
function droid(file: string): Tokens {
  const u = JSON.parse(fs.readFileSync(file, 'utf8'))?.tokenUsage;
  const t = zero();
  if (!u || typeof u !== 'object') return t;
  t.input = n(u.inputTokens);
  t.output = n(u.outputTokens);
  t.cacheCreation = n(u.cacheCreationTokens);
  t.cacheRead = n(u.cacheReadTokens);
  return t;
}

/** Every file of the agents' folders under home, with the usage it carries (files without any are
 * left out). */
export function rawUsage(home: string): Map<string, Tokens & { agent: string }> {
  const out = new Map<string, Tokens & { agent: string }>();
  const put = (agent: string, file: string, t: Tokens) => {
    if (t.input || t.output || t.cacheCreation || t.cacheRead) out.set(file, { agent, ...t });
  };
  for (const f of walk(path.join(home, '.claude', 'projects'))) if (f.endsWith('.jsonl')) put('claude-code', f, claude(f));
  for (const f of walk(path.join(home, '.codex', 'sessions'))) if (f.endsWith('.jsonl')) put('codex', f, codex(f));
  for (const f of walk(path.join(home, '.pi', 'agent', 'sessions'))) if (f.endsWith('.jsonl')) put('pi', f, pi(f));
  for (const f of walk(path.join(home, '.gemini', 'tmp'))) if (/\.jsonl?$/.test(f) && f.includes(`${path.sep}chats${path.sep}`)) put('gemini-cli', f, gemini(f));
  for (const f of walk(path.join(home, '.config', 'Code', 'User'))) if (/\.jsonl?$/.test(f)) put('copilot-chat', f, copilot(f));
  const ext: [string, string][] = [['saoudrizwan.claude-dev', 'cline'], ['rooveterinaryinc.roo-cline', 'roo-code'], ['kilocode.kilo-code', 'kilo-code-ext']];
  for (const [publisher, agent] of ext) {
    for (const f of walk(path.join(home, '.config', 'Code', 'User', 'globalStorage', publisher, 'tasks'))) if (path.basename(f) === 'ui_messages.json') put(agent, f, clineTask(f));
  }
  for (const f of walk(path.join(home, '.cline', 'data', 'tasks'))) if (path.basename(f) === 'ui_messages.json') put('cline', f, clineTask(f));
  for (const f of walk(path.join(home, '.cline', 'data', 'sessions'))) if (f.endsWith('.messages.json')) put('cline-cli', f, clineCli(f));
  for (const f of walk(path.join(home, '.continue', 'sessions'))) if (f.endsWith('.json') && path.basename(f) !== 'sessions.json') put('continue-dev', f, continueSession(f));
  for (const f of walk(path.join(home, '.local', 'share', 'amp', 'threads'))) if (f.endsWith('.json')) put('amp', f, amp(f));
  for (const f of walk(path.join(home, '.openhands', 'conversations'))) if (path.basename(f) === 'base_state.json') put('openhands', f, openhands(f));
  // Aider keeps its history in the project folders: those under home's code/ (where the tests put them).
  for (const f of walk(path.join(home, 'code'))) if (path.basename(f) === '.aider.chat.history.md') put('aider', f, aider(f));
  for (const f of walk(path.join(home, '.copilot', 'session-state'))) if (f.endsWith(`${path.sep}events.jsonl`)) put('copilot-cli', f, copilotCli(f));
  for (const f of walk(path.join(home, '.qwen', 'projects'))) if (f.endsWith('.jsonl') && f.includes(`${path.sep}chats${path.sep}`)) put('qwen-code', f, qwen(f));
  for (const f of walk(path.join(home, '.factory', 'sessions'))) if (f.endsWith('.settings.json')) put('factory-droid', f, droid(f));
  return out;
}
