// Search as the recall tools call it: ranking on constructed sessions (turn text beats tool-only,
// --newest, the room rule for the tool tier), filters, the scan
// fallback giving the same answer as the index, and a store of several machines.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { search, readSession, verify, type SearchOutput } from '../../../src/core/recall';
import { TestFloor, fixtureTranscripts } from '../index/floor';
import { floorFiles, scanFile } from '../../../src/core/recall/scan';
import { homeRoot } from '../../../src/core/index/roots';

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

const envOf = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, BRAIN_HOME: home, BRAIN_MACHINE: 'testbox', BRAIN_NO_RG: process.env.BRAIN_NO_RG, ...extra });

const TERM = 'Frobnicator';

/** A Pi session: header, then entries; `when` sets its start. */
function pi(floor: TestFloor, name: string, when: string, project: string, entries: object[]) {
  let t = Date.parse(when);
  const ts = () => new Date((t += 1000)).toISOString();
  const lines = [JSON.stringify({ type: 'session', version: 3, id: name, timestamp: new Date(t).toISOString(), cwd: project })];
  for (const e of entries) lines.push(JSON.stringify({ timestamp: ts(), ...e }));
  floor.append('pi', `--${project.replace(/\//g, '-')}--/${name}.jsonl`, lines.join('\n') + '\n', { session: name });
}

const user = (text: string) => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });
const reply = (text: string, extra: object[] = []) => ({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }, ...extra], model: 'm' } });

function constructed(dir: string): TestFloor {
  const f = new TestFloor(dir);
  pi(f, 's-many', '2026-03-01T10:00:00Z', '/w/alpha', [user(`tell me about the ${TERM}`), reply(`the ${TERM} frobs`), user('and then?'), reply(`a second ${TERM.toLowerCase()} note`)]);
  pi(f, 's-one-old', '2026-02-01T10:00:00Z', '/w/beta', [user(`one ${TERM.toUpperCase()} mention`), reply('ok')]);
  pi(f, 's-one-new', '2026-04-01T10:00:00Z', '/w/gamma', [user('nothing here'), reply(`just one ${TERM} here`)]);
  pi(f, 's-tool', '2026-03-05T10:00:00Z', '/w/alpha', [
    user('run it'),
    reply('running', [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } }]),
    { type: 'message', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: `output mentions ${TERM} once` }], isError: false } },
  ]);
  pi(f, 's-think', '2026-03-06T10:00:00Z', '/w/alpha', [user('think'), { type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: `pondering the ${TERM}` }, { type: 'text', text: 'done' }] } }]);
  pi(f, 's-args', '2026-03-07T10:00:00Z', '/w/alpha', [user('call'), reply('calling', [{ type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: `grep ${TERM}` } }])]);
  // A line no dialect can read still counts, in the tool tier.
  const bad = `--w-alpha--/s-bad.jsonl`;
  f.append('pi', bad, `${JSON.stringify({ type: 'session', version: 3, id: 's-bad', timestamp: '2026-03-09T10:00:00Z', cwd: '/w/alpha' })}\n{not json but mentions ${TERM}\n`, { session: 's-bad' });
  pi(f, 's-none', '2026-03-10T10:00:00Z', '/w/alpha', [user('unrelated'), reply('unrelated')]);
  return f;
}

const ids = (r: SearchOutput) => r.hits.map((h) => h.session);

