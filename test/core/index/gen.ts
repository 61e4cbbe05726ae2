// Generated transcripts in the three JSONL dialects, from a seeded generator: prose, code
// identifiers and non-ASCII text (accents, CJK, Greek, Cyrillic, emoji), spread over prompts,
// replies, thinking and tool output, so equivalence tests cover what fixtures alone do not.
// The same seeded xorshift the product samples with.
export { seededRandom as rng } from '../../../src/core/sample';

const WORDS = [
  'the', 'index', 'search', 'session', 'floor', 'manifest', 'citation', 'turn', 'agent', 'store', 'backup', 'rsync',
  'parseJsonLine', 'snake_case_value', 'HTTP_404', 'useEffect', 'fs.readFileSync', 'src/core/index/turns.ts', '--since=7d',
  'naïve', 'Größe', 'café', 'façade', '日本語', 'ファイル', '検索', 'Ελληνικά', 'русский', 'Ünïcödé', 'ŒUVRE', 'İstanbul',
  '🎉', '🚀', 'x²', '→', '—', '“quoted”', '"double"', "it's", 'back\\slash', 'tab\there', 'a%b_c', 'C++', '$HOME',
  'multiplexer', 'herdr', 'trigram', 'FTS5', 'WAL', 'BEGIN IMMEDIATE', 'O(n²)', '<div>', '&amp;', 'MiXeDcAsE',
];

export function sentence(r: () => number, n: number): string {
  const w: string[] = [];
  for (let i = 0; i < n; i++) {
    let x = WORDS[Math.floor(r() * WORDS.length)];
    if (r() < 0.08) x = x.toUpperCase();
    if (r() < 0.05) x += String(Math.floor(r() * 1000));
    w.push(x);
  }
  let s = w.join(' ');
  if (r() < 0.1) s += '\n\n' + w.slice(0, 3).join('\n');
  return s;
}

export interface GenSession {
  lane: 'cc' | 'codex' | 'pi';
  rel: string;
  lines: string[];
  session: string;
}

function uuid(r: () => number): string {
  const h = () => Math.floor(r() * 16).toString(16);
  const p = (n: number) => Array.from({ length: n }, h).join('');
  return `${p(8)}-${p(4)}-4${p(3)}-a${p(3)}-${p(12)}`;
}

export function genClaude(r: () => number, turns: number, project = 'gen-project'): GenSession {
  const sid = uuid(r);
  const lines: string[] = [];
  let t = Date.parse('2026-03-01T10:00:00Z') + Math.floor(r() * 1e9);
  const env = () => ({ sessionId: sid, cwd: `/work/${project}`, version: '2.1.0', timestamp: new Date((t += 1000)).toISOString(), uuid: uuid(r) });
  for (let i = 0; i < turns; i++) {
    lines.push(JSON.stringify({ ...env(), type: 'user', isSidechain: false, message: { role: 'user', content: sentence(r, 4 + Math.floor(r() * 20)) } }));
    const id = `msg_${uuid(r)}`;
    const usage = { input_tokens: 10, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 5 };
    lines.push(JSON.stringify({ ...env(), type: 'assistant', message: { id, model: 'claude-gen', role: 'assistant', content: [{ type: 'thinking', thinking: sentence(r, 8) }], usage } }));
    lines.push(JSON.stringify({ ...env(), type: 'assistant', message: { id, model: 'claude-gen', role: 'assistant', content: [{ type: 'text', text: sentence(r, 5 + Math.floor(r() * 30)) }], usage } }));
    if (r() < 0.6) {
      const tid = `toolu_${uuid(r)}`;
      lines.push(JSON.stringify({ ...env(), type: 'assistant', message: { id, model: 'claude-gen', role: 'assistant', content: [{ type: 'tool_use', id: tid, name: 'Bash', input: { command: sentence(r, 3) } }], usage } }));
      lines.push(JSON.stringify({ ...env(), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: tid, content: sentence(r, 40) }] }, toolUseResult: { stdout: sentence(r, 40) } }));
    }
  }
  return { lane: 'cc', rel: `-work-${project}/${sid}.jsonl`, lines, session: sid };
}

