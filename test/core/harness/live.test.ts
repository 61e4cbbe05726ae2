// After `brain init`, the real harnesses pick up what it set up, each against a scripted model API
// on 127.0.0.1 that keeps what they send:
// - Claude Code, Codex and Pi list the brain-recall skill (name and description) to the model;
// - Claude Code and Codex list brain's MCP tools, call `search` when the model asks, and hand
//   brain mcp their own session id: Claude Code in CLAUDE_CODE_SESSION_ID, Codex in the call's
//   _meta; the answer says which session it left out, and it is the harness's own.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, startDenyProxy, type DenyProxy } from '../../agents/harness';
import { type Sandbox } from '../../helpers/env';
import { capturedFloor } from '../../mcp/helpers';
import { BIN, init, pathWith } from './helpers';
import { MARK, startScripted } from './scripted';

const GH = 'fe869ecb-c176-478f-9734-7e4b8ef12cff';
// (Pi writes the description as XML, with the apostrophe escaped: match a part without one.)
const DESCRIPTION_START = 'recorded coding-agent sessions (Claude Code, Codex, Pi, cursor-agent;';

let sb: Sandbox;
let proxy: DenyProxy;
let codexProvider: string;

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...sb.env,
    HTTP_PROXY: proxy.url,
    HTTPS_PROXY: proxy.url,
    http_proxy: proxy.url,
    https_proxy: proxy.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    NO_COLOR: '1',
    ...extra,
  };
}

before(async () => {
  sb = capturedFloor('live');
  sb.env.PATH = pathWith(true);
  proxy = await startDenyProxy();
  // Codex's model provider goes in first; brain's table is appended after it.
  const codexHome = path.join(sb.home, '.codex');
  codexProvider = path.join(codexHome, 'config.toml');
  fs.writeFileSync(
    codexProvider,
    // No update check, analytics, plugins or apps: they reach github.com and chatgpt.com at start-up.
    ['model = "gpt-standin"', 'model_provider = "standin"', 'approval_policy = "never"', 'check_for_update_on_startup = false', '', '[analytics]', 'enabled = false', '', '[features]', 'plugins = false', 'remote_plugin = false', 'apps = false', '', '[model_providers.standin]', 'name = "standin"', 'base_url = "http://127.0.0.1:1/v1"', 'wire_api = "responses"', 'env_key = "STANDIN_KEY"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'),
  );
  const r = init(sb);
  for (const s of ['mcp cc', 'mcp codex', 'skill cc', 'skill codex', 'skill pi']) assert.equal(r.step(s).status, 'changed', `${s}: ${JSON.stringify(r.step(s))}`);
});

after(async () => {
  await proxy?.close();
  sb?.cleanup();
});

function parseResult(text: string | null): any {
  assert.ok(text, 'the agent sent the tool result back to the model');
  const at = text.indexOf('{');
  assert.ok(at >= 0, `the tool result holds brain's JSON: ${text.slice(0, 500)}`);
  return JSON.parse(text.slice(at, text.lastIndexOf('}') + 1));
}

