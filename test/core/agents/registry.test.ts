// The registry is the one list of agents: docs/agents.md is generated from it, every agent folder
// carries what an agent needs (views.sql, a README naming the sources its format was checked
// against), and the fixtures hold sessions of every agent, so no agent is added half-way.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agents } from '../../../src/core/agents';
import { agentsTable } from '../../../src/core/agents/table';
import { brain, REPO, sandbox } from '../../helpers/env';

const AGENTS_DIR = path.join(REPO, 'src', 'core', 'agents');

test("docs/agents.md's table is the one the registry generates", () => {
  const page = fs.readFileSync(path.join(REPO, 'docs', 'agents.md'), 'utf8');
  const m = /<!-- agents:begin[^>]*-->\n([\s\S]*?)\n<!-- agents:end -->/.exec(page);
  assert.ok(m, 'docs/agents.md has the agents markers');
  assert.equal(m[1], agentsTable(), 'regenerate it: node --import tsx scripts/agents-table.mjs');
  for (const a of agents()) assert.match(m[1], new RegExp(`\\| \`${a.lane}\` \\|`), a.lane);
});

test('every agent folder has its views.sql and a README naming where its format was read', () => {
  for (const a of agents()) {
    const views = path.isAbsolute(a.views) ? a.views : path.join(AGENTS_DIR, a.views);
    assert.ok(fs.existsSync(views), `${a.lane}: ${a.views} is missing`);
    assert.match(fs.readFileSync(views, 'utf8'), new RegExp(`dialects\\.v_${a.lane}\\b`), `${a.lane}: views.sql defines dialects.v_${a.lane}`);
    const readme = path.join(path.dirname(views), 'README.md');
    assert.ok(fs.existsSync(readme), `${a.lane}: ${path.relative(REPO, readme)} is missing (say which source the paths and format were checked against)`);
    assert.match(fs.readFileSync(readme, 'utf8'), /https?:\/\/|github\.com|npm/i, `${a.lane}: its README names no source`);
  }
});

test('every agent whose CLI runs here has a live test and a pinned version', async () => {
  const { AGENT_CLIS } = (await import(path.join(REPO, 'scripts', 'setup', '40-agents.mjs'))) as { AGENT_CLIS: Record<string, string> };
  const runnable = agents().filter((a) => a.cli);
  assert.ok(runnable.length >= 3, 'Claude Code, Codex and Pi at least');
  for (const a of runnable) {
    assert.ok(AGENT_CLIS[a.cli!.npm], `${a.lane}: ${a.cli!.npm} is not pinned in scripts/setup/40-agents.mjs`);
    assert.ok(fs.existsSync(path.join(REPO, 'test', 'agents', `${a.lane}.test.ts`)), `${a.lane}: test/agents/${a.lane}.test.ts (a live test of ${a.cli!.npm}) is missing`);
  }
});

test('the fixtures hold at least one session of every agent in the registry', () => {
  const sb = sandbox({ fixtures: true, name: 'registry' });
  try {
    const r = brain(sb, ['record', '--json', '--no-caches']);
    assert.equal(r.status, 0, r.stderr);
    const lanes = JSON.parse(r.stdout).lanes as Record<string, { files: number }>;
    const missing = agents().filter((a) => !(lanes[a.lane]?.files > 0)).map((a) => a.lane);
    assert.deepEqual(missing, [], 'agents without fixture sessions (add them to test/fixtures and to sandbox() in test/helpers/env.ts)');
  } finally {
    sb.cleanup();
  }
});
