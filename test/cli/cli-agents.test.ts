// Copilot CLI, Qwen Code and Factory Droid on a floor captured by `brain record` from their
// recorded transcripts (test/fixtures/copilot-cli, qwen, factory, copied to ~/.copilot, ~/.qwen,
// ~/.factory): search finds what each turn said, with citations that check with sed and sha256sum;
// show renders the session; brain mcp's search and read_session answer the same; derived.calls
// holds each tool call with the line of its result (read here from the file); Droid's token
// totals, rewritten whole in its settings file, count once per session however many generations
// the floor keeps. And Copilot Chat's 0.37 format: result.usage tokens, its tool invocations in
// derived.calls, the project its workspace.json names.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { rawUsage } from '../helpers/rawusage';
import { startMcp } from '../mcp/helpers';

let sb: Sandbox;
const QUIET = { BRAIN_QUIET_SECONDS: '0', BRAIN_REWRITE_QUIET_SECONDS: '0' };

const COPILOT_CLI = path.join('.copilot', 'session-state', 'aff2d723-ee75-4724-85fd-d631b871d0eb', 'events.jsonl');
const QWEN = path.join('.qwen', 'projects', '-tmp-brain-fixtures-qwen-home-work-brain-demo', 'chats', '5b0d7c2e-8f1a-4c3d-9e6b-2a4f8c1d3e57.jsonl');
const DROID = path.join('.factory', 'sessions', '-tmp-brain-fixtures-droid-home-work-brain-demo', 'ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446');
const CHAT_DIR = path.join('.config', 'Code', 'User', 'workspaceStorage', 'fixtures', 'chatSessions');

/** A Copilot Chat session in the 0.37 shape: the fixture's document with its tokens moved from
 * result.metadata to result.usage {promptTokens, completionTokens}. */
function addCopilot037(home: string): void {
  const doc = JSON.parse(fs.readFileSync(path.join(home, CHAT_DIR, 'git-ai-copilot_session_simple.json'), 'utf8'));
  doc.sessionId = 'copilot-037';
  doc.requests.forEach((r: any, i: number) => {
    delete r.result.metadata.promptTokens;
    delete r.result.metadata.outputTokens;
    r.result.usage = { promptTokens: 2000 + i, completionTokens: 300 + i, totalTokens: 2300 + 2 * i };
  });
  fs.writeFileSync(path.join(home, CHAT_DIR, 'copilot-037.json'), JSON.stringify(doc, null, 2));
}

function json(args: string[]) {
  const r = brain(sb, args, { env: QUIET });
  assert.equal(r.status, 0, `brain ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function checks(c: { lake_path: string; line_from: number; line_to: number; sha256: string }): void {
  const out = execFileSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, c.lake_path)], { encoding: 'utf8' });
  assert.equal(out.split(' ')[0], c.sha256, `${c.lake_path} lines ${c.line_from}-${c.line_to}`);
}

before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-agents' });
  addCopilot037(sb.home);
  const r = brain(sb, ['record'], { env: QUIET });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

const CASES = [
  { lane: 'copilot_cli', agent: 'copilot-cli', session: 'aff2d723-ee75-4724-85fd-d631b871d0eb', said: ['tangerine-aqueduct build', 'walrus-belfry step found nothing'], file: COPILOT_CLI },
  { lane: 'qwen', agent: 'qwen-code', session: '5b0d7c2e-8f1a-4c3d-9e6b-2a4f8c1d3e57', said: ['cobalt-zeppelin build', 'heron-quarry step found nothing'], file: QWEN },
  { lane: 'droid', agent: 'factory-droid', session: 'ddc2bb03-a9a4-4fd4-bbe8-9fca412d4446', said: ['amber-funicular build', 'lynx-orchard step found nothing'], file: `${DROID}.jsonl` },
];

for (const c of CASES) {
  test(`${c.lane}: search finds each turn's words in its session, with a citation that checks`, () => {
    for (const term of c.said) {
      const j = json(['search', term, '--json']);
      const hit = j.hits[0];
      assert.ok(hit, `"${term}" found nothing`);
      assert.equal(hit.session, c.session);
      assert.equal(hit.lane, c.lane);
      assert.equal(hit.agent, c.agent);
      assert.equal(hit.tier, 'turns');
      const s = hit.snippets.find((x: any) => x.text.toLowerCase().includes(term.toLowerCase()));
      assert.ok(s, JSON.stringify(hit.snippets));
      checks(s.citation);
      assert.ok(fs.readFileSync(path.join(sb.brain, s.citation.lake_path)).subarray(s.citation.byte_from, s.citation.byte_to).toString().includes(term.split(' ')[0]));
    }
  });

  test(`${c.lane}: show renders the session's prompts and replies, and --agent names it`, () => {
    const j = json(['show', c.session, '--json']);
    const said = j.turns.filter((t: any) => t.role === 'user' || t.role === 'assistant');
    assert.equal(said.filter((t: any) => t.role === 'user').length, 2);
    assert.ok(said.some((t: any) => t.tools.length === 1), 'the reply with the tool call');
    for (const t of said) checks(t.citation);
    const st = json(['stats', '--agent', c.lane, '--json']);
    assert.deepEqual(st.rows.map((r: any) => r.key), [c.agent]);
    assert.equal(st.rows[0].turns, said.length);
  });

  test(`${c.lane}: derived.calls holds its tool call, with the line its result is on`, () => {
    const lines = fs.readFileSync(path.join(sb.home, c.file), 'utf8').split('\n');
    const resultLine = lines.findIndex((l) => l.includes('probe-output-') && /"(tool\.execution_complete|tool_result)"/.test(l)) + 1;
    assert.ok(resultLine > 0);
    const j = json(['sql', `SELECT tool_name, call_id, result_line_no, is_error, project FROM derived.calls WHERE agent = '${c.agent}'`, '--json']);
    assert.equal(j.rows.length, 1, JSON.stringify(j.rows));
    const [row] = j.rows;
    assert.equal(Number(row.result_line_no ?? row[2]), resultLine);
    assert.equal(String(row.is_error ?? row[3]), 'false');
    assert.match(String(row.project ?? row[4]), /brain-demo$/);
    assert.ok(lines.some((l) => l.includes(String(row.call_id ?? row[1]))), 'the call id is the one in the file');
  });
}

