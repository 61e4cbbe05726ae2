// brain show through the built CLI: a session as Markdown (tool calls folded, each turn cited),
// ranges, --json (the read tool's shape), and errors that say what to do.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-show' });
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

test('show: Markdown with the session facts, folded tools and a citation per turn', () => {
  const r = brain(sb, ['show', 'example-claude-code']);
  assert.equal(r.status, 0, r.stderr);
  const md = r.stdout;
  assert.match(md, /^# Make the colors green and yellow\n/);
  assert.match(md, /- session: `example-claude-code` \(agent id `cb947e5b-246e-4253-a953-631f7e464c6b`\)/);
  assert.match(md, /- agent: claude-code · machine: testbox · project: \/Users\/aidancunniffe\/Desktop\/ghq/);
  assert.match(md, /## 1 · user · 2025-09-11T13:28:05.638Z\n\nMake the colors green and yellow\n/);
  assert.match(md, /<details><summary>tool: Glob — \{"pattern":"\*\*\/\*\.css"\}<\/summary>/);
  assert.match(md, /## 15 · system \(notice\)/);
  const cites = [...md.matchAll(/<sub>cite: testbox:(\S+) lines (\d+)–(\d+) \(bytes \d+–\d+\) sha256 ([0-9a-f]{64})<\/sub>/g)];
  assert.equal(cites.length, 15, 'one citation per turn');
  for (const [, lp, a, b, sha] of cites) {
    const out = execFileSync('sh', ['-c', `sed -n '${a},${b}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, lp)], { encoding: 'utf8' });
    assert.equal(out.split(' ')[0], sha);
  }
});

test('show --turns A..B and --json', () => {
  const r = brain(sb, ['show', '5c0375b4', '--turns', '6..7']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    [...r.stdout.matchAll(/^## (\d+) · (\w+)/gm)].map((m) => `${m[1]} ${m[2]}`),
    ['6 user', '7 assistant'],
  );
  assert.match(r.stdout, /## 6 · user · [^\n]*· sub-agent/);
  const j = JSON.parse(brain(sb, ['show', '5c0375b4', '--turns', '3', '--json']).stdout);
  // The read_session tool's shape, as brain mcp answers it: with the range it holds.
  assert.deepEqual(Object.keys(j).sort(), ['gen', 'generations', 'masked', 'next', 'range', 'session', 'total', 'turns', 'unparsed_lines']);
  assert.deepEqual([j.range, j.next], ['3..3', null]);
  assert.equal(j.turns.length, 1);
  assert.deepEqual(
    Object.keys(j.turns[0]).sort(),
    ['branch', 'citation', 'gen', 'kind', 'model', 'n', 'rewritten_away', 'role', 'sidechain', 'text', 'thinking', 'tokens', 'tools', 'ts'],
  );
  assert.equal(j.turns[0].role, 'assistant');
  assert.equal(j.turns[0].tools[0].name, 'TodoWrite');
});

test('show: unknown and ambiguous sessions say what to do', () => {
  const r = brain(sb, ['show', 'nope-nope']);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /no session "nope-nope"/);
  assert.match(r.stderr, /brain search TERM/);
  const a = brain(sb, ['show', 'agent-a']);
  assert.equal(a.status, 3);
  assert.match(a.stderr, /matches \d+ sessions/);
  const u = brain(sb, ['show']);
  assert.equal(u.status, 2);
});
