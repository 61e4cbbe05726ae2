// How the Sessions view and the search box word what they list (src/extension/labels.ts and
// src/core/recall/words.ts): local days and relative times, a project by its folder's name,
// sessions without a turn left out, counts in the right number, no empty parts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { day, listable, localTime, projectLabel } from '../../src/extension/labels';
import { hitDescription, matchedText, sourceText } from '../../src/core/recall/words';
import type { ListedSession } from '../../src/extension/protocol';

test('a project is named by its working folder, not the last two parts of its path', () => {
  assert.equal(projectLabel('/Users/someone/path/to/Demo'), 'Demo');
  assert.equal(projectLabel('C:\\work\\brain'), 'brain');
  assert.equal(projectLabel('-experiments-worktrees'), '-experiments-worktrees');
});

test('times in tooltips are local and say how long ago; days are local days', () => {
  const prev = process.env.TZ;
  process.env.TZ = 'America/New_York';
  try {
    const now = Date.parse('2026-03-10T12:00:00Z');
    // 02:30 UTC on the 10th is the evening of the 9th in New York.
    assert.equal(day('2026-03-10T02:30:00Z'), '2026-03-09');
    assert.equal(localTime('2026-03-10T02:30:00Z', now), '2026-03-09 22:30, 9 hours ago');
    assert.equal(localTime('2026-03-07T12:00:00Z', now), '2026-03-07 07:00, 3 days ago');
    assert.equal(localTime('2026-03-10T11:59:30Z', now), '2026-03-10 07:59, just now');
    assert.equal(localTime(null, now), undefined);
  } finally {
    if (prev === undefined) delete process.env.TZ;
    else process.env.TZ = prev;
  }
});

test('a session without a turn is not listed', () => {
  const s = (session: string, turns: number) => ({ session, turns }) as ListedSession;
  assert.deepEqual(listable([s('a', 3), s('context-only', 0), s('b', 1)]).map((x) => x.session), ['a', 'b']);
});

test('the search box: one tool mention, no empty project part, no "scan (null)"', () => {
  assert.equal(matchedText({ matching_turns: 1, tier: 'tools' }), '1 tool mention');
  assert.equal(matchedText({ matching_turns: 2, tier: 'turns' }), '2 turns');
  assert.equal(hitDescription({ agent: 'copilot-chat', project: null, matching_turns: 2, tier: 'turns' }), 'copilot-chat · 2 turns');
  assert.equal(hitDescription({ agent: 'codex', project: '/home/u/src/brain', matching_turns: 1, tier: 'turns' }), 'codex · brain · 1 turn');
  assert.equal(sourceText({ source: 'scan', fallback: null }), 'scan');
  assert.equal(sourceText({ source: 'scan', fallback: 'no index' }), 'scan (no index)');
});
