// brain stats through the built CLI: per agent, day, project; --json totals agree with the rows
// and with SQL over the cache; Claude Code tokens per day agree with ccusage (the core test runs
// ccusage itself; here the CLI is checked against the cache).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { rawUsage } from '../helpers/rawusage';
import { BUILTIN } from '../../src/core/agents';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-stats' });
  assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
});
after(() => sb.cleanup());

const json = (args: string[]) => {
  const r = brain(sb, args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('stats --by agent: one row per agent, totals add up', () => {
  const j = json(['stats', '--json']);
  assert.equal(j.by, 'agent');
  // One row for every agent the fixtures hold sessions of.
  assert.deepEqual(j.rows.map((r: { key: string }) => r.key).sort(), ['claude-code', 'cline', 'cline-cli', 'codex', 'continue-dev', 'copilot-chat', 'copilot-cli', 'cursor-agent', 'factory-droid', 'gemini-cli', 'kilo-code-ext', 'pi', 'qwen-code', 'roo-code']);
  const sum = (f: (r: any) => number) => j.rows.reduce((a: number, r: any) => a + f(r), 0);
  assert.equal(j.total.key, 'total');
  assert.equal(j.total.sessions, sum((r) => r.sessions));
  assert.equal(j.total.turns, sum((r) => r.turns));
  assert.equal(j.total.tokens.input, sum((r) => r.tokens.input));
  assert.equal(j.total.tool_calls, sum((r) => r.tool_calls));
  const cc = j.rows.find((r: any) => r.key === 'claude-code');
  const sql = json(['sql', '--json', `SELECT sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens), sum(cache_read_tokens) FROM derived.usage WHERE agent = 'claude-code'`]);
  assert.deepEqual([cc.tokens.input, cc.tokens.output, cc.tokens.cache_creation, cc.tokens.cache_read], sql.rows[0]);
  assert.ok(cc.models.includes('claude-opus-4-7'));
  assert.ok(cc.top_tools[0].calls >= cc.top_tools[1].calls);
});

test('stats --by day and --by project, --agent and --since filter', () => {
  const d = json(['stats', '--by', 'day', '--agent', 'claude-code', '--json']);
  assert.equal(d.time_zone, 'UTC');
  assert.ok(d.rows.length > 3);
  for (const r of d.rows) assert.match(r.key, /^\d{4}-\d{2}-\d{2}$|^\(no time\)$/);
  const sql = json(['sql', '--json', `SELECT strftime(event_time, '%Y-%m-%d'), sum(output_tokens) FROM derived.usage WHERE agent = 'claude-code' GROUP BY 1`]);
  for (const [day, out] of sql.rows) assert.equal(d.rows.find((r: any) => r.key === day).tokens.output, out, day);
  const p = json(['stats', '--by', 'project', '--json']);
  assert.ok(p.rows.some((r: any) => r.key === '/Users/badlogic/workspaces/pi-mono' && r.turns > 100));
  const s = json(['stats', '--since', '2026-01-01', '--json']);
  assert.ok(s.total.turns < json(['stats', '--json']).total.turns);
});

test('human output is a table; bad options are usage errors', () => {
  const r = brain(sb, ['stats', '--by', 'agent']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.split('\n')[0], /^agent\s+sessions\s+turns\s+in\s+out\s+cc:write\s+cc:read\s+tools\s+failed\s+models$/);
  assert.match(r.stdout, /\ntotal\s+\d+/);
  const bad = brain(sb, ['stats', '--by', 'week']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--by expects one of agent, day, project, machine/);
  const ag = brain(sb, ['stats', '--agent', 'gpt']);
  assert.equal(ag.status, 2);
  assert.match(ag.stderr, /unknown agent "gpt"/);
});

test('--agent takes every name of an agent, as search does; --since takes 7d as search does', () => {
  // Every agent stats lists can be asked for by the name it lists (gemini-cli was refused).
  const all = json(['stats', '--json']);
  for (const row of all.rows) {
    const one = json(['stats', '--agent', row.key, '--json']);
    assert.deepEqual(one.rows.map((r: { key: string }) => r.key), [row.key], row.key);
    assert.equal(one.total.turns, row.turns, row.key);
  }
  // Lane, display name and alias name the same agent; a comma list names several.
  for (const name of ['gemini', 'Gemini CLI', 'gemini-cli']) assert.deepEqual(json(['stats', '--agent', name, '--json']).rows.map((r: any) => r.key), ['gemini-cli'], name);
  assert.deepEqual(json(['stats', '--agent', 'claude', '--json']).agent, 'claude-code');
  assert.deepEqual(json(['stats', '--agent', 'cc,codex', '--json']).rows.map((r: any) => r.key).sort(), ['claude-code', 'codex']);
  assert.deepEqual(json(['calls', '--agent', 'cursor', '--json']).rows.map((r: any) => r.agent).filter((a: string, i: number, l: string[]) => l.indexOf(a) === i), ['cursor-agent']);
  // A relative since: a century back covers everything, as the date a century back does.
  assert.equal(json(['stats', '--since', '5200w', '--json']).total.turns, all.total.turns);
  assert.equal(json(['calls', '--since', '36500d', '--json']).total.calls, json(['calls', '--since', '1930-01-01', '--json']).total.calls);
  const bad = brain(sb, ['stats', '--since', 'soon']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /cannot read "soon" as a date/);
});

test('stats --json tokens per agent equal the usage fields of the raw files, summed here', () => {
  const raw = [...rawUsage(sb.home).values()];
  for (const row of json(['stats', '--json']).rows) {
    const mine = raw.filter((t) => t.agent === row.key);
    const sum = (f: (t: (typeof raw)[number]) => number) => mine.reduce((a, t) => a + f(t), 0);
    const want = { input: sum((t) => t.input), output: sum((t) => t.output), cache_creation: sum((t) => t.cacheCreation), cache_read: sum((t) => t.cacheRead) };
    assert.deepEqual(row.tokens, { ...want, total: want.input + want.output + want.cache_creation + want.cache_read }, row.key);
  }
});
