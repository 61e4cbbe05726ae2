// `brain mcp --store PATH`: one server over every machine's floor in a store. Two machines back up
// into one store folder with `brain backup`: this one (the fixtures) and another whose only session
// is derived from a fixture, byte for byte, with a phrase no fixture has. Search finds both
// machines' sessions; citations name their machine and verify at <store>/<machine>/, by the tool
// and by sed | sha256sum; the store is read and never written.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { capturedFloor, sedSha, snapshot, startMcp, type Mcp } from './helpers';

const PHRASE = 'quokka migration';
let here: Sandbox;
let other: Sandbox;
let store: string;
let mcp: Mcp;

before(async () => {
  here = capturedFloor('mcp-store');
  other = sandbox({ name: 'mcp-store-other' });
  other.env.BRAIN_MACHINE = 'otherbox';
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl'), 'utf8');
  assert.ok(src.includes('user authentication'));
  const dir = path.join(other.home, '.claude', 'projects', '-work-other');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'b7a1e2c4-0d1f-4c55-9a3e-5f6a7b8c9d01.jsonl'), src.replaceAll('user authentication', PHRASE));
  const rec = brain(other, ['record']);
  assert.equal(rec.status, 0, rec.stderr);
  store = path.join(here.dir, 'store');
  for (const [sb, m] of [
    [here, 'testbox'],
    [other, 'otherbox'],
  ] as const) {
    const b = brain(sb, ['backup', path.join(store, m)]);
    assert.equal(b.status, 0, `brain backup: ${b.stdout}\n${b.stderr}`);
  }
  mcp = await startMcp(here.env, ['--store', store]);
});

after(async () => {
  await mcp?.close();
  here?.cleanup();
  other?.cleanup();
});

test('search over the store finds each machine\'s sessions; their citations verify at the store', async () => {
  const before = snapshot(store);
  const r = await mcp.call('search', { term: PHRASE });
  assert.equal(r.isError, false, r.text);
  assert.equal(r.json.hits.length, 1);
  const h = r.json.hits[0];
  assert.equal(h.machine, 'otherbox');
  assert.equal(h.session, 'b7a1e2c4-0d1f-4c55-9a3e-5f6a7b8c9d01');
  const c = h.snippets[0].citation;
  assert.equal(c.machine, 'otherbox');
  assert.equal(sedSha(path.join(store, 'otherbox', c.lake_path), c.line_from, c.line_to), c.sha256);
  assert.equal((await mcp.call('verify_citation', { citation: c })).json.ok, true);
  assert.deepEqual((await mcp.call('cite', { machine: 'otherbox', lake_path: c.lake_path, line_from: c.line_from, line_to: c.line_to })).json, c);
  const read = await mcp.call('read_session', { session: h.session, machine: 'otherbox' });
  assert.ok(read.json.turns.some((t: { text: string }) => t.text.includes(PHRASE)));

  // This machine's sessions are in the same store, under its own name.
  const mine = await mcp.call('search', { term: 'does it only run on main' });
  assert.deepEqual(
    mine.json.hits.map((x: { machine: string }) => x.machine),
    ['testbox'],
  );
  const both = await mcp.call('search', { term: 'user authentication' });
  assert.ok(both.json.hits.every((x: { machine: string }) => x.machine === 'testbox'), 'the derived copy no longer says it');
  const machines = await mcp.call('search', { term: 'implement', machine: 'otherbox' });
  assert.ok(machines.json.hits.length >= 1 && machines.json.hits.every((x: { machine: string }) => x.machine === 'otherbox'));

  // A citation of a machine that is not in the store is an error result that names the machines.
  const nowhere = await mcp.call('verify_citation', { citation: { ...c, machine: 'ghost' } });
  assert.equal(nowhere.isError, true);
  assert.match(nowhere.json.error.hint, /otherbox/);
  assert.deepEqual(snapshot(store), before, 'the store is only read');
});

test('without --store the server reads this machine\'s floor only; a call may name a store itself', async () => {
  const local = await startMcp(here.env);
  try {
    assert.equal((await local.call('search', { term: PHRASE })).json.total, 0);
    const viaArg = await local.call('search', { term: PHRASE, store });
    assert.equal(viaArg.json.hits[0].machine, 'otherbox');
  } finally {
    await local.close();
  }
});

test('sql on a floor without its cache: an error that says how to build it, and nothing is written', async () => {
  // The cache is deletable at any time (record builds it; this is the moment after a delete).
  for (const f of fs.readdirSync(other.brain)) if (f.startsWith('brain.duckdb')) fs.rmSync(path.join(other.brain, f));
  const m = await startMcp(other.env);
  try {
    const r = await m.call('sql', { query: 'SELECT 1 AS one' });
    assert.equal(r.isError, true);
    assert.equal(r.json.error.code, 'cache-missing');
    assert.match(r.json.error.hint, /brain rebuild/);
    assert.equal(fs.existsSync(path.join(other.brain, 'brain.duckdb')), false);
  } finally {
    await m.close();
  }
});

test('sql says so when the floor has grown since the cache was built', async () => {
  const m = await startMcp(here.env);
  try {
    const fresh = await m.call('sql', { query: 'SELECT 1 AS one' });
    assert.equal(fresh.json.note, undefined);
    const manifest = path.join(here.brain, 'manifest', 'manifest.jsonl');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(manifest, later, later);
    const stale = await m.call('sql', { query: 'SELECT 1 AS one' });
    assert.match(stale.json.note, /floor has grown since the cache/);
  } finally {
    await m.close();
  }
});

test('a --store that is not a folder stops the server at start, naming it', () => {
  const r = brain(here, ['mcp', '--store', path.join(here.dir, 'no-such-store')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no-such-store is not a folder/);
  assert.equal(r.stdout, '', 'nothing on the protocol stream');
});
