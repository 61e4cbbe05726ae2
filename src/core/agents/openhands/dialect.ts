// OpenHands conversations -> turns. Each event is a file of its own,
// events/event-<n>-<event id>.json, one JSON document (the SDK's pydantic model, with its class in
// "kind"), written once. The files of a conversation are parts of one session (paths.ts, partOf):
// each event's turn is numbered from its event number, so the session's turns are in event order
// whichever file is read first, and each cites its own file (lines 1..N).
//
//   MessageEvent      { source: "user" | "agent", llm_message: { role, content: [{ type: "text",
//                      text }] } }: a prompt, or a reply in words
//   ActionEvent       { thought: [{ text }], reasoning_content, tool_name, tool_call_id,
//                      tool_call: { id, name, arguments }, llm_response_id }: a reply that calls a
//                      tool (one event per call)
//   ObservationEvent  { tool_name, tool_call_id, observation: { content: [{ text }], is_error } },
//   UserRejectObservation, AgentErrorEvent: a call's outcome, in a file of its own (a tool turn)
//   SystemPromptEvent { system_prompt: { text } }: instructions
// base_state.json (the conversation's state, rewritten whole) holds no turns: its stats hold each
// LLM's accumulated token counts (stats.usage_to_metrics.<usage id>.accumulated_token_usage
// {prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens}; prompt_tokens counts
// what was read from the cache), the session's tokens (FileFacts.unclaimed_tokens: the events
// carry none), of the state's newest generation, as views.sql counts them.
import type { Checkpoint, Dialect, ParseOptions, Tokens, Turn } from '../../turns';
import { addTokens, tokens } from '../../truth';
import { addText, addThinking } from '../kit/parser';
import { DocumentParser } from '../kit/document';
import { arr, isObj, strOrNull, tsOf, type Obj } from '../kit/jsonl';
import { eventIndex } from './paths';

/** The text blocks of a content list, joined. */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : ''))
    .filter((s) => s.trim())
    .join('\n\n');
}

/** Turns of one event file are numbered from its event number (a few per event at most). */
const PER_EVENT = 4;

class OpenHandsParser extends DocumentParser<Record<string, never>> {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
    const i = eventIndex(opts.rel.replace(/\.g\d+\.json$/, '.json'));
    if (!resume && i !== null) this.n = i * PER_EVENT;
  }

  protected document(o: unknown): void {
    if (!isObj(o)) this.counts.bad++;
    else if (isState(this.opts.rel)) this.facts.unclaimed_tokens = stateTokens(o);
    else this.event(o);
  }

  private event(o: Obj): void {
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    let t: Turn | null = null;
    switch (o.kind) {
      case 'MessageEvent': {
        const m = isObj(o.llm_message) ? o.llm_message : {};
        const user = o.source === 'user' || m.role === 'user';
        t = this.docTurn(user ? 'user' : 'assistant', user ? 'prompt' : 'reply', ts);
        addText(t, textOf(m.content));
        if (!user && this.opts.full && typeof m.reasoning_content === 'string') addThinking(t, m.reasoning_content);
        break;
      }
      case 'ActionEvent': {
        t = this.docTurn('assistant', 'reply', ts);
        addText(t, textOf(o.thought));
        if (this.opts.full && typeof o.reasoning_content === 'string') addThinking(t, o.reasoning_content);
        const call = isObj(o.tool_call) ? o.tool_call : {};
        const args = call.arguments ?? (isObj(o.action) ? JSON.stringify(o.action) : '');
        t.tools.push({
          id: strOrNull(o.tool_call_id) ?? strOrNull(call.id),
          name: strOrNull(o.tool_name) ?? strOrNull(call.name) ?? '?',
          arguments: this.opts.full ? (typeof args === 'string' ? args : JSON.stringify(args)) : '',
          output: '',
          is_error: false,
        });
        break;
      }
      case 'ObservationEvent':
      case 'UserRejectObservation':
      case 'AgentErrorEvent': {
        t = this.docTurn('tool', 'output', ts);
        const ob = isObj(o.observation) ? o.observation : {};
        addText(t, o.kind === 'ObservationEvent' ? textOf(ob.content) : String(o.rejection_reason ?? o.error ?? ''));
        t.tools.push({
          id: strOrNull(o.tool_call_id),
          name: strOrNull(o.tool_name) ?? '?',
          arguments: '',
          output: this.opts.full ? t.text : '',
          is_error: o.kind !== 'ObservationEvent' || ob.is_error === true,
        });
        break;
      }
      case 'SystemPromptEvent': {
        t = this.docTurn('system', 'instructions', ts);
        addText(t, textOf(isObj(o.system_prompt) ? [o.system_prompt] : o.system_prompt));
        break;
      }
      default:
        // State updates, pauses, condensations and kinds a newer SDK may add: no turn.
        return;
    }
    this.emit(t);
  }
}

/** base_state.json, or one of its generations (base_state.g<n>.json). */
const isState = (rel: string) => /(^|\/)base_state(\.g\d+)?\.json$/.test(rel);

/** The state's token counts: every LLM's accumulated usage, added up. */
function stateTokens(state: Obj): Tokens | null {
  const stats = isObj(state.stats) && isObj(state.stats.usage_to_metrics) ? state.stats.usage_to_metrics : {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  let t: Tokens | null = null;
  for (const m of Object.values(stats)) {
    const u = isObj(m) && isObj(m.accumulated_token_usage) ? m.accumulated_token_usage : null;
    if (!u) continue;
    const k = tokens({ input: n(u.prompt_tokens), inputIncludesCached: true, cached: n(u.cache_read_tokens), cacheWrite: n(u.cache_write_tokens), output: n(u.completion_tokens) });
    t = addTokens(t, { ...k, input: Math.max(0, k.input) });
  }
  return t;
}

export const openhandsDialect: Dialect = {
  reads: (rel) => /\/events\/event-\d{5,}-[^/]+\.json$/.test(rel) || isState(rel),
  sharedSpans: () => true,
  open: (opts, emit, resume) => new OpenHandsParser(opts, emit, resume),
};
