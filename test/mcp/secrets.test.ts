// `brain mcp` over stdio never hands a planted credential back in clear: search, read_session and
// sql answers are masked (the guard's findings, and the detector over the answer for what is not
// scanned yet), with "masked": N, and no argument turns that off. The real fixtures are captured
// beside the planted sessions.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';
import { byName } from '../core/secrets/plant';
import { sedSha, startMcp, type Mcp } from './helpers';
import * as path from 'node:path';

const CC = '6f1c2d3e-0000-4000-8000-00000000aaaa';
let pf: PlantedFloor;
let sb: Sandbox;
let mcp: Mcp;
before(async () => {
  sb = sandbox({ fixtures: true, name: 'mcp-sec' });
  pf = plantSessions(sb);
  // Captured without the guard's pass: nothing is in secrets.json yet.
  record(sb);
  const reb = brain(sb, ['rebuild']);
  assert.equal(reb.status, 0, reb.stderr);
  mcp = await startMcp(sb.env);
});
after(async () => {
  await mcp?.close();
  sb?.cleanup();
});

test('search and read_session mask keys the guard has not scanned yet; citations still check', async () => {
  // There is no way to ask for the secrets in clear here.
  await assert.rejects(mcp.call('search', { term: 'here is my key', reveal: true }), /reveal/);
  const ok = await mcp.call('search', { term: 'here is my key' });
  assert.equal(ok.isError, false, ok.text);
  assertMasked(pf, ok.text, 'search');
  assert.ok(ok.json.masked >= 1, ok.text);
  const openai = byName(pf.keys, 'openai').secret;
  assert.ok(ok.text.includes(`${openai.slice(0, 4)}…${openai.slice(-2)}`), 'the preview brain secrets shows');
  const ids = [CC];
  for (const term of ['huggingface-cli', 'Wire the storage account']) {
    const h = await mcp.call('search', { term });
    assertMasked(pf, h.text, `search ${term}`);
    ids.push(h.json.hits[0].session);
  }
  for (const session of ids) {
    const r = await mcp.call('read_session', { session });
    assert.equal(r.isError, false, r.text);
    assertMasked(pf, r.text, `read_session ${session}`);
    assert.ok(r.json.masked > 0, `${session}: masked count`);
    for (const t of r.json.turns as { citation: { lake_path: string; line_from: number; line_to: number; sha256: string } }[]) {
      const c = t.citation;
      assert.equal(sedSha(path.join(sb.brain, c.lake_path), c.line_from, c.line_to), c.sha256, 'the citation is over the floor bytes');
    }
  }
});

test('sql masks raw lines, and a value cut away from its name once the guard has found it', async () => {
  const raw = await mcp.call('sql', { query: "SELECT raw_line FROM floor.raw_lines WHERE raw_line LIKE '%tool_result%' OR raw_line LIKE '%function_call%' OR raw_line LIKE '%toolResult%'", limit: 100 });
  assert.equal(raw.isError, false, raw.text);
  assertMasked(pf, raw.text, 'sql raw lines');
  const scan = brain(sb, ['secrets']);
  assert.equal(scan.status, 1, scan.stderr);
  const q = "SELECT split_part(split_part(raw_line, 'DB_PASSWORD=', 2), '\\n', 1) AS v FROM floor.raw_lines WHERE raw_line LIKE '%DB_PASSWORD=%'";
  const r = await mcp.call('sql', { query: q });
  assert.equal(r.isError, false, r.text);
  assertMasked(pf, r.text, 'sql value alone');
  // The cache stores the line masked already (src/core/secrets/cachemask.ts): the value SQL cut
  // out of it is the guard's preview, with nothing left for the answer's own mask.
  assert.equal(r.json.rows.length, 1);
  assert.match(String(r.json.rows[0].v), /…/);
});