test('ranking: turns by matching-turn count, then the tool tier', () => {
  const dir = tmp('rank');
  try {
    constructed(dir);
    const r = search({ term: TERM }, envOf(dir));
    assert.equal(r.source, 'index');
    assert.equal(r.tool_output_searched, true);
    assert.deepEqual(ids(r), ['s-many', 's-one-new', 's-one-old', 's-bad', 's-args', 's-think', 's-tool']);
    assert.deepEqual(
      r.hits.map((h) => [h.tier, h.matching_turns]),
      [
        ['turns', 3],
        ['turns', 1],
        ['turns', 1],
        ['tools', 1],
        ['tools', 1],
        ['tools', 1],
        ['tools', 1],
      ],
    );
    assert.equal(r.total, 7);
    assert.match(r.header, /7 sessions for "Frobnicator" · turn index · tool output searched/);
    const byId = Object.fromEntries(r.hits.map((h) => [h.session, h]));
    assert.deepEqual(
      byId['s-many'].snippets.map((s) => s.turn),
      [1, 2, 4],
    );
    assert.equal(byId['s-tool'].snippets[0].field, 'tool_output');
    assert.equal(byId['s-think'].snippets[0].field, 'thinking');
    assert.equal(byId['s-args'].snippets[0].field, 'tool_arguments');
    assert.equal(byId['s-bad'].snippets[0].field, 'unparsed_line');
    // Every snippet holds the term and its citation verifies.
    for (const h of r.hits) {
      assert.ok(h.snippets.length > 0);
      for (const s of h.snippets) {
        assert.match(s.text, new RegExp(TERM, 'i'));
        assert.equal(verify({ citation: s.citation }, envOf(dir)).ok, true);
      }
    }
    assert.equal(byId['s-many'].title, `tell me about the ${TERM}`);
    assert.equal(byId['s-many'].project, '/w/alpha');
    assert.equal(byId['s-many'].agent, 'pi');
    assert.equal(byId['s-many'].turns, 4);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--newest orders each tier by start date', () => {
  const dir = tmp('newest');
  try {
    constructed(dir);
    const r = search({ term: TERM, newest: true }, envOf(dir));
    assert.deepEqual(ids(r), ['s-one-new', 's-many', 's-one-old', 's-bad', 's-args', 's-think', 's-tool']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the total is every session whatever --limit lists (the tool tier is searched even when the list is full)', () => {
  const dir = tmp('room');
  try {
    constructed(dir);
    const r = search({ term: TERM, limit: 2 }, envOf(dir));
    assert.deepEqual(ids(r), ['s-many', 's-one-new']);
    assert.equal(r.tool_output_searched, true);
    assert.equal(r.total, 7);
    assert.equal(search({ term: TERM, limit: 50 }, envOf(dir)).total, 7);
    assert.equal(search({ term: TERM, limit: 2 }, envOf(dir), { index: 'off' }).total, 7);
    assert.match(r.header, /^7 sessions .*showing 2/);
    // One slot left after tier 1 (3 sessions, limit 4): the tool tier fills it.
    const r4 = search({ term: TERM, limit: 4 }, envOf(dir));
    assert.equal(r4.tool_output_searched, true);
    assert.deepEqual(ids(r4), ['s-many', 's-one-new', 's-one-old', 's-bad']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('filters: agent, project glob, machine, since, skip', () => {
  const dir = tmp('filter');
  try {
    const f = constructed(dir);
    f.addFixture('claude/projects/-misc-git-ai/example-claude-code.jsonl');
    const env = envOf(dir);
    assert.deepEqual(ids(search({ term: TERM, project: 'beta' }, env)), ['s-one-old']);
    assert.deepEqual(ids(search({ term: TERM, project: '/w/g*' }, env)), ['s-one-new']);
    assert.deepEqual(ids(search({ term: TERM, since: '2026-03-20' }, env)), ['s-one-new']);
    assert.deepEqual(ids(search({ term: TERM, skip: 's-many', limit: 2 }, env)), ['s-one-new', 's-one-old']);
    assert.deepEqual(ids(search({ term: 'green and yellow', agent: 'pi' }, env)), []);
    assert.deepEqual(ids(search({ term: 'green and yellow', agent: 'claude' }, env)), ['example-claude-code']);
    assert.deepEqual(ids(search({ term: 'green and yellow', machine: 'elsewhere' }, env)), []);
    assert.throws(() => search({ term: TERM, agent: 'vim' }, env), /unknown agent "vim"/);
    assert.throws(() => search({ term: TERM, since: 'yesterday-ish' }, env), /cannot read "yesterday-ish" as a date/);
    assert.throws(() => search({ term: TERM, colour: 'red' } as never, env), /unknown field colour/);
    assert.throws(() => search({ term: '' }, env), /term must not be empty/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function comparable(r: SearchOutput) {
  return r.hits.map((h) => ({ ...h, snippets: h.snippets.map((s) => ({ ...s })) }));
}

test('the scan fallback gives the index\'s answer, and says why it ran', () => {
  const dir = tmp('fallback');
  try {
    const f = constructed(dir);
    for (const x of fixtureTranscripts()) f.addFixture(x);
    for (const term of [TERM, 'green and yellow', 'TodoWrite', 'ファイル', 'the', 'zzzzqqq']) {
      const a = search({ term, limit: 50 }, envOf(dir));
      const b = search({ term, limit: 50 }, envOf(dir), { index: 'off' });
      assert.equal(a.source, 'index');
      assert.equal(b.source, 'scan');
      assert.equal(b.fallback, 'the turn index is off');
      assert.match(b.header, /scan \(the turn index is off\)/);
      assert.deepEqual(
        comparable(b).filter((h) => h.tier === 'turns'),
        comparable(a).filter((h) => h.tier === 'turns'),
        term,
      );
      // The tool tier is searched in both here (the list has room), so it agrees as well.
      assert.deepEqual(
        ids(b).filter((_, i) => b.hits[i].tier === 'tools').sort(),
        ids(a).filter((_, i) => a.hits[i].tier === 'tools').sort(),
        term,
      );
    }
    const short = search({ term: 'ui' }, envOf(dir));
    assert.equal(short.source, 'scan');
    assert.match(short.header, /terms under 3 characters/);
    assert.ok(short.hits.length > 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the scan holds counts and the first few mentions per file, not the file: many mentions count in full', () => {
  const dir = tmp('scan-keep');
  try {
    const f = new TestFloor(dir);
    const entries: object[] = [];
    for (let i = 1; i <= 10; i++) entries.push(user(`question ${i} about the ${TERM}`), reply(`answer ${i}`));
    for (let i = 1; i <= 5; i++) {
      entries.push(reply('looking', [{ type: 'toolCall', id: `t${i}`, name: 'bash', arguments: { command: `grep ${TERM} f${i}` } }]));
      entries.push({ type: 'message', message: { role: 'toolResult', toolCallId: `t${i}`, toolName: 'bash', content: [{ type: 'text', text: 'no match' }] } });
    }
    pi(f, 's-lots', '2026-03-01T10:00:00Z', '/w/lots', entries);
    const file = floorFiles(homeRoot(envOf(dir), dir)).find((x) => x.session === 's-lots')!;
    const [sc, more] = scanFile(file, TERM, 3)!;
    assert.equal(more, undefined, 'one session in the file');
    assert.equal(sc.textCount, 10);
    assert.deepEqual(sc.text.map((t) => t.snippet), [1, 2, 3].map((i) => `question ${i} about the ${TERM}`));
    assert.equal(sc.toolCount, 5);
    assert.equal(sc.tool.length, 3);
    assert.equal(sc.tool[0].field, 'tool_arguments');
    assert.equal(sc.info.session, 's-lots');
    assert.equal(sc.info.title, `question 1 about the ${TERM}`);
    assert.equal(sc.info.turns, 25);
    const r = search({ term: TERM }, envOf(dir), { index: 'off' });
    assert.equal(r.hits[0].matching_turns, 10);
    assert.equal(r.hits[0].snippets.length, 3);
    assert.deepEqual(r.hits[0].snippets.map((x) => x.turn), [1, 3, 5]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an index that cannot be written falls back to the scan', () => {
  const dir = tmp('ro');
  try {
    constructed(dir);
    // Tests run as root here, where file modes do not stop a write: a directory in the index's
    // place fails the open the same way a read-only home does.
    fs.mkdirSync(path.join(dir, 'turns.sqlite'));
    const r = search({ term: TERM }, envOf(dir));
    assert.equal(r.source, 'scan');
    assert.match(r.fallback!, /turn index .*turns\.sqlite cannot be written/);
    assert.equal(r.hits[0].session, 's-many');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('each search brings the index up to date first', () => {
  const dir = tmp('fresh');
  try {
    const f = constructed(dir);
    assert.equal(search({ term: 'late arrival' }, envOf(dir)).hits.length, 0);
    pi(f, 's-late', '2026-05-01T10:00:00Z', '/w/late', [user('a late arrival'), reply('yes')]);
    const r = search({ term: 'late arrival' }, envOf(dir));
    assert.deepEqual(ids(r), ['s-late']);
    assert.equal(r.source, 'index');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the tool tier reads the files the raw index names, and lines it does not hold yet, without running rg', () => {
  const dir = tmp('rawtier');
  // An rg that notes each search it is asked for (and fails it, so a caller would read the files).
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const calls = path.join(dir, 'rg-calls');
  fs.writeFileSync(path.join(bin, 'rg'), `#!/bin/sh\n[ "$1" = "--version" ] && exit 0\necho "$@" >> ${JSON.stringify(calls)}\nexit 2\n`, { mode: 0o755 });
  const was = { PATH: process.env.PATH, NO_RG: process.env.BRAIN_NO_RG };
  process.env.PATH = `${bin}:${process.env.PATH}`;
  delete process.env.BRAIN_NO_RG;
  try {
    const f = constructed(dir);
    const env = envOf(dir, { BRAIN_NO_RG: undefined });
    const r = search({ term: TERM }, env);
    assert.deepEqual(ids(r), ['s-many', 's-one-new', 's-one-old', 's-bad', 's-args', 's-think', 's-tool']);
    // A tool result still being written (no newline yet), then one more complete line.
    const rel = `--w-tail--/s-tail.jsonl`;
    const head = [
      JSON.stringify({ type: 'session', version: 3, id: 's-tail', timestamp: '2026-03-11T10:00:00Z', cwd: '/w/tail' }),
      JSON.stringify({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'run' }] } }),
      JSON.stringify({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c9', name: 'bash', arguments: { command: 'ls' } }] } }),
    ].join('\n');
    f.append('pi', rel, `${head}\n${JSON.stringify({ type: 'message', message: { role: 'toolResult', toolCallId: 'c9', toolName: 'bash', content: [{ type: 'text', text: 'tail says Glimmerquartz' }] } })}`, { session: 's-tail' });
    const t = search({ term: 'glimmerquartz' }, env);
    assert.deepEqual(t.hits.map((h) => [h.session, h.tier, h.snippets[0]?.field]), [['s-tail', 'tools', 'tool_output']]);
    const call = JSON.stringify({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c10', name: 'bash', arguments: { command: 'ls' } }] } });
    f.append('pi', rel, `\n${call}\n${JSON.stringify({ type: 'message', message: { role: 'toolResult', toolCallId: 'c10', toolName: 'bash', content: [{ type: 'text', text: 'and then Quartzglimmer' }] } })}\n`, { session: 's-tail' });
    assert.deepEqual(ids(search({ term: 'QUARTZGLIMMER' }, env)), ['s-tail']);
    assert.deepEqual(ids(search({ term: 'glimmerquartz' }, env)), ['s-tail']);
    assert.equal(search({ term: 'nowhere-at-all' }, env).total, 0);
    assert.ok(!fs.existsSync(calls), `rg ran: ${fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8') : ''}`);
  } finally {
    process.env.PATH = was.PATH;
    if (was.NO_RG !== undefined) process.env.BRAIN_NO_RG = was.NO_RG;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a store: every machine is searched, and citations verify there after the origin is gone', () => {
  const store = tmp('store');
  try {
    const a = new TestFloor(path.join(store, 'laptop'), 'laptop');
    const b = new TestFloor(path.join(store, 'server'), 'server');
    a.addFixture('claude/projects/-misc-git-ai/example-claude-code.jsonl');
    b.addFixture('pi/agent/sessions/--fixtures-synthetic--/git-ai-pi-session-tool.jsonl');
    pi(b, 's-server', '2026-03-01T10:00:00Z', '/srv/app', [user('green and yellow on the server'), reply('fine')]);
    const env = envOf(path.join(store, 'nonexistent-home'));
    const r = search({ term: 'green and yellow', store }, env);
    assert.deepEqual(r.hits.map((h) => `${h.machine}/${h.session}`).sort(), ['laptop/example-claude-code', 'server/s-server']);
    assert.ok(fs.existsSync(path.join(store, 'turns.sqlite')), 'the index sits at the store root');
    const c = r.hits.find((h) => h.machine === 'laptop')!.snippets[0].citation;
    assert.equal(c.machine, 'laptop');
    assert.equal(c.lake_path, 'lake/cc/-misc-git-ai/example-claude-code.jsonl');
    // Checkable with sed and sha256sum, exactly as the citation says.
    const sed = execFileSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "${path.join(store, 'laptop', c.lake_path)}" | sha256sum`], { encoding: 'utf8' });
    assert.equal(sed.split(' ')[0], c.sha256);
    assert.equal(verify({ citation: c, store }, env).ok, true);
    // A byte changed at the store: the citation no longer verifies, and says where.
    const file = path.join(store, 'laptop', c.lake_path);
    const buf = fs.readFileSync(file);
    buf[c.byte_from + 5] ^= 1;
    fs.writeFileSync(file, buf);
    const bad = verify({ citation: c, store }, env);
    assert.equal(bad.ok, false);
    assert.match(bad.problem!, /hash to/);
    assert.throws(() => verify({ citation: { ...c, machine: 'gone' }, store }, env), /machine "gone" has no folder/);
    // Reading a session from the store.
    const s = readSession({ session: 's-server', store }, env);
    assert.equal(s.session.machine, 'server');
    assert.equal(s.turns[0].text, 'green and yellow on the server');
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
});

test('a renamed machine: the index starts again under the new name', () => {
  const dir = tmp('rename');
  try {
    constructed(dir);
    const a = search({ term: TERM }, envOf(dir, { BRAIN_MACHINE: 'old-name' }));
    assert.ok(a.hits.every((h) => h.machine === 'old-name'));
    const b = search({ term: TERM }, envOf(dir, { BRAIN_MACHINE: 'new-name' }));
    assert.deepEqual(ids(b), ids(a));
    assert.ok(b.hits.every((h) => h.machine === 'new-name' && h.snippets.every((s) => s.citation.machine === 'new-name')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
