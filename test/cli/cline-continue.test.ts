// Cline (extension), Roo Code, Kilo Code, Cline CLI and Continue on a floor captured by `brain
// record` from their fixtures laid out as each keeps them: an editor's globalStorage task folders,
// ~/.cline/data/sessions and ~/.continue/sessions. Whole-file rewrites: each file is first recorded
// as it was after the first answer, then as it is after the second turn, so it has two generations;
// a turn both hold counts once. A task folder (three files) and a Cline SDK session folder (two)
// are one session in the sessions list, show, stats and derived.*. Tokens equal the usage summed
// straight from the raw files (test/helpers/rawusage.ts).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { rawUsage } from '../helpers/rawusage';
import { loadSqlite } from '../../src/core/sqlite';

let sb: Sandbox;

const EXT: { lane: string; agent: string; fixture: string; publisher: string; task: string; project: string }[] = [
  { lane: 'cline', agent: 'cline', fixture: 'cline', publisher: 'saoudrizwan.claude-dev', task: '1796300000000', project: '/home/ana/repo' },
  { lane: 'roo', agent: 'roo-code', fixture: 'roo', publisher: 'rooveterinaryinc.roo-cline', task: '1796300100000', project: '/home/ana/roo-repo' },
  { lane: 'kilo_ext', agent: 'kilo-code-ext', fixture: 'kilo', publisher: 'kilocode.kilo-code', task: '1796300200000', project: '/home/ana/kilo-repo' },
];
const CLI_SESSION = '1796305112683_y6dtj';
const CONTINUE_SESSION = '5d8b47bd-9fe2-43b6-b3ee-08788149a406';

const userDir = () => path.join(sb.home, '.config', 'Code', 'User');

/** The files as their agents left them after the first answer (the extensions' ui_messages.json,
 * Continue's session), then everything as it is at the end. */
function layOut(stage: 'first' | 'final'): void {
  for (const e of EXT) {
    const src = stage === 'first' ? path.join(FIXTURES, e.fixture, 'generation-1') : path.join(FIXTURES, e.fixture);
    fs.cpSync(src, userDir(), { recursive: true, filter: (p) => !p.includes(`${path.sep}generation-1`) || stage === 'first' });
  }
  fs.cpSync(path.join(FIXTURES, 'cline-cli'), path.join(sb.home, '.cline'), { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'continue', ...(stage === 'first' ? ['generation-1'] : [])), path.join(sb.home, '.continue'), {
    recursive: true,
    filter: (p) => stage === 'first' || !p.includes('generation-1'),
  });
}

function record(): void {
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0', BRAIN_REWRITE_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
}

before(() => {
  sb = sandbox({ name: 'cli-cline-continue' });
  layOut('first');
  record();
  layOut('final');
  record();
});
after(() => sb.cleanup());

const json = (args: string[]) => {
  const r = brain(sb, args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const sql = (s: string) => json(['sql', s, '--json']) as { columns: string[]; rows: unknown[][] };

function checks(c: { lake_path: string; line_from: number; line_to: number; sha256: string }): void {
  const out = execFileSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, c.lake_path)], { encoding: 'utf8' });
  assert.equal(out.split(' ')[0], c.sha256, `${c.lake_path} lines ${c.line_from}-${c.line_to}`);
}

test('the floor holds every file byte for byte, the rewritten ones as two generations', () => {
  const files = sql(`SELECT f.lane, f.abs_path, count(DISTINCT c.witness_gen) FROM floor.chunks c JOIN floor.files f USING (file_id) WHERE f.lane IN ('cline','roo','kilo_ext','cline_cli','continue') GROUP BY ALL`);
  const gens = new Map(files.rows.map((r) => [r[1] as string, Number(r[2])]));
  for (const e of EXT) {
    const dir = path.join(userDir(), 'globalStorage', e.publisher, 'tasks', e.task);
    assert.equal(gens.get(path.join(dir, 'ui_messages.json')), 2, `${e.lane}: ui_messages.json in two generations`);
    for (const f of fs.readdirSync(dir)) assert.ok(gens.has(path.join(dir, f)), `${e.lane}: ${f} captured`);
  }
  assert.equal(gens.get(path.join(sb.home, '.continue', 'sessions', `${CONTINUE_SESSION}.json`)), 2);
  assert.ok(!gens.has(path.join(sb.home, '.continue', 'sessions', 'sessions.json')), 'the list of sessions is no session');
  assert.ok(gens.has(path.join(sb.home, '.cline', 'data', 'sessions', CLI_SESSION, `${CLI_SESSION}.json`)));
  // Byte for byte: the newest generation's lake file equals the origin.
  // Every file of a folder has the session's project.
  const proj = sql(`SELECT lane, list(DISTINCT project) FROM derived.sessions WHERE lane IN ('cline','roo','kilo_ext','cline_cli','continue') GROUP BY lane ORDER BY lane`);
  assert.deepEqual(proj.rows, [
    ['cline', ['/home/ana/repo']],
    ['cline_cli', ['/tmp/fb-home1/repo']],
    ['continue', ['/tmp/fb-home3/repo']],
    ['kilo_ext', ['/home/ana/kilo-repo']],
    ['roo', ['/home/ana/roo-repo']],
  ]);
  const lake = sql(`SELECT abs_path, lake_path FROM derived.files WHERE lane IN ('cline','roo','kilo_ext','cline_cli','continue')`);
  assert.equal(lake.rows.length, gens.size);
  for (const [abs, lp] of lake.rows as [string, string][]) assert.ok(fs.readFileSync(path.join(sb.brain, lp)).equals(fs.readFileSync(abs)), `${lp} = ${abs}`);
});

