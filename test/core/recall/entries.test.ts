// What show lists among the turns, search finds in the turn tier: Pi compaction summaries, Claude
// Code interrupt notices, session names (Claude Code titles, Pi session_info, Codex thread names).
// Instructions the harness injected (Codex environment context) stay out of the turn tier and are
// found in the tool tier. Checked through the turn index and through the scan fallback, on the
// fixture transcripts, with the lines a fixture lacks appended in the agent's own format.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { search, readSession } from '../../../src/core/recall';
import { TestFloor, fixtureLane, fixtureTranscripts } from '../index/floor';
import { FIXTURES } from '../../helpers/env';

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

const PI = 'pi/agent/sessions/--fixtures-synthetic--/agentsview-session.jsonl';
const COPILOT = 'copilot/workspaceStorage/fixtures/chatSessions/git-ai-copilot_session_simple.jsonl';
const CC = 'claude/projects/-misc-git-ai/example-claude-code.jsonl';
const CODEX = 'codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';

function floor(dir: string): void {
  const f = new TestFloor(dir);
  for (const x of fixtureTranscripts()) f.addFixture(x);
  f.append('copilot', 'workspaceStorage/fixtures/chatSessions/git-ai-copilot_session_simple.jsonl', fs.readFileSync(path.join(FIXTURES, COPILOT)), { session: 'git-ai-copilot_session_simple' });
  const pi = fixtureLane(PI);
  f.append(pi.lane, pi.rel, JSON.stringify({ type: 'session_info', id: 'entry-99', parentId: 'entry-4', timestamp: '2025-01-01T10:01:00Z', name: 'Quokka login rescue' }) + '\n');
  const cx = fixtureLane(CODEX);
  f.append(
    cx.lane,
    cx.rel,
    [
      { timestamp: '2026-02-23T20:00:00.000Z', type: 'event_msg', payload: { type: 'thread_name_updated', thread_id: 'x', thread_name: 'Marmot cache rework' } },
      {
        timestamp: '2026-02-23T20:00:01.000Z',
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/work/zebra-quartz</cwd>\n</environment_context>' }] },
      },
    ]
      .map((o) => JSON.stringify(o) + '\n')
      .join(''),
  );
  // What Claude Code 2.1.x writes of the context it injects: attachments (a memory file, a
  // reminder), the system prompt's snapshot and a request blob.
  const cc = fixtureLane(CC);
  const env = { sessionId: 'example-claude-code', cwd: '/tmp/p', version: '2.1.332', isSidechain: false, timestamp: '2026-03-01T10:00:00.000Z' };
  f.append(
    cc.lane,
    cc.rel,
    [
      { ...env, type: 'attachment', uuid: 'att-1', attachment: { type: 'nested_memory', path: '/tmp/p/CLAUDE.md', content: { type: 'text', content: 'Always run the narwhal-lattice check first.' } } },
      { ...env, type: 'prompt_snapshot', uuid: 'ps-1', systemPrompt: [{ type: 'text', text: 'You are Claude Code. Prefer the ocelot-meridian style.' }] },
      { ...env, type: 'api-request-blob', uuid: 'rb-1', request: { system: 'Injected: the heron-basalt rule.', messages: [] } },
    ]
      .map((o) => JSON.stringify(o) + '\n')
      .join(''),
  );
}

const CASES: { what: string; term: string; session: string; tier: 'turns' | 'tools'; kind: string }[] = [
  { what: 'a Pi compaction summary', term: 'Context Checkpoint', session: 'agentsview-session', tier: 'turns', kind: 'summary' },
  { what: 'a Claude Code interrupt notice', term: 'Request interrupted by user', session: 'example-claude-code', tier: 'turns', kind: 'notice' },
  { what: 'a Claude Code session name', term: 'Stage0 small fixture', session: 'small', tier: 'turns', kind: 'name' },
  { what: 'a Pi session name', term: 'Quokka login rescue', session: 'agentsview-session', tier: 'turns', kind: 'name' },
  { what: 'a Codex thread name', term: 'Marmot cache rework', session: '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', tier: 'turns', kind: 'name' },
  { what: 'a Copilot Chat session name', term: 'Assistance with TypeScript project', session: 'git-ai-copilot_session_simple', tier: 'turns', kind: 'name' },
  { what: 'Codex environment context', term: 'zebra-quartz', session: '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', tier: 'tools', kind: 'instructions' },
  { what: 'a Claude Code attachment', term: 'narwhal-lattice', session: 'example-claude-code', tier: 'tools', kind: 'instructions' },
  { what: 'a Claude Code prompt snapshot', term: 'ocelot-meridian', session: 'example-claude-code', tier: 'tools', kind: 'instructions' },
  { what: 'a Claude Code request blob', term: 'heron-basalt', session: 'example-claude-code', tier: 'tools', kind: 'instructions' },
];

for (const index of ['live', 'off'] as const) {
  test(`search finds what show lists (${index === 'off' ? 'scan' : 'turn index'}): summaries, notices and names in the turn tier, injected context in the tool tier`, () => {
    const dir = tmp('entries');
    try {
      floor(dir);
      const env = { HOME: dir, BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox' };
      for (const c of CASES) {
        const shown = readSession({ session: c.session, machine: 'testbox' }, env, { index });
        const entry = shown.turns.find((t) => t.text.toLowerCase().includes(c.term.toLowerCase()));
        assert.ok(entry, `${c.what}: show lists it`);
        assert.equal(entry.kind, c.kind, c.what);

        const r = search({ term: c.term }, env, { index });
        assert.equal(r.source, index === 'off' ? 'scan' : 'index', c.what);
        const hit = r.hits.find((h) => h.session === c.session);
        assert.ok(hit, `${c.what}: "${c.term}" is found (hits: ${r.hits.map((h) => `${h.session}/${h.tier}`).join(', ')})`);
        assert.equal(hit.tier, c.tier, c.what);
        const snip = hit.snippets.find((s) => s.turn === entry.n);
        assert.ok(snip, `${c.what}: a snippet from entry ${entry.n}`);
        assert.match(snip.text.toLowerCase(), new RegExp(c.term.toLowerCase()));
        assert.equal(snip.field, c.tier === 'turns' ? 'text' : 'instructions', c.what);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
