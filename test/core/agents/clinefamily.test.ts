// Cline (extension), Roo Code, Kilo Code, Cline CLI and Continue through their dialects and paths:
// the fixtures' turns (prompts, replies with model, tokens and tools), what a file of the session
// says about it (cwd, title), a sub-agent's file as a side conversation, every generation read as
// the first, a document caught mid-write, and the folders on Linux, macOS and Windows with each
// agent's own overrides.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES, sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';
import { rebuildCache, runReadOnlySql } from '../../../src/core/cache';
import { readTurns } from '../../../src/core/index/read';
import { agentByLane } from '../../../src/core/agents';
import { mergeFacts } from '../../../src/core/index/turnindex/sessions';

const CLINE_TASK = path.join(FIXTURES, 'cline', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', '1796300000000');
const CLI_DIR = path.join(FIXTURES, 'cline-cli', 'data', 'sessions', '1796305112683_y6dtj');
const CONTINUE = path.join(FIXTURES, 'continue', 'sessions', '5d8b47bd-9fe2-43b6-b3ee-08788149a406.json');

function read(file: string, lane: string, rel: string, full = true) {
  const r = readTurns(file, lane, rel, { full, tail: true });
  assert.ok(r, `${lane} reads ${rel}`);
  return r;
}

const brief = (ts: { role: string; text: string; tools: { name: string }[] }[]) => ts.map((t) => [t.role, t.text.slice(0, 40), t.tools.map((u) => u.name).join(',')]);

/** The conversation every fixture holds (as `brief` shows it): the first prompt, the replies that
 * make the given tool calls, the answer, the second prompt and its answer. */
const conversation = (calls: [string, string][]) => [
  ['user', 'List the files in this folder', ''],
  ...calls.map(([text, tool]) => ['assistant', text, tool]),
  ['assistant', 'The folder holds README.md and a src fol', ''],
  ['user', 'Now say which file is the readme', ''],
  ['assistant', 'README.md is the readme, at the top of t', ''],
];

/** Runs `fn` in a fresh temporary folder, removed after. */
function inTmp(fn: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'clinefamily-'));
  try {
    fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('Cline task: prompts, one reply per model call with its tokens, model, tools and their output', () => {
  const r = read(path.join(CLINE_TASK, 'ui_messages.json'), 'cline', 'code/1796300000000/ui_messages.json');
  assert.deepEqual(
    brief(r.turns),
    conversation([
      ["I'll list the files with a command.", 'execute_command'],
      ['', 'readFile'],
    ]),
  );
  assert.deepEqual(
    r.turns.filter((t) => t.tokens).map((t) => t.tokens),
    [
      { input: 2210, output: 64, cache_creation: 1800, cache_read: 0 },
      { input: 95, output: 41, cache_creation: 150, cache_read: 1800 },
      { input: 60, output: 35, cache_creation: 0, cache_read: 1950 },
      { input: 48, output: 30, cache_creation: 120, cache_read: 1990 },
    ],
  );
  assert.equal(r.turns[1].model, 'anthropic/claude-sonnet-4.5');
  assert.equal(r.turns[1].tools[0].arguments, 'ls -1');
  assert.equal(r.turns[1].tools[0].output, 'README.md\nsrc');
  assert.equal(r.facts.cwd, '/home/ana/repo', 'the working folder Cline names in its request');
  assert.equal(r.facts.started, new Date(1796300000000).toISOString());
  // The index's read (no tool bodies) numbers the same turns.
  const lean = read(path.join(CLINE_TASK, 'ui_messages.json'), 'cline', 'code/1796300000000/ui_messages.json', false);
  assert.deepEqual(
    lean.turns.map((t) => [t.n, t.role, t.text]),
    r.turns.map((t) => [t.n, t.role, t.text]),
  );
  // Its other files are captured, not read for turns; a later generation is read as the first.
  const dialect = agentByLane('cline')!.dialect;
  assert.equal(dialect.reads('code/1796300000000/api_conversation_history.json'), false);
  assert.equal(dialect.reads('code/1796300000000/task_metadata.json'), false);
  assert.equal(dialect.reads('code/1796300000000/ui_messages.g3.json'), true);
  // Every file of a task is written again whole: a generation per quiet version.
  for (const f of ['ui_messages.json', 'api_conversation_history.json', 'task_metadata.json']) assert.equal(agentByLane('cline')!.rewritesWhole?.(`code/1796300000000/${f}`), true, f);
});

test('Roo Code and Kilo Code read as Cline does; every file of a task folder is its session', () => {
  for (const [lane, fixture, publisher, task] of [
    ['roo', 'roo', 'rooveterinaryinc.roo-cline', '1796300100000'],
    ['kilo_ext', 'kilo', 'kilocode.kilo-code', '1796300200000'],
  ] as const) {
    const file = path.join(FIXTURES, fixture, 'globalStorage', publisher, 'tasks', task, 'ui_messages.json');
    const r = read(file, lane, `code/${task}/ui_messages.json`);
    assert.equal(r.turns.filter((t) => t.role === 'user').length, 2);
    assert.equal(r.turns.filter((t) => t.role === 'assistant').length, 4);
    assert.equal(r.counts.bad, 0);
    // They write the whole input with the protocol's name (cached part included): taken out here.
    assert.deepEqual(r.turns[1].tokens, { input: 2210, output: 64, cache_creation: 1800, cache_read: 0 });
    assert.match(fs.readFileSync(file, 'utf8'), /\\"apiProtocol\\":\\"anthropic\\",\\"request\\"/);
    const a = agentByLane(lane)!;
    for (const f of ['ui_messages.json', 'api_conversation_history.json', 'task_metadata.json', 'history_item.json']) {
      assert.equal(a.sessionOf(`code/${task}/${f}`), task);
      assert.equal(a.rewritesWhole?.(`code/${task}/${f}`), true);
    }
  }
});

/** A task as Cline writes it, each message's ts one more than the last: a call approved after an
 * ask (said again with the same text), two reads of one tool in one reply, a reply of only
 * reasoning, and reasoning said with no model call open. */
function taskMessages(): Record<string, unknown>[] {
  const edit = JSON.stringify({ tool: 'editedExistingFile', path: 'a.ts' });
  const rows: [string, string, string][] = [
    ['say', 'task', 'Rename the helper'],
    ['say', 'api_req_started', JSON.stringify({ tokensIn: 10, tokensOut: 2 })],
    ['ask', 'tool', edit],
    ['say', 'tool', edit],
    ['say', 'api_req_started', '{}'],
    ['say', 'tool', JSON.stringify({ tool: 'readFile', path: 'a.ts' })],
    ['say', 'tool', JSON.stringify({ tool: 'readFile', path: 'b.ts' })],
    ['say', 'api_req_started', '{}'],
    ['say', 'reasoning', 'Both files read.'],
    ['say', 'api_req_started', '{}'],
    ['say', 'completion_result', 'Renamed.'],
    ['ask', 'completion_result', ''],
    ['say', 'user_feedback', 'Thanks'],
    ['say', 'reasoning', 'A thank-you.'],
    ['say', 'text', 'Glad to help.'],
  ];
  return rows.map(([type, kind, text], i) => ({ ts: 1796300900000 + i, type, [type]: kind, text }));
}

test('Cline-family turns and calls: one reply per model call whatever it holds, an approved ask once; the dialect and derived.* alike', async () => {
  const want = [
    ['user', 'Rename the helper', ''],
    ['assistant', '', 'editedExistingFile'],
    ['assistant', '', 'readFile,readFile'],
    ['assistant', '', ''],
    ['assistant', 'Renamed.', ''],
    ['user', 'Thanks', ''],
    ['assistant', 'Glad to help.', ''],
  ];
  inTmp((dir) => {
    fs.writeFileSync(path.join(dir, 'ui_messages.json'), JSON.stringify(taskMessages()));
    // With tool bodies (show) and without (the index): the same turns and calls.
    for (const full of [true, false]) assert.deepEqual(brief(read(path.join(dir, 'ui_messages.json'), 'cline', 'code/1796300900000/ui_messages.json', full).turns), want, `full: ${full}`);
  });
  const sb = sandbox({ name: 'cline-turns' });
  try {
    const task = path.join(sb.home, '.cline', 'data', 'tasks', '1796300900000');
    fs.mkdirSync(task, { recursive: true });
    fs.writeFileSync(path.join(task, 'ui_messages.json'), JSON.stringify(taskMessages()));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    await rebuildCache(sb.brain);
    const q = async (sql: string) => (await runReadOnlySql(sb.brain, sql, { limit: 1000, timeZone: 'UTC' })).rows;
    const turns = await q(`SELECT role, string_agg(coalesce(text, ''), '' ORDER BY line_no) FROM derived.messages WHERE agent = 'cline' GROUP BY turn_id, role ORDER BY min(event_time)`);
    assert.deepEqual(turns, want.map(([role, text]) => [role, text]));
    const calls = await q(`SELECT tool_name FROM derived.calls WHERE agent = 'cline' ORDER BY event_time`);
    assert.deepEqual(calls.flat(), ['editedExistingFile', 'readFile', 'readFile']);
  } finally {
    sb.cleanup();
  }
});

test("Roo Code's history_item.json: no turns; the task's workspace, and the task that started a subtask", () => {
  const dir = path.join(FIXTURES, 'roo', 'globalStorage', 'rooveterinaryinc.roo-cline', 'tasks', '1796300100000');
  const r = read(path.join(dir, 'history_item.json'), 'roo', 'code/1796300100000/history_item.json');
  assert.equal(r.turns.length, 0);
  assert.equal(r.facts.cwd, '/home/ana/roo-repo');
  assert.equal(r.facts.parent_session, null);
  inTmp((tmpDir) => {
    const item = { ...JSON.parse(fs.readFileSync(path.join(dir, 'history_item.json'), 'utf8')), id: '1796300199999', parentTaskId: '1796300100000' };
    fs.writeFileSync(path.join(tmpDir, 'history_item.json'), JSON.stringify(item));
    const sub = read(path.join(tmpDir, 'history_item.json'), 'roo', 'code/1796300199999/history_item.g2.json');
    assert.equal(sub.facts.parent_session, '1796300100000');
  });
});

test('Cline CLI: messages and manifest are one session; the manifest gives cwd and title; a sub-agent file is a side conversation', () => {
  const id = '1796305112683_y6dtj';
  const a = agentByLane('cline_cli')!;
  assert.equal(a.sessionOf(`${id}/${id}.messages.json`), id);
  assert.equal(a.sessionOf(`${id}/${id}.json`), id);
  const m = read(path.join(CLI_DIR, `${id}.messages.json`), 'cline_cli', `${id}/${id}.messages.json`);
  assert.deepEqual(brief(m.turns), conversation([['', 'run_commands']]));
  assert.match(m.turns[1].tools[0].output, /README\.md\\nsrc/);
  assert.deepEqual(m.turns[4].tokens, { input: 156, output: 8, cache_creation: 0, cache_read: 0 });
  assert.ok(m.turns.every((t) => !t.sidechain));
  const man = read(path.join(CLI_DIR, `${id}.json`), 'cline_cli', `${id}/${id}.g2.json`);
  assert.equal(man.turns.length, 0);
  assert.equal(man.facts.cwd, '/tmp/fb-home1/repo');
  assert.equal(man.facts.title_hint, 'List the files in this folder');
  // The session takes from each file what the other does not say.
  const merged = mergeFacts(m.facts, [man.facts])!;
  assert.equal(merged.cwd, '/tmp/fb-home1/repo');
  assert.equal(merged.native_session, id);
  assert.equal(merged.started, man.facts.started, 'the manifest started first');
  // A sub-agent's messages in the same folder: its turns are a side conversation.
  inTmp((dir) => {
    const sub = path.join(dir, 'agent-1.messages.json');
    fs.copyFileSync(path.join(CLI_DIR, `${id}.messages.json`), sub);
    const s = read(sub, 'cline_cli', `${id}/agent-1.messages.json`);
    assert.equal(s.turns.length, 5);
    assert.ok(s.turns.every((x) => x.sidechain));
    assert.equal(s.facts.subagent, false, 'the folder stays the main session, whichever of its files is read last');
  });
});

test('Continue: prompts and replies with tokens (cached prompt tokens taken out of input), the Bash call and its output', () => {
  const r = read(CONTINUE, 'continue', path.basename(CONTINUE));
  assert.deepEqual(brief(r.turns), conversation([['', 'Bash']]));
  assert.equal(r.turns[1].tools[0].output, 'README.md\nsrc\n');
  assert.equal(r.facts.cwd, '/tmp/fb-home3/repo');
  assert.equal(r.facts.title_hint, null, '"Untitled Session" is no title');
  inTmp((dir) => {
    const doc = JSON.parse(fs.readFileSync(CONTINUE, 'utf8'));
    doc.title = 'Files of the repo';
    doc.history.splice(1, 0, { message: { role: 'thinking', content: 'Listing is one command.' }, contextItems: [] });
    doc.history[2].message.usage = { prompt_tokens: 1000, completion_tokens: 20, model: 'm', prompt_tokens_details: { cache_read_tokens: 700, cache_write_tokens: 100 } };
    const file = path.join(dir, 's.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const x = read(file, 'continue', 's.json');
    assert.equal(x.turns.length, 5, 'a thinking message is part of the reply after it');
    assert.equal(x.turns[1].thinking, 'Listing is one command.');
    assert.deepEqual(x.turns[1].tokens, { input: 200, output: 20, cache_creation: 100, cache_read: 700 });
    assert.equal(x.facts.title_hint, 'Files of the repo');
    // Caught mid-write (Continue does not write atomically): no turns, counted bad, nothing thrown.
    const torn = path.join(dir, 'torn.json');
    fs.writeFileSync(torn, fs.readFileSync(CONTINUE, 'utf8').slice(0, 900));
    const y = read(torn, 'continue', 'torn.json');
    assert.equal(y.turns.length, 0);
    assert.equal(y.counts.bad, 1);
  });
});

test('the folders: every editor (Cursor too) and Cline\'s own data folder, with the agents\' overrides, on Linux, macOS and Windows', () => {
  const home = '/home/ana';
  const dirs = (lane: string, env: Record<string, string>) => agentByLane(lane)!.roots(env).map((r) => r.dir);
  const linux = dirs('cline', { HOME: home, BRAIN_PLATFORM: 'linux' });
  assert.ok(linux.includes('/home/ana/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks'));
  assert.ok(linux.includes('/home/ana/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks'));
  assert.ok(linux.includes('/home/ana/.local/share/code-server/User/globalStorage/saoudrizwan.claude-dev/tasks'));
  assert.ok(linux.includes('/home/ana/.cline/data/tasks'));
  assert.ok(dirs('cline', { HOME: home, CLINE_DIR: '/opt/cl' }).includes('/opt/cl/data/tasks'));
  assert.ok(dirs('cline', { HOME: home, CLINE_DIR: '/opt/cl', CLINE_DATA_DIR: '/d' }).includes('/d/tasks'), 'CLINE_DATA_DIR wins over CLINE_DIR');
  const mac = dirs('roo', { HOME: '/Users/ana', BRAIN_PLATFORM: 'darwin' });
  assert.ok(mac.includes('/Users/ana/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks'));
  assert.ok(mac.includes('/Users/ana/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks'));
  const W = 'C:\\Users\\Ana Lima';
  const win = { HOME: W, BRAIN_PLATFORM: 'win32', APPDATA: `${W}\\AppData\\Roaming` };
  assert.ok(dirs('kilo_ext', win).includes(`${W}\\AppData\\Roaming\\Code\\User\\globalStorage\\kilocode.kilo-code\\tasks`));
  assert.ok(dirs('kilo_ext', win).includes(`${W}\\AppData\\Roaming\\Cursor\\User\\globalStorage\\kilocode.kilo-code\\tasks`));
  assert.deepEqual(dirs('cline_cli', win), [`${W}\\.cline\\data\\sessions`]);
  assert.deepEqual(dirs('cline_cli', { ...win, CLINE_SESSION_DATA_DIR: 'D:\\s' }), ['D:\\s']);
  assert.deepEqual(dirs('continue', win), [`${W}\\.continue\\sessions`]);
  assert.deepEqual(dirs('continue', { ...win, CONTINUE_GLOBAL_DIR: 'D:\\cn' }), ['D:\\cn\\sessions']);
  for (const lane of ['cline', 'roo', 'kilo_ext', 'cline_cli', 'continue']) for (const d of dirs(lane, win)) assert.ok(!d.includes('/'), `${lane}: ${d}`);
  // What is a session file.
  const c = agentByLane('continue')!.roots({ HOME: home })[0];
  assert.equal(c.include('5d8b47bd-9fe2-43b6-b3ee-08788149a406.json'), true);
  assert.equal(c.include('sessions.json'), false);
  const cli = agentByLane('cline_cli')!.roots({ HOME: home })[0];
  assert.equal(cli.include('s1/s1.messages.json'), true);
  assert.equal(cli.include('s1/agent-2.messages.json'), true);
  assert.equal(cli.include('s1/s1.json'), true);
  assert.equal(cli.include('s1/s1.request.r1.json'), false);
  const task = agentByLane('cline')!.roots({ HOME: home })[0];
  assert.equal(task.include('17/ui_messages.json'), true);
  assert.equal(task.include('17/context_history.json'), false);
});