test('Claude Code: sees the skill and the tools, calls search, and brain mcp leaves out that very session', async () => {
  const api = await startScripted('anthropic', { name: 'mcp__brain__search', input: { term: 'GitHub Action' } });
  try {
    // MCP_TIMEOUT: Claude Code's wait for MCP servers to start; its default is short enough that
    // on a busy machine the first request goes out before brain mcp has listed its tools.
    const run = await runCli(
      path.join(BIN, 'claude'),
      ['-p', `${MARK}: what did we decide about the GitHub Action?`, '--output-format', 'json', '--allowedTools', 'mcp__brain__search'],
      env({ ANTHROPIC_BASE_URL: api.baseUrl, ANTHROPIC_API_KEY: 'sk-ant-standin', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', MCP_TIMEOUT: '120000' }),
      sb.home,
    );
    assert.equal(run.code, 0, `claude: ${run.stdout}\n${run.stderr}`);
    const session = JSON.parse(run.stdout).session_id as string;
    const first = api.bodies.find((b) => b.includes(MARK));
    assert.ok(first, 'the prompt reached the model');
    assert.match(first, /brain-recall/);
    assert.ok(first.includes(DESCRIPTION_START), 'the skill description is in what Claude Code sends');
    for (const t of ['search', 'read_session', 'cite', 'verify_citation', 'sql']) assert.ok(first.includes(`mcp__brain__${t}`), `tool mcp__brain__${t} is offered`);
    const result = parseResult(api.toolResult());
    assert.deepEqual(result.skipped, { session, source: 'env CLAUDE_CODE_SESSION_ID' });
    assert.equal(result.hits[0].session, GH, 'and it found the fixture session');
    assert.deepEqual(proxy.attempts, [], 'nothing tried to leave 127.0.0.1');
  } finally {
    await api.close();
  }
});

test('Codex: sees the skill and the tools, calls search, and brain mcp leaves out that very thread', async () => {
  const api = await startScripted('responses', { name: 'search', namespace: 'mcp__brain', input: { term: 'GitHub Action' } });
  try {
    fs.writeFileSync(codexProvider, fs.readFileSync(codexProvider, 'utf8').replace('http://127.0.0.1:1/v1', api.baseUrl));
    const run = await runCli(path.join(BIN, 'codex'), ['exec', '--skip-git-repo-check', `${MARK}: what did we decide about the GitHub Action?`], env({ STANDIN_KEY: 'sk-standin' }), sb.home);
    assert.equal(run.code, 0, `codex: ${run.stdout}\n${run.stderr}`);
    const rollouts = fs.readdirSync(path.join(sb.home, '.codex', 'sessions'), { recursive: true }).map(String).filter((f) => /rollout-.*\.jsonl$/.test(f) && !f.includes('2026/02/23') && !f.includes('2025/01/01'));
    assert.equal(rollouts.length, 1, `one new rollout: ${rollouts.join(', ')}`);
    const thread = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollouts[0])![1];
    const first = api.bodies.find((b) => b.includes(MARK));
    assert.ok(first, 'the prompt reached the model');
    assert.ok(first.includes('brain-recall') && first.includes(DESCRIPTION_START), 'the skill is listed');
    const tools = JSON.parse(first).tools as { name?: string; tools?: { name: string }[] }[];
    const ns = tools.find((t) => t.name === 'mcp__brain');
    assert.ok(ns, `brain's tools are offered: ${tools.map((t) => t.name).join(', ')}`);
    const result = parseResult(api.toolResult());
    assert.deepEqual(result.skipped, { session: thread, source: '_meta.threadId' });
    assert.equal(result.hits[0].session, GH);
    assert.deepEqual(proxy.attempts, [], 'nothing tried to leave 127.0.0.1');
  } finally {
    await api.close();
  }
});

test('Pi: lists the brain-recall skill to the model', async () => {
  const api = await startScripted('chat');
  try {
    const agentDir = path.join(sb.home, '.pi', 'agent');
    const model = { id: 'standin', name: 'standin', reasoning: false, input: ['text'], contextWindow: 128000, maxTokens: 8192, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    fs.writeFileSync(path.join(agentDir, 'models.json'), JSON.stringify({ providers: { standin: { baseUrl: api.baseUrl, api: 'openai-completions', apiKey: 'STANDIN_KEY', models: [model] } } }));
    const run = await runCli(path.join(BIN, 'pi'), ['--provider', 'standin', '--model', 'standin', '-p', `${MARK}: hello`], env({ STANDIN_KEY: 'sk-standin', PI_OFFLINE: '1', PI_TELEMETRY: '0' }), sb.home);
    assert.equal(run.code, 0, `pi: ${run.stdout}\n${run.stderr}`);
    const first = api.bodies.find((b) => b.includes(MARK));
    assert.ok(first, 'the prompt reached the model');
    assert.ok(first.includes('<name>brain-recall</name>'), 'the skill is in the system prompt');
    assert.ok(first.includes(DESCRIPTION_START));
  } finally {
    await api.close();
  }
});
