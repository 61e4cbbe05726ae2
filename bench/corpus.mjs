#!/usr/bin/env node
// Generates a corpus shaped like the backup notes' store: many sessions of Claude Code, Codex and Pi
// (agent home folders), most bytes in tool output, then thinking and tool arguments, a thin layer
// of user/assistant text (~2%). Seeded: the same size and seed give the same bytes.
//   node bench/corpus.mjs --size 1G --out bench/out/corpus-1G [--seed 1]
// Writes <out>/home/{.claude,.codex,.pi} and <out>/corpus.json (counts, planted terms).
import * as fs from 'node:fs';
import * as path from 'node:path';

export function parseSize(s) {
  const m = /^([\d.]+)\s*([kmgt]?)b?$/i.exec(String(s));
  if (!m) throw new Error(`bad size "${s}" (e.g. 500M, 1G, 4.2G)`);
  return Math.round(Number(m[1]) * { '': 1, k: 1 << 10, m: 1 << 20, g: 1 << 30, t: 2 ** 40 }[m[2].toLowerCase()]);
}

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'shi', 'po', 'ven', 'dar', 'eth', 'qua', 'zo', 'bri', 'gul', 'fen', 'tor', 'ix', 'ul', 'sa'];
const NONASCII = ['naïve', 'Zürich', 'façade', '東京', 'データ', 'Ελλάδα', 'smörgåsbord', 'jalapeño', 'Łódź', 'число'];

