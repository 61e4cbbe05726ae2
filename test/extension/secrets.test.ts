// The editor's recall path (what the LM tools and the views call, src/extension/recall.ts) masks
// every planted credential in search, read_session and sql answers, with "masked": N, whatever the
// SQL runner hands it: the mask is the recall path's own, and the editor has no way to reveal.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runReadOnlySql } from '../../src/core/cache';
import { sized } from '../../src/extension/recall';
import { recall } from '../../src/extension/worker/recall';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';
import { byName } from '../core/secrets/plant';
import { sedSha } from '../mcp/helpers';

let sb: Sandbox;
let pf: PlantedFloor;
before(() => {
  sb = sandbox({ fixtures: true, name: 'ext-sec' });
  pf = plantSessions(sb);
  record(sb);
  const r = brain(sb, ['rebuild']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

// The runner returns the rows as DuckDB gives them (no CLI in between), so only recall() masks.
const ctx = () => ({ home: sb.brain, env: sb.env, view: undefined as never, sql: (q: string, limit: number) => runReadOnlySql(sb.brain, q, { limit }) });

test('search, read_session and sql through the editor\'s recall path come back masked', { timeout: 120_000 }, async () => {
  const s = (await recall('search', { term: 'here is my key' }, ctx())) as unknown as { masked: number; hits: { session: string }[] };
  assertMasked(pf, sized(s), 'search');
  assert.ok(s.masked >= 1);
  const openai = byName(pf.keys, 'openai').secret;
  assert.ok(JSON.stringify(s).includes(`${openai.slice(0, 4)}…${openai.slice(-2)}`), 'the preview brain secrets shows');
  const r = (await recall('read_session', { session: s.hits[0].session }, ctx())) as unknown as { masked: number; turns: { citation: { lake_path: string; line_from: number; line_to: number; sha256: string } }[] };
  assertMasked(pf, JSON.stringify(r), 'read_session');
  assert.ok(r.masked > 0);
  for (const t of r.turns) {
    const c = t.citation;
    assert.equal(sedSha(path.join(sb.brain, c.lake_path), c.line_from, c.line_to), c.sha256, 'the citation is over the floor bytes');
  }
  const q = (await recall('sql', { query: "SELECT raw_line FROM floor.raw_lines WHERE raw_line LIKE '%tool_result%' OR raw_line LIKE '%function_call%' OR raw_line LIKE '%toolResult%' OR raw_line LIKE '%here is my key%' ORDER BY (raw_line LIKE '%here is my key%') DESC, length(raw_line)", limit: 500 }, ctx())) as unknown as { masked: number; rows: unknown[] };
  assert.ok(q.rows.length >= 6);
  // The cache holds the lines masked already (docs/bounds-and-masking.md): nothing planted comes
  // back, whether the answer's own pass masked anything more or not.
  assertMasked(pf, JSON.stringify(q), 'sql');
});