test('brain mcp: search and read_session answer for the new agents as the CLI does', async () => {
  const mcp = await startMcp(sb.env);
  try {
    for (const c of CASES) {
      const r = await mcp.call('search', { term: c.said[1] });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.json.hits[0].session, c.session);
      const s = await mcp.call('read_session', { session: c.session });
      assert.equal(s.isError, false, s.text);
      assert.ok(s.text.includes(c.said[1].split(' ')[0]), 'the session read back holds the reply');
    }
  } finally {
    await mcp.close();
  }
});

test('Droid: a rewritten settings file is a new generation, and its totals count once', () => {
  const settings = path.join(sb.home, `${DROID}.settings.json`);
  const before = JSON.parse(fs.readFileSync(settings, 'utf8'));
  // What Droid does after another turn: the whole file again, with larger running totals.
  const next = { ...before, tokenUsage: { ...before.tokenUsage, inputTokens: before.tokenUsage.inputTokens + 500, outputTokens: before.tokenUsage.outputTokens + 40, cacheReadTokens: 1200 } };
  fs.writeFileSync(settings, JSON.stringify(next, null, 2));
  const r = brain(sb, ['record'], { env: QUIET });
  assert.equal(r.status, 0, r.stderr);
  const lake = path.join(sb.brain, 'lake', 'droid', path.relative(path.join(sb.home, '.factory', 'sessions'), settings));
  assert.ok(fs.existsSync(lake) && fs.existsSync(lake.replace(/\.json$/, '.g2.json')), 'the first version is kept and the rewrite is generation 2');
  const raw = [...rawUsage(sb.home).entries()].filter(([, t]) => t.agent === 'factory-droid');
  assert.equal(raw.length, 1);
  const want = raw[0][1];
  const j = json(['stats', '--agent', 'droid', '--json']);
  assert.deepEqual(j.rows[0].tokens, { input: want.input, output: want.output, cache_creation: want.cacheCreation, cache_read: want.cacheRead, total: want.input + want.output + want.cacheCreation + want.cacheRead });
  assert.equal(want.cacheRead, 1200);
});

test('Copilot Chat 0.37: result.usage tokens, tool invocations in derived.calls, the project from workspace.json', () => {
  const file = path.join(sb.home, CHAT_DIR, 'copilot-037.json');
  const raw = rawUsage(sb.home).get(file);
  assert.ok(raw && raw.input > 0 && raw.output > 0, 'the raw file carries result.usage tokens');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const sum = (k: string) => doc.requests.reduce((a: number, r: any) => a + r.result.usage[k], 0);
  assert.deepEqual([raw.input, raw.output], [sum('promptTokens'), sum('completionTokens')]);
  const u = json(['sql', `SELECT sum(input_tokens)::BIGINT AS i, sum(output_tokens)::BIGINT AS o FROM derived.usage WHERE session_id = 'copilot-037'`, '--json']).rows[0];
  assert.deepEqual([Number(u.i ?? u[0]), Number(u.o ?? u[1])], [raw.input, raw.output]);
  // The tool invocations the response parts record, counted here, are the session's calls.
  const parts = doc.requests.flatMap((r: any) => r.response.filter((p: any) => p.kind === 'toolInvocationSerialized').map((p: any) => p.toolCallId));
  assert.ok(parts.length > 0);
  const calls = json(['sql', `SELECT call_id, tool_name, project FROM derived.tool_calls t JOIN derived.files s USING (file_id) WHERE t.session_id = 'copilot-037'`, '--json']).rows;
  assert.deepEqual(calls.map((r: any) => r.call_id ?? r[0]).sort(), [...parts].sort());
  assert.ok(calls.every((r: any) => (r.tool_name ?? r[1]) && (r.project ?? r[2]) === '/Users/svarlamov/projects/testing-git'), JSON.stringify(calls));
});
