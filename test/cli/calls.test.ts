// brain calls through the built CLI: per agent and tool, failures and unanswered calls, --json
// totals equal the rows and SQL over derived.calls.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { brain, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-calls' });
  assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
});
after(() => sb.cleanup());

test('brain calls --json', () => {
  const r = brain(sb, ['calls', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.ok(j.rows.length > 20);
  assert.equal(j.total.calls, j.rows.reduce((a: number, x: any) => a + x.calls, 0));
  assert.equal(j.total.failures, j.rows.reduce((a: number, x: any) => a + x.failures, 0));
  const bash = j.rows.find((x: any) => x.agent === 'pi' && x.tool === 'bash');
  assert.ok(bash.failures > 0 && bash.failure_pct > 0);
  const s = JSON.parse(brain(sb, ['sql', '--json', `SELECT count(*), count(*) FILTER (WHERE is_error), count(*) FILTER (WHERE result_line_no IS NULL) FROM derived.calls`]).stdout);
  assert.deepEqual(s.rows[0], [j.total.calls, j.total.failures, j.total.unanswered]);
  const cc = JSON.parse(brain(sb, ['calls', '--agent', 'claude-code', '--json']).stdout);
  assert.ok(cc.rows.every((x: any) => x.agent === 'claude-code'));
  assert.ok(cc.rows.some((x: any) => x.tool === 'Bash' && x.failures > 0));
});

test('brain calls prints a table with a total and says when tools were left out', () => {
  const r = brain(sb, ['calls', '--limit', '5']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^agent\s+tool\s+calls\s+failures\s+unanswered\s+failed$/);
  assert.equal(lines.length, 2 + 5 + 1 + 1);
  assert.match(lines[7], /^total\s+\d+\s+\d+\s+\d+\s+[\d.]+%$/);
  assert.match(lines[8], /more tools: --limit N or --json/);
});
