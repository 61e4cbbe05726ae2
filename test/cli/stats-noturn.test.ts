// A session with no turn (an agent that wrote its instructions and context, then stopped before
// the first prompt) is no session anywhere (src/core/truth.ts): not in show's listing, not in
// brain stats' sessions, on no day of stats --by day.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox } from '../helpers/env';

const sb = sandbox({ name: 'stats-noturn' });
after(() => sb.cleanup());

const REAL = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
const EMPTY_ID = '019c8bff-0000-7000-8000-00000000e0e0';

const json = (args: string[]) => {
  const r = brain(sb, args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('a Codex session holding only its injected context counts in no view', () => {
  const day = path.join(sb.home, '.codex', 'sessions', '2026', '02', '23');
  fs.mkdirSync(day, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'codex', 'sessions', '2026', '02', '23', REAL), path.join(day, REAL));
  // Codex's first lines: the session's meta, the developer instructions and the environment
  // context it injects as a user message; the user never typed a prompt. On another day than the
  // real session, so a day holding only this one shows up too.
  const at = '2026-02-24T09:00:0';
  const lines = [
    { timestamp: `${at}0.000Z`, type: 'session_meta', payload: { id: EMPTY_ID, timestamp: `${at}0.000Z`, cwd: '/home/ana/app', originator: 'codex_cli_rs', cli_version: '0.104.0' } },
    { timestamp: `${at}1.000Z`, type: 'response_item', payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>sandboxed</permissions instructions>' }] } },
    { timestamp: `${at}2.000Z`, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/home/ana/app</cwd>\n  <shell>bash</shell>\n</environment_context>' }] } },
  ];
  fs.writeFileSync(path.join(day, `rollout-2026-02-24T09-00-00-${EMPTY_ID}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);

  // show: the real session has turns, the other none.
  assert.ok(json(['show', '019c8bfe', '--json']).session.turns > 0);
  const none = brain(sb, ['show', EMPTY_ID, '--json']);
  if (none.status === 0) assert.equal(JSON.parse(none.stdout).session.turns, 0);
  const st = json(['stats', '--json']);
  assert.deepEqual(
    st.rows.map((r: { key: string; sessions: number }) => [r.key, r.sessions]),
    [['codex', 1]],
    'stats counts the session with turns only',
  );
  const days = json(['stats', '--by', 'day', '--json']);
  for (const r of days.rows) assert.ok(!(r.sessions > 0 && r.turns === 0), `stats --by day ${r.key}: ${r.sessions} sessions and no turn`);
  assert.equal(days.total.sessions, 1);
  const rows = json(['sql', '--json', `SELECT count(*), count(turn_id), bool_or(is_meta) FROM derived.messages WHERE session_id = '${EMPTY_ID}'`]).rows;
  // The cache holds its context as a message of its own (is_meta), not a turn: what stats must not
  // count as a session.
  assert.deepEqual(rows, [[1, 0, true]]);
});
