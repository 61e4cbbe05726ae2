// Gemini CLI and Copilot Chat on a floor captured by `brain record` from the fixtures (copied to
// ~/.gemini and ~/.config/Code/User): search finds what was said in each shape, with the right
// snippet for turns that share one citation (a whole document), and show renders them with
// citations that check with sed and sha256sum.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'cli-gemini-copilot' });
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

interface Snip {
  turn: number;
  role: string;
  text: string;
  citation: { lake_path: string; line_from: number; line_to: number; sha256: string };
}

function search(term: string) {
  const r = brain(sb, ['search', term, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { hits: { session: string; lane: string; agent: string; snippets: Snip[] }[] };
}

function checks(c: Snip['citation']): void {
  const out = execFileSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, c.lake_path)], { encoding: 'utf8' });
  assert.equal(out.split(' ')[0], c.sha256, `${c.lake_path} lines ${c.line_from}-${c.line_to}`);
}

const CASES: { term: string; session: string; lane: string; turn: number; file: RegExp }[] = [
  // Gemini .jsonl append log: a turn cites its own line.
  { term: 'hello bob console log', session: 'git-ai-gemini-session-simple', lane: 'gemini', turn: 1, file: /^lake\/gemini\/fixtures\/chats\/git-ai-gemini-session-simple\.jsonl$/ },
  // Gemini legacy .json: the 5th message of a document every turn cites whole.
  { term: 'Captured multiline output', session: 'agent-sessions-large', lane: 'gemini', turn: 5, file: /agent-sessions-large\.json$/ },
  // Copilot chatSessions (.json and its .jsonl log): the third prompt.
  { term: 'other mentions of Bonjour', session: 'git-ai-copilot_session_simple', lane: 'copilot', turn: 5, file: /^lake\/copilot\/code\/workspaceStorage\/fixtures\/chatSessions\/git-ai-copilot_session_simple\.jsonl?$/ },
  // Copilot transcripts event stream.
  { term: 'add some jokes to jokes.csv', session: 'git-ai-copilot_session_event_stream', lane: 'copilot', turn: 1, file: /transcripts\/git-ai-copilot_session_event_stream\.jsonl$/ },
];

for (const c of CASES) {
  test(`search finds "${c.term}" (${c.lane})`, () => {
    const j = search(c.term);
    const hit = j.hits.find((h) => h.session === c.session);
    assert.ok(hit, `hits: ${j.hits.map((h) => h.session).join(', ')}`);
    assert.equal(hit.lane, c.lane);
    const s = hit.snippets.find((x) => x.text.toLowerCase().includes(c.term.toLowerCase()));
    assert.ok(s, `a snippet holds the phrase: ${JSON.stringify(hit.snippets.map((x) => x.text))}`);
    assert.equal(s.turn, c.turn);
    assert.match(s.citation.lake_path, c.file);
    checks(s.citation);
  });
}

test('show renders a Gemini chat and a Copilot session, each turn cited', () => {
  for (const [session, want, lane] of [
    ['git-ai-gemini-session-simple', /## 1 · user · 2025-12-06T18:25:18\.042Z\n\nadd another hello bob console log to @index\.ts\n/, 'gemini'],
    // By the agent's own id: the file name is also a cursor fixture's.
    ['session-2025-12-16T23-47-b4f17607', /## 5 · assistant · [^\n]*\n\nCaptured multiline output\.\n/, 'gemini'],
    ['git-ai-copilot_session_event_stream', /## 4 · assistant · [^\n]*\n\nDone, I added more jokes\.\n/, 'copilot'],
  ] as const) {
    const r = brain(sb, ['show', session]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, want);
    const cites = [...r.stdout.matchAll(/<sub>cite: testbox:(\S+) lines (\d+)–(\d+) \(bytes \d+–\d+\) sha256 ([0-9a-f]{64})<\/sub>/g)];
    assert.ok(cites.length > 0);
    for (const [, lp, a, b, sha] of cites) {
      assert.match(lp, new RegExp(`^lake/${lane}/`));
      checks({ lake_path: lp, line_from: Number(a), line_to: Number(b), sha256: sha });
    }
  }
  const j = JSON.parse(brain(sb, ['show', 'git-ai-copilot_session_simple', '--json']).stdout);
  const texts = j.turns.map((t: { role: string; text: string }) => `${t.role}: ${t.text.slice(0, 40)}`);
  assert.ok(texts.includes('user: Change Bonjour World to hello world'), texts.join(' | '));
  const reply = j.turns.find((t: { tools: { name: string }[] }) => t.tools.some((u) => u.name === 'copilot_findTextInFiles'));
  assert.ok(reply, 'the tool call is shown');
  assert.equal(reply.model, 'copilot/claude-sonnet-4');
});

test('brain sql: dialects.v_gemini / v_copilot and their rows in derived.messages', () => {
  const q = (s: string) => {
    const r = brain(sb, ['sql', s, '--json']);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { columns: string[]; rows: unknown[][] };
  };
  // Per session, the user and assistant messages SQL sees, against the Python-derived expectation
  // (the fixture's file name is the session id; the Copilot .json and .jsonl are one session in two
  // forms, holding the same requests: its messages are there once, from the form show reads).
  const expected = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'core', 'agents', 'expected', 'expected_more.json'), 'utf8')) as {
    fixture: string;
    user: number;
    assistant: number;
  }[];
  const want = new Map<string, [number, number]>();
  for (const e of expected) {
    const sess = path.basename(e.fixture).replace(/\.jsonl?$/, '');
    const other = want.get(sess);
    if (other) assert.deepEqual(other, [e.user, e.assistant], `${sess}: its forms hold the same messages`);
    want.set(sess, [e.user, e.assistant]);
  }
  const got = q(
    `SELECT session_id, count(*) FILTER (WHERE role = 'user') AS u, count(*) FILTER (WHERE role = 'assistant') AS a
     FROM derived.messages WHERE agent IN ('gemini-cli', 'copilot-chat') GROUP BY session_id ORDER BY session_id`,
  );
  assert.deepEqual(
    got.rows.map((r) => [r[0], Number(r[1]), Number(r[2])]),
    [...want.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1)).map(([s, [u, a]]) => [s, u, a]),
  );
  // Last write wins and the metadata line is no message.
  const g = q(`SELECT line_no, role, model FROM dialects.v_gemini WHERE session_id = 'agent-sessions-jsonl_v040' ORDER BY msg_index`);
  assert.deepEqual(
    g.rows.map((r) => [Number(r[0]), r[1], r[2]]),
    [
      [2, 'user', null],
      [4, 'assistant', 'gemini-3-flash-preview'],
      [5, 'assistant', 'gemini-3-flash-preview'],
    ],
  );
  const c = q(`SELECT text FROM derived.messages WHERE msg_id LIKE 'copilot:json:%' AND role = 'user' ORDER BY msg_id`);
  assert.deepEqual(
    c.rows.map((r) => r[0]),
    ['What can you help me with?', 'Change Bonjour World to hello world', 'Search for any other mentions of Bonjour'],
  );
  // A workspace's workspace.json is on the floor too (it names the project), but holds no session.
  const s = q(`SELECT lane, agent, count(*) FROM derived.files WHERE lane IN ('gemini', 'copilot') AND NOT ends_with(abs_path, '/workspace.json') GROUP BY ALL ORDER BY lane`);
  assert.deepEqual(
    s.rows.map((r) => [r[0], r[1], Number(r[2])]),
    [
      ['copilot', 'copilot-chat', 4],
      ['gemini', 'gemini-cli', 6],
    ],
  );
});