export function generate({ size, out, seed = 1, sessions }) {
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const words = Array.from({ length: 3000 }, () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(SYL)).join(''));
  const idents = Array.from({ length: 600 }, () => {
    const a = pick(words), b = pick(words), c = pick(words);
    return r() < 0.5 ? `${a}${b[0].toUpperCase()}${b.slice(1)}${c[0].toUpperCase()}${c.slice(1)}` : `${a}_${b}_${c}`;
  });
  const sentence = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) {
      const x = r();
      s += (i ? ' ' : '') + (x < 0.08 ? pick(idents) : x < 0.09 ? pick(NONASCII) : pick(words));
    }
    return s + '.';
  };
  const code = (bytes) => {
    const lines = [];
    let n = 0;
    while (n < bytes) {
      const l = `${'  '.repeat(Math.floor(r() * 4))}const ${pick(idents)} = ${pick(idents)}(${pick(words)}, ${Math.floor(r() * 1000)}); // ${pick(words)} ${pick(words)}`;
      lines.push(l);
      n += l.length + 1;
    }
    return lines.join('\n');
  };
  const home = path.join(out, 'home');
  fs.rmSync(out, { recursive: true, force: true });
  const nSessions = sessions ?? Math.max(20, Math.round(size / (600 * 1024)));
  const per = size / nSessions;
  const planted = { rare_turn: 'quixotic-zebra-lantern', rare_tool: 'obsidian-walrus-ledger', sessions_turn: [], sessions_tool: [] };
  let written = 0;
  const counts = { cc: 0, codex: 0, pi: 0, bytes: 0, sessions: nSessions };
  const big = { path: null };
  const t0 = Date.now();
  for (let si = 0; si < nSessions; si++) {
    const agent = si % 10 < 6 ? 'cc' : si % 10 < 9 ? 'codex' : 'pi';
    counts[agent]++;
    const target = Math.max(4096, per * (0.2 + 1.6 * r()));
    const uuid = `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-8${hex(r, 3)}-${hex(r, 12)}`;
    const project = `proj-${si % 97}`;
    const day = new Date(Date.UTC(2026, 0, 1) + si * 3600_000 * 3);
    let file;
    if (agent === 'cc') file = path.join(home, '.claude', 'projects', `-home-user-${project}`, `${uuid}.jsonl`);
    else if (agent === 'codex') {
      const d = day.toISOString();
      file = path.join(home, '.codex', 'sessions', d.slice(0, 4), d.slice(5, 7), d.slice(8, 10), `rollout-${d.slice(0, 19).replace(/:/g, '-')}-${uuid}.jsonl`);
    } else file = path.join(home, '.pi', 'agent', 'sessions', `--home-user-${project}--`, `${day.toISOString().replace(/[:.]/g, '-')}_${uuid}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'w');
    let buf = [];
    let bytes = 0;
    let ts = day.getTime();
    const emit = (o) => {
      const s = JSON.stringify(o) + '\n';
      buf.push(s);
      bytes += Buffer.byteLength(s);
      if (buf.length > 64) {
        fs.writeSync(fd, buf.join(''));
        buf = [];
      }
    };
    const stamp = () => new Date((ts += 1000 + Math.floor(r() * 60000))).toISOString();
    const cwd = `/home/user/${project}`;
    const plantTurn = si % 997 === 5;
    const plantTool = si % 991 === 11;
    if (plantTurn) planted.sessions_turn.push(uuid);
    if (plantTool) planted.sessions_tool.push(uuid);
    if (agent === 'codex') emit({ timestamp: stamp(), type: 'session_meta', payload: { id: uuid, timestamp: stamp(), cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', base_instructions: { text: sentence(200) } } });
    if (agent === 'pi') emit({ type: 'session', version: 3, id: uuid, timestamp: stamp(), cwd });
    let turn = 0;
    let parent = null;
    while (bytes < target) {
      turn++;
      const prompt = sentence(8 + Math.floor(r() * 30)) + (plantTurn && turn === 2 ? ` ${planted.rare_turn}` : '');
      const reply = sentence(15 + Math.floor(r() * 60));
      const thinking = sentence(60 + Math.floor(r() * 200));
      const toolArgs = { command: `${pick(words)} --${pick(words)} ${pick(idents)}`, description: sentence(6), content: code(300 + Math.floor(r() * 1500)) };
      const toolOut = code(2000 + Math.floor(r() * 12000)) + (plantTool && turn === 1 ? `\n${planted.rare_tool}\n` : '');
      const callId = `call_${hex(r, 16)}`;
      if (agent === 'cc') {
        const u = hex(r, 8);
        emit({ parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: uuid, version: '2.1.114', gitBranch: 'main', type: 'user', message: { role: 'user', content: prompt }, uuid: u, timestamp: stamp() });
        const mid = `msg_${hex(r, 20)}`;
        const usage = { input_tokens: 10 + Math.floor(r() * 100), cache_creation_input_tokens: Math.floor(r() * 5000), cache_read_input_tokens: Math.floor(r() * 50000), output_tokens: 50 + Math.floor(r() * 900) };
        const base = { parentUuid: u, isSidechain: false, userType: 'external', cwd, sessionId: uuid, version: '2.1.114', gitBranch: 'main', type: 'assistant', requestId: `req_${hex(r, 12)}` };
        emit({ ...base, message: { model: 'claude-opus-4-5', id: mid, type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking, signature: hex(r, 64) }], stop_reason: null, usage }, uuid: hex(r, 8), timestamp: stamp() });
        emit({ ...base, message: { model: 'claude-opus-4-5', id: mid, type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }], stop_reason: null, usage }, uuid: hex(r, 8), timestamp: stamp() });
        emit({ ...base, message: { model: 'claude-opus-4-5', id: mid, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: callId, name: 'Bash', input: toolArgs }], stop_reason: 'tool_use', usage }, uuid: hex(r, 8), timestamp: stamp() });
        parent = hex(r, 8);
        emit({ parentUuid: u, isSidechain: false, userType: 'external', cwd, sessionId: uuid, version: '2.1.114', gitBranch: 'main', type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: toolOut }] }, uuid: parent, timestamp: stamp(), toolUseResult: { stdout: toolOut.slice(0, 200), stderr: '', interrupted: false } });
      } else if (agent === 'codex') {
        emit({ timestamp: stamp(), type: 'turn_context', payload: { turn_id: hex(r, 12), cwd, model: 'gpt-5.3-codex' } });
        emit({ timestamp: stamp(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } });
        emit({ timestamp: stamp(), type: 'event_msg', payload: { type: 'user_message', message: prompt } });
        emit({ timestamp: stamp(), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: thinking }], content: null, encrypted_content: hex(r, 200) } });
        emit({ timestamp: stamp(), type: 'event_msg', payload: { type: 'agent_message', message: reply } });
        emit({ timestamp: stamp(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] } });
        emit({ timestamp: stamp(), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify(toolArgs), call_id: callId } });
        emit({ timestamp: stamp(), type: 'response_item', payload: { type: 'function_call_output', call_id: callId, output: toolOut } });
        emit({ timestamp: stamp(), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: turn * 1000, output_tokens: turn * 100 } } } });
      } else {
        const uid = hex(r, 8), aid = hex(r, 8), tid = hex(r, 8);
        emit({ type: 'message', id: uid, parentId: parent, timestamp: stamp(), message: { role: 'user', content: [{ type: 'text', text: prompt }], timestamp: ts } });
        emit({ type: 'message', id: aid, parentId: uid, timestamp: stamp(), message: { role: 'assistant', content: [{ type: 'thinking', thinking }, { type: 'text', text: reply }, { type: 'toolCall', id: callId, name: 'bash', arguments: toolArgs }], model: 'claude-opus-4-5', usage: { input: 100, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 300 }, stopReason: 'toolUse', timestamp: ts } });
        emit({ type: 'message', id: tid, parentId: aid, timestamp: stamp(), message: { role: 'toolResult', toolCallId: callId, toolName: 'bash', content: [{ type: 'text', text: toolOut }], isError: false, timestamp: ts } });
        parent = tid;
      }
    }
    if (buf.length) fs.writeSync(fd, buf.join(''));
    fs.closeSync(fd);
    written += bytes;
  }
  counts.bytes = written;
  const info = { size, seed, ...counts, planted, generated_ms: Date.now() - t0 };
  fs.writeFileSync(path.join(out, 'corpus.json'), JSON.stringify(info, null, 1));
  return info;
}

function hex(r, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
}

/** Reuses a corpus generated with the same size and seed. */
export function ensureCorpus(size, seed, outRoot) {
  const out = path.join(outRoot, `corpus-${size}-${seed}`);
  try {
    const info = JSON.parse(fs.readFileSync(path.join(out, 'corpus.json'), 'utf8'));
    if (info.size === size && info.seed === seed) return { out, info, reused: true };
  } catch {
    /* generate */
  }
  return { out, info: generate({ size, out, seed }), reused: false };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = process.argv.slice(2);
  const get = (k, d) => {
    const i = a.indexOf(k);
    return i >= 0 ? a[i + 1] : d;
  };
  const info = generate({ size: parseSize(get('--size', '100M')), out: get('--out', 'bench/out/corpus'), seed: Number(get('--seed', '1')) });
  console.log(JSON.stringify(info));
}