test('one session per task folder, session folder and Continue session: turns counted once across generations', () => {
  const st = json(['stats', '--json']);
  const by = new Map(st.rows.map((r: any) => [r.key, r]));
  for (const e of EXT) {
    const r: any = by.get(e.agent);
    assert.ok(r, `stats has ${e.agent}: ${[...by.keys()].join(', ')}`);
    assert.equal(r.sessions, 1, `${e.agent}: one session for its three files`);
  }
  assert.equal((by.get('cline-cli') as any).sessions, 1, 'the manifest and the messages are one session');
  assert.equal((by.get('continue-dev') as any).sessions, 1);
  // derived.messages: each message once, though the first generation holds the first turn too; a
  // task's reply of only a call (the readFile) has a row of its own, as show lists it.
  const m = sql(
    `SELECT agent, count(DISTINCT session_id), count(*) FILTER (WHERE role = 'user' AND NOT is_meta), count(*) FILTER (WHERE role = 'assistant')
     FROM derived.messages WHERE agent IN ('cline','roo-code','kilo-code-ext','cline-cli','continue-dev') GROUP BY agent ORDER BY agent`,
  );
  assert.deepEqual(
    m.rows.map((r) => [r[0], Number(r[1]), Number(r[2]), Number(r[3])]),
    [
      ['cline', 1, 2, 4],
      ['cline-cli', 1, 2, 3],
      ['continue-dev', 1, 2, 3],
      ['kilo-code-ext', 1, 2, 4],
      ['roo-code', 1, 2, 4],
    ],
  );
  const prompts = sql(`SELECT agent, text FROM derived.messages WHERE role = 'user' AND NOT is_meta AND agent IN ('cline-cli','continue-dev','cline') ORDER BY agent, event_time NULLS LAST, msg_id`);
  for (const a of ['cline', 'cline-cli', 'continue-dev']) {
    assert.deepEqual(
      prompts.rows.filter((r) => r[0] === a).map((r) => r[1]),
      ['List the files in this folder', 'Now say which file is the readme'],
      a,
    );
  }
});

test('tokens per agent, from stats and derived.usage, equal the raw files summed', () => {
  const raw = rawUsage(sb.home);
  const agents = ['cline', 'roo-code', 'kilo-code-ext', 'cline-cli', 'continue-dev'];
  const want = new Map<string, number[]>();
  for (const t of raw.values()) {
    if (!agents.includes(t.agent)) continue;
    const w = want.get(t.agent) ?? [0, 0, 0, 0];
    want.set(t.agent, [w[0] + t.input, w[1] + t.output, w[2] + t.cacheCreation, w[3] + t.cacheRead]);
  }
  assert.deepEqual([...want.keys()].sort(), [...agents].sort(), 'every agent has usage in its fixtures');
  const u = sql(`SELECT agent, sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens), sum(cache_read_tokens) FROM derived.usage GROUP BY agent`);
  const st = json(['stats', '--json']);
  for (const a of agents) {
    const row = u.rows.find((r) => r[0] === a);
    assert.ok(row, a);
    assert.deepEqual(row.slice(1).map(Number), want.get(a), `derived.usage ${a}`);
    const s = st.rows.find((r: any) => r.key === a);
    assert.deepEqual([s.tokens.input, s.tokens.output, s.tokens.cache_creation, s.tokens.cache_read], want.get(a), `stats ${a}`);
  }
  // Models where the agent records them.
  const models = sql(`SELECT agent, list(DISTINCT model ORDER BY model) FROM derived.usage WHERE model IS NOT NULL GROUP BY agent ORDER BY agent`);
  assert.deepEqual(models.rows, [
    ['cline', ['anthropic/claude-sonnet-4.5']],
    ['cline-cli', ['standin-chat-1']],
    ['continue-dev', ['standin-chat-1']],
  ]);
});

