// Red team: masking an SQL answer after the fact does not hold, since SQL can transform a key into
// a form no answer mask recognises: reverse(text), replace(text, 'sk-', 's k-'), to_base64(...),
// a key spelled out character by character. The cache stores its text masked, so whatever the
// query does, it has no secret to work on. Each answer is turned back here (reversed, replaced
// back, decoded) and must hold no planted key nor any 10-character piece of one; through the CLI
// and through the MCP sql tool.
// The floor itself still holds them: citations and verify check against its bytes.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';
import { startMcp } from '../mcp/helpers';

let sb: Sandbox;
let pf: PlantedFloor;
before(() => {
  sb = sandbox({ fixtures: true, name: 'rt-sql-mask' });
  pf = plantSessions(sb);
  record(sb);
  const r = brain(sb, ['rebuild']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb?.cleanup());

const rows = (stdout: string) => (JSON.parse(stdout) as { rows: unknown[][] }).rows.map((r) => String(r[0] ?? ''));

const CASES: { q: string; back: (s: string) => string }[] = [
  { q: 'SELECT reverse(raw_line) FROM floor.raw_lines', back: (s) => [...s].reverse().join('') },
  { q: 'SELECT reverse(text) FROM derived.messages WHERE text IS NOT NULL', back: (s) => [...s].reverse().join('') },
  { q: "SELECT replace(replace(raw_line, 'sk-', 's k-'), 'AKIA', 'A KIA') FROM floor.raw_lines", back: (s) => s.replaceAll('s k-', 'sk-').replaceAll('A KIA', 'AKIA') },
  { q: 'SELECT to_base64(encode(raw_line)) FROM floor.raw_lines', back: (s) => Buffer.from(s, 'base64').toString('utf8') },
  { q: "SELECT array_to_string(string_split(raw_line, ''), ' ') FROM floor.raw_lines", back: (s) => s.replace(/ (?=\S)/g, '').replace(/ {2}/g, ' ') },
  { q: 'SELECT upper(raw_line) FROM floor.raw_lines', back: (s) => s },
];

test('brain sql: no transform of the cache gives a planted key back', { timeout: 300_000 }, () => {
  for (const c of CASES) {
    const r = brain(sb, ['sql', '--json', '--limit', '100000', '--max-bytes', '512m', c.q], { timeout: 120_000 });
    assert.equal(r.status, 0, `${c.q}: ${r.stderr}`);
    const back = rows(r.stdout).map(c.back).join('\n');
    assertMasked(pf, back, c.q);
    if (c.q.startsWith('SELECT upper')) {
      for (const k of pf.keys) assert.ok(!back.includes(k.secret.toUpperCase()), `${c.q}: ${k.name} upper-cased`);
    }
  }
});

test('the MCP sql tool: the same transforms give nothing back', { timeout: 300_000 }, async () => {
  const mcp = await startMcp(sb.env);
  try {
    for (const c of CASES) {
      const r = await mcp.call('sql', { query: c.q, limit: 500 });
      assert.equal(r.isError, false, r.text.slice(0, 300));
      const back = (r.json.rows as Record<string, unknown>[]).map((row) => c.back(String(Object.values(row)[0] ?? ''))).join('\n');
      assertMasked(pf, back, `mcp ${c.q}`);
    }
  } finally {
    await mcp.close();
  }
});

test('the floor keeps the keys and its citations check: verify is clean', () => {
  const v = brain(sb, ['verify', '--json']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  const sha = brain(sb, ['sql', '--json', 'SELECT count(*) FROM floor.raw_lines WHERE line_sha256 <> sha256(raw_line)']);
  assert.equal(sha.status, 0, sha.stderr);
  assert.ok(Number(rows(sha.stdout)[0]) > 0, 'masked lines keep the floor\'s own hash beside their masked text');
});
