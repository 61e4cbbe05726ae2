// One recall front door (src/core/tools): `brain search/show/cite --json`, `brain mcp` and the front
// door called in-process give the same answer for the same query on the same floor: the same hits
// and turns, the same secrets masked the same way (and counted), the same session left out, and
// the same refusal, in the same words, of an input the tool's schema does not allow.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';
import { byName } from '../core/secrets/plant';
import { startMcp, type Mcp } from '../mcp/helpers';
import { BrainError } from '../../src/core/errors';
import { DEFAULT_BUDGET, callTool, type ToolContext } from '../../src/core/tools';

const CC = '6f1c2d3e-0000-4000-8000-00000000aaaa';
let pf: PlantedFloor;
let sb: Sandbox;
let mcp: Mcp;

before(async () => {
  sb = sandbox({ fixtures: true, name: 'frontdoor' });
  pf = plantSessions(sb);
  record(sb);
  mcp = await startMcp(sb.env);
});
after(async () => {
  await mcp?.close();
  sb?.cleanup();
});

/** The front door in this process, as the editor's worker calls it (the turn index kept current). */
function door(name: string, input: unknown, over: Partial<ToolContext> = {}): Promise<unknown> {
  return callTool(name, input, { env: sb.env, callerEnv: sb.env, home: sb.brain, index: 'live', budget: DEFAULT_BUDGET, ...over });
}

/** `brain ARGS --json`: its exit code and the parsed answer (or error). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; json: any; stderr: string } {
  const r = brain(sb, [...args, '--json'], { env });
  return { status: r.status, json: JSON.parse(r.stdout), stderr: r.stderr };
}

/** The same answer from the three doors (the CLI first: it brings the turn index up to date, which
 * brain mcp then reads a copy of). */
async function same(args: string[], tool: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<any> {
  const c = cli(args, env);
  assert.equal(c.status, 0, c.stderr);
  const m = await mcp.call(tool, input);
  assert.equal(m.isError, false, m.text);
  const d = await door(tool, input);
  assert.deepEqual(m.json, c.json, `brain mcp ${tool} and brain ${args.join(' ')} --json`);
  assert.deepEqual(d, c.json, `the front door's ${tool} and brain ${args.join(' ')} --json`);
  return c.json;
}

test('search: the same hits, the same secrets masked, the same caller left out', async () => {
  const j = await same(['search', 'here is my key'], 'search', { term: 'here is my key' });
  assert.ok(j.hits.length > 0 && j.masked >= 1, JSON.stringify(j).slice(0, 400));
  assertMasked(pf, JSON.stringify(j), 'search');
  const openai = byName(pf.keys, 'openai').secret;
  assert.ok(JSON.stringify(j).includes(`${openai.slice(0, 4)}…${openai.slice(-2)}`), 'the preview brain secrets shows');
  assert.equal(j.skipped, null);
  // An explicit skip: each door leaves the session out and says so.
  const all = cli(['search', 'key', '--limit', '5']).json;
  assert.ok(all.hits.some((h: { session: string }) => h.session === CC));
  const s = await same(['search', 'key', '--limit', '5', '--skip', CC], 'search', { term: 'key', limit: 5, skip: CC });
  assert.deepEqual(s.skipped, { session: CC, source: 'argument skip' });
  assert.ok(!s.hits.some((h: { session: string }) => h.session === CC));
  assert.equal(s.total, all.total - 1);
  // The calling session named by the environment (an agent's shell; the harness that started the
  // server): the CLI and the front door leave it out the same way.
  const env = { CLAUDE_CODE_SESSION_ID: CC };
  const fromEnv = cli(['search', 'key', '--limit', '5'], env);
  assert.deepEqual(fromEnv.json.skipped, { session: CC, source: 'env CLAUDE_CODE_SESSION_ID' });
  assert.deepEqual(fromEnv.json.hits, s.hits);
  assert.deepEqual(await door('search', { term: 'key', limit: 5 }, { callerEnv: { ...sb.env, ...env } }), fromEnv.json);
});

test('read_session: the same turns, masked the same way, with the same range', async () => {
  const j = await same(['show', CC, '--turns', '1..4'], 'read_session', { session: CC, turns: '1..4' });
  assert.equal(j.range, '1..4');
  assert.ok(j.masked >= 1);
  assertMasked(pf, JSON.stringify(j), 'read_session');
});

test('cite and verify_citation: the same citation, and it verifies', async () => {
  const hit = cli(['search', 'here is my key']).json.hits[0].snippets[0].citation;
  const input = { lake_path: hit.lake_path, line_from: hit.line_from, line_to: hit.line_to };
  const c = await same(['cite', hit.lake_path, `${hit.line_from}..${hit.line_to}`], 'cite', input);
  assert.equal(c.sha256, hit.sha256);
  const v = await same(['cite', '--verify', JSON.stringify(c)], 'verify_citation', { citation: c });
  assert.equal(v.ok, true);
});

/** A bad input refused by the three doors with the same words: the CLI exits 2 (its JSON error on
 * stdout), brain mcp answers an invalid-params error, the front door throws a usage error. */
async function refused(args: string[], tool: string, input: Record<string, unknown>, words: RegExp): Promise<void> {
  const c = cli(args);
  assert.equal(c.status, 2, c.stderr);
  assert.equal(c.json.error, 'usage');
  assert.match(c.json.message, words);
  const e = await door(tool, input).then(
    () => assert.fail(`the front door took ${JSON.stringify(input)}`),
    (x: unknown) => x,
  );
  assert.ok(e instanceof BrainError && e.code === 'usage', String(e));
  assert.equal(e.message, c.json.message);
  await assert.rejects(mcp.call(tool, input), (x: Error) => x.message.includes(`${tool}: ${c.json.message}`));
}

test('a bad input is refused the same way by each door', async () => {
  await refused(['search', 'here is my key', '--limit', '0'], 'search', { term: 'here is my key', limit: 0 }, /limit/);
  await refused(['search', 'here is my key', '--limit', '501'], 'search', { term: 'here is my key', limit: 501 }, /limit/);
  await refused(['show', CC, '--turns', 'three'], 'read_session', { session: CC, turns: 'three' }, /turns/);
  await refused(['cite', 'lake/x.jsonl', '0..2'], 'cite', { lake_path: 'lake/x.jsonl', line_from: 0, line_to: 2 }, /line_from/);
  await refused(['cite', 'lake/x.jsonl', '5-2'], 'cite', { lake_path: 'lake/x.jsonl', line_from: 5, line_to: 2 }, /before line_from/);
});

test('several words (the CLI\'s own form) are checked as any search is', () => {
  // Each word is searched over the whole list: a limit the tool does not allow was taken as it came.
  for (const limit of ['0', '501', '2.5']) {
    const r = brain(sb, ['search', 'here', 'key', '--limit', limit]);
    assert.equal(r.status, 2, `--limit ${limit}: ${r.stdout}`);
    assert.match(r.stderr, /brain search: .*limit/);
  }
  const ok = cli(['search', 'here', 'key', '--limit', '1']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.json.hits.length, 1);
  assertMasked(pf, JSON.stringify(ok.json), 'several words');
});