test('tool calls: the shell command each agent ran, once', () => {
  const c = sql(`SELECT agent, tool_name, count(*) FROM derived.calls WHERE agent IN ('cline','roo-code','kilo-code-ext','cline-cli','continue-dev') GROUP BY ALL ORDER BY agent, tool_name`);
  assert.deepEqual(
    c.rows.map((r) => [r[0], r[1], Number(r[2])]),
    [
      ['cline', 'execute_command', 1],
      ['cline', 'readFile', 1],
      ['cline-cli', 'run_commands', 1],
      ['continue-dev', 'Bash', 1],
      ['kilo-code-ext', 'execute_command', 1],
      ['kilo-code-ext', 'readFile', 1],
      ['roo-code', 'execute_command', 1],
      ['roo-code', 'readFile', 1],
    ],
  );
});

test('the turn index: one session per folder, with its project and turns; show renders each with checkable citations', () => {
  // A search brings the turn index up to date; its sessions are what the sessions tree lists.
  json(['search', 'which file is the readme', '--json']);
  const Sqlite = loadSqlite();
  assert.ok(Sqlite, 'better-sqlite3 loads');
  const db = new Sqlite(path.join(sb.brain, 'turns.sqlite'), { readonly: true });
  const rows = db.prepare(`SELECT lane, session, project, turns, title FROM sessions WHERE lane IN ('cline','roo','kilo_ext','cline_cli','continue') ORDER BY lane`).all() as {
    lane: string;
    session: string;
    project: string | null;
    turns: number;
    title: string | null;
  }[];
  db.close();
  const of = (lane: string) => rows.filter((r) => r.lane === lane);
  for (const e of EXT) {
    const s = of(e.lane);
    assert.equal(s.length, 1, `${e.lane}: ${JSON.stringify(s)}`);
    assert.equal(s[0].session, e.task);
    assert.equal(s[0].project, e.project, `${e.lane}: the cwd Cline names in its first request`);
    assert.equal(s[0].turns, 6);
    assert.equal(s[0].title, 'List the files in this folder');
  }
  const cli = of('cline_cli');
  assert.equal(cli.length, 1, JSON.stringify(rows));
  assert.equal(cli[0].project, '/tmp/fb-home1/repo', 'the cwd from the manifest beside the messages');
  assert.equal(cli[0].turns, 5);
  assert.equal(cli[0].title, 'List the files in this folder');
  const cn = of('continue');
  assert.equal(cn.length, 1);
  assert.equal(cn[0].project, '/tmp/fb-home3/repo');
  assert.equal(cn[0].turns, 5);
  for (const [session, lane, want] of [
    [EXT[0].task, 'cline', /README\.md is the readme, at the top of the folder\. Should I open it\?/],
    [CLI_SESSION, 'cline_cli', /README\.md is the readme, at the top of the folder\./],
    [CONTINUE_SESSION, 'continue', /Now say which file is the readme/],
  ] as const) {
    const r = brain(sb, ['show', session]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, want);
    const cites = [...r.stdout.matchAll(/<sub>cite: testbox:(\S+) lines (\d+)–(\d+) \(bytes \d+–\d+\) sha256 ([0-9a-f]{64})<\/sub>/g)];
    assert.ok(cites.length >= 5, `${session}: ${cites.length} citations`);
    for (const [, lp, a, b, sha] of cites) {
      assert.match(lp, new RegExp(`^lake/${lane}/`));
      checks({ lake_path: lp, line_from: Number(a), line_to: Number(b), sha256: sha });
    }
  }
});

test('search finds a prompt and a reply of each agent, with citations that check', () => {
  for (const [term, lane] of [
    ['which file is the readme', 'cline'],
    ['which file is the readme', 'roo'],
    ['which file is the readme', 'kilo_ext'],
    ['which file is the readme', 'cline_cli'],
    ['which file is the readme', 'continue'],
  ] as const) {
    const j = json(['search', term, '--json', '--agent', lane]);
    assert.equal(j.hits.length, 1, `${lane}: ${JSON.stringify(j.hits.map((h: any) => h.session))}`);
    const s = j.hits[0].snippets.find((x: any) => x.text.toLowerCase().includes(term));
    assert.ok(s, JSON.stringify(j.hits[0].snippets));
    checks(s.citation);
  }
});