export function genPi(r: () => number, turns: number, project = 'gen-project'): GenSession {
  const sid = uuid(r);
  let t = Date.parse('2026-02-01T10:00:00Z') + Math.floor(r() * 1e9);
  const ts = () => new Date((t += 1000)).toISOString();
  const lines = [JSON.stringify({ type: 'session', version: 3, id: sid, timestamp: ts(), cwd: `/work/${project}` })];
  let parent: string | null = null;
  for (let i = 0; i < turns; i++) {
    const u = uuid(r).slice(0, 8);
    lines.push(JSON.stringify({ type: 'message', id: u, parentId: parent, timestamp: ts(), message: { role: 'user', content: [{ type: 'text', text: sentence(r, 3 + Math.floor(r() * 20)) }] } }));
    const a = uuid(r).slice(0, 8);
    const call = `call_${i}`;
    lines.push(
      JSON.stringify({
        type: 'message',
        id: a,
        parentId: u,
        timestamp: ts(),
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: sentence(r, 6) },
            { type: 'text', text: sentence(r, 5 + Math.floor(r() * 25)) },
            { type: 'toolCall', id: call, name: 'bash', arguments: { command: sentence(r, 3) } },
          ],
          model: 'pi-gen',
          usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
        },
      }),
    );
    const tr = uuid(r).slice(0, 8);
    lines.push(JSON.stringify({ type: 'message', id: tr, parentId: a, timestamp: ts(), message: { role: 'toolResult', toolCallId: call, toolName: 'bash', content: [{ type: 'text', text: sentence(r, 30) }], isError: false } }));
    parent = tr;
  }
  return { lane: 'pi', rel: `--work-${project}--/${ts().replace(/[:.]/g, '-')}_${sid}.jsonl`, lines, session: sid };
}

export function genCodex(r: () => number, turns: number, project = 'gen-project'): GenSession {
  const sid = uuid(r);
  let t = Date.parse('2026-01-05T10:00:00Z') + Math.floor(r() * 1e9);
  const ts = () => new Date((t += 1000)).toISOString();
  const line = (type: string, payload: object) => JSON.stringify({ timestamp: ts(), type, payload });
  const lines = [line('session_meta', { id: sid, timestamp: ts(), cwd: `/work/${project}`, cli_version: '0.100.0', base_instructions: { text: sentence(r, 30) } })];
  lines.push(line('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: sentence(r, 20) }] }));
  lines.push(line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>${sentence(r, 10)}</environment_context>` }] }));
  for (let i = 0; i < turns; i++) {
    const p = sentence(r, 3 + Math.floor(r() * 20));
    lines.push(line('event_msg', { type: 'task_started', turn_id: `t${i}` }));
    lines.push(line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: p }] }));
    lines.push(line('event_msg', { type: 'user_message', message: p }));
    lines.push(line('turn_context', { turn_id: `t${i}`, cwd: `/work/${project}`, model: 'gpt-gen' }));
    lines.push(line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: sentence(r, 8) }], encrypted_content: 'gAAAA' }));
    const a = sentence(r, 5 + Math.floor(r() * 25));
    lines.push(line('event_msg', { type: 'agent_message', message: a }));
    lines.push(line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: a }] }));
    lines.push(line('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: sentence(r, 3) }), call_id: `call_${i}` }));
    lines.push(line('response_item', { type: 'function_call_output', call_id: `call_${i}`, output: sentence(r, 30) }));
    lines.push(line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: sentence(r, 6) }] }));
  }
  return { lane: 'codex', rel: `sessions/2026/01/05/rollout-2026-01-05T10-00-00-${sid}.jsonl`, lines, session: sid };
}
