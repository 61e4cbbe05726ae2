// An agent searching from its own shell leaves its own session out, without passing --skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brain, sandbox } from '../helpers/env';

test('brain search skips the calling session named by the harness environment', () => {
  const sb = sandbox({ fixtures: true, name: 'skip' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    const all = JSON.parse(brain(sb, ['search', 'GitHub Action', '--json']).stdout);
    const first = all.hits[0].session as string;
    assert.ok(first);
    const fromEnv = JSON.parse(brain(sb, ['search', 'GitHub Action', '--json'], { env: { CLAUDE_CODE_SESSION_ID: first } }).stdout);
    assert.ok(!fromEnv.hits.some((h: any) => h.session === first), 'the caller is left out');
    assert.equal(fromEnv.hits.length, all.hits.length - 1);
    const explicit = JSON.parse(brain(sb, ['search', 'GitHub Action', '--json', '--skip', ''], { env: { CLAUDE_CODE_SESSION_ID: first } }).stdout);
    assert.equal(explicit.hits[0].session, first, '--skip "" keeps every session');
  } finally {
    sb.cleanup();
  }
});
