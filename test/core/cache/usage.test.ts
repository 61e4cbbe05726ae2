// Tokens per session and per agent, from derived.usage and from the report behind `brain stats`,
// equal the usage fields of the fixture files summed by the test itself (test/helpers/rawusage.ts):
// Claude Code's last streamed line per message id, Codex's token_count events, Pi's assistant
// lines, Gemini's messages, Copilot's request metadata, Copilot CLI's usage records, Qwen's
// usageMetadata, Droid's settings totals. The Copilot fixtures carry no tokens, so
// copies of them with tokens are added (a .json and a .jsonl log whose later line resets them).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rebuildCache } from '../../../src/core/cache';
import { cacheStats } from '../../../src/core/cache/reports';
import type { Sandbox } from '../../helpers/env';
import { rawUsage, type Tokens } from '../../helpers/rawusage';
import { all, capturedSandbox } from './helpers';

let sb: Sandbox;

function addCopilotTokens(home: string): void {
  const src = path.join(home, '.config', 'Code', 'User', 'workspaceStorage', 'fixtures', 'chatSessions');
  const dst = path.join(home, '.config', 'Code', 'User', 'workspaceStorage', 'tokens', 'chatSessions');
  fs.mkdirSync(dst, { recursive: true });
  const doc = JSON.parse(fs.readFileSync(path.join(src, 'git-ai-copilot_session_simple.json'), 'utf8'));
  doc.sessionId = 'copilot-tokens-json';
  doc.requests.forEach((r: any, i: number) => {
    r.result.metadata.promptTokens = 1000 + i;
    r.result.metadata.outputTokens = 70 + i;
  });
  fs.writeFileSync(path.join(dst, 'copilot-tokens-json.json'), JSON.stringify(doc, null, 2));
  doc.sessionId = 'copilot-tokens-log';
  const log = [
    { kind: 0, v: doc },
    { kind: 1, k: ['requests', 0, 'result'], v: { ...doc.requests[0].result, metadata: { ...doc.requests[0].result.metadata, promptTokens: 5000, outputTokens: 600 } } },
  ];
  fs.writeFileSync(path.join(dst, 'copilot-tokens-log.jsonl'), log.map((o) => JSON.stringify(o) + '\n').join(''));
}

before(async () => {
  sb = await capturedSandbox('usage-raw', (s) => addCopilotTokens(s.home));
  await rebuildCache(sb.brain);
});
after(() => sb.cleanup());

const sumOf = (rows: Tokens[]): Tokens =>
  rows.reduce((a, t) => ({ input: a.input + t.input, output: a.output + t.output, cacheCreation: a.cacheCreation + t.cacheCreation, cacheRead: a.cacheRead + t.cacheRead }), {
    input: 0,
    output: 0,
    cacheCreation: 0,
    cacheRead: 0,
  });

test('derived.usage per session equals the usage summed from each raw file', async () => {
  const raw = rawUsage(sb.home);
  const rows = await all(
    sb.brain,
    `SELECT abs_path, any_value(agent), sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens), sum(cache_read_tokens)
     FROM derived.usage GROUP BY abs_path ORDER BY abs_path`,
  );
  const ours = new Map(rows.map((r) => [r[0] as string, { agent: r[1] as string, input: Number(r[2]), output: Number(r[3]), cacheCreation: Number(r[4]), cacheRead: Number(r[5]) }]));
  assert.deepEqual([...ours.keys()].sort(), [...raw.keys()].sort(), 'the files with usage');
  for (const [file, t] of raw) assert.deepEqual(ours.get(file), t, file);
  // Every agent whose files carry usage is there, sub-agents' files included.
  assert.deepEqual([...new Set([...raw.values()].map((t) => t.agent))].sort(), ['claude-code', 'cline', 'cline-cli', 'codex', 'continue-dev', 'copilot-chat', 'copilot-cli', 'factory-droid', 'gemini-cli', 'kilo-code-ext', 'pi', 'qwen-code', 'roo-code']);
  assert.ok([...raw.keys()].some((f) => f.includes('/subagents/')));
});

test('Claude Code: a reply streamed over several lines counts its last line, once', async () => {
  const file = [...rawUsage(sb.home).keys()].find((f) => f.endsWith('fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl'))!;
  const [[lines, replies, out]] = await all(
    sb.brain,
    `SELECT (SELECT count(*) FROM derived.usage_lines WHERE abs_path = '${file}'), count(*), sum(output_tokens)
     FROM derived.usage WHERE abs_path = '${file}'`,
  );
  assert.equal(Number(replies), 34, 'one row per message id');
  assert.ok(Number(lines) > 34, 'the replies span more lines than that');
  assert.equal(Number(out), 2201);
});

test('brain stats per agent: tokens equal the raw files summed', async () => {
  const raw = [...rawUsage(sb.home).values()];
  const st = await cacheStats(sb.brain, 'agent');
  for (const agent of ['claude-code', 'codex', 'pi', 'gemini-cli', 'copilot-chat', 'copilot-cli', 'qwen-code', 'factory-droid']) {
    const want = sumOf(raw.filter((t) => t.agent === agent));
    const row = st.rows.find((r) => r.key === agent);
    assert.ok(row, agent);
    assert.deepEqual({ input: row.tokens.input, output: row.tokens.output, cacheCreation: row.tokens.cache_creation, cacheRead: row.tokens.cache_read }, want, agent);
    assert.ok(want.input + want.output > 0, `${agent} has tokens`);
  }
});
