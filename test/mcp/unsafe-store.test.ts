// `brain mcp --store` over a store whose manifest and lake lead outside it (a `..` lake_path, a
// symlinked lake file, a symlinked lake folder; see test/core/recall/unsafe-paths.test.ts): no
// tool answer carries the outside bytes, search lists each refused entry, and read_session, cite
// and verify_citation name the entry they refuse.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { hostileStore, PHRASE, type HostileStore } from '../helpers/hostile-store';
import { startMcp, type Mcp } from './helpers';

const SECRET = /zanzibar/i;
let sb: Sandbox;
let h: HostileStore;
let mcp: Mcp;

before(async () => {
  sb = sandbox({ fixtures: true, name: 'mcp-unsafe' });
  assert.equal(brain(sb, ['record']).status, 0);
  h = hostileStore(sb);
  mcp = await startMcp(sb.env, ['--store', h.store]);
});

after(async () => {
  await mcp?.close();
  sb?.cleanup();
});

/** A tool answer with the search term itself taken out (it is echoed back). */
const answer = (text: string) => text.split(JSON.stringify(PHRASE).slice(1, -1)).join('');

test('search lists the refused entries and returns none of their bytes', async () => {
  const r = await mcp.call('search', { term: PHRASE });
  assert.equal(r.isError, false, r.text);
  assert.doesNotMatch(answer(r.text).replace(/"term":"[^"]*"/, ''), SECRET);
  assert.deepEqual(r.json.hits, []);
  assert.deepEqual(
    r.json.refused.map((x: { lake_path: string }) => x.lake_path).sort(),
    h.entries.map((e) => e.lake_path).sort(),
  );
  const fine = await mcp.call('search', { term: 'user authentication' });
  assert.ok(fine.json.hits.length > 0 && fine.json.hits.every((x: { machine: string }) => x.machine === 'testbox'));
});

test('read_session, cite and verify_citation refuse each entry by name', async () => {
  for (const e of h.entries) {
    const r = await mcp.call('read_session', { session: e.session, machine: 'evil' });
    assert.equal(r.isError, true, `${e.session}: ${r.text.slice(0, 300)}`);
    assert.doesNotMatch(r.text, SECRET);
    assert.ok(r.text.includes(JSON.stringify(JSON.stringify(e.lake_path)).slice(1, -1)), r.text);
  }
  for (const e of h.entries.slice(1)) {
    const r = await mcp.call('cite', { machine: 'evil', lake_path: e.lake_path, line_from: 1, line_to: 2 });
    assert.equal(r.isError, true, r.text);
    assert.doesNotMatch(r.text, /sha256/);
    assert.match(r.text, /symlink\b.*refused/);
  }
  // A `..` in an argument is the caller's error, refused before any file is looked at.
  await assert.rejects(mcp.call('cite', { machine: 'evil', lake_path: h.entries[0].lake_path, line_from: 1, line_to: 2 }), /"\.\." segment/);
  const bytes = fs.readFileSync(h.outside[2]);
  const end = bytes.indexOf(10) + 1;
  const citation = { machine: 'evil', lake_path: h.entries[2].lake_path, gen: 1, line_from: 1, line_to: 1, byte_from: 0, byte_to: end, sha256: createHash('sha256').update(bytes.subarray(0, end)).digest('hex') };
  const v = await mcp.call('verify_citation', { citation });
  assert.equal(v.isError, false, v.text);
  assert.equal(v.json.ok, false);
  assert.match(v.json.problem, /passes through a symlink \(lake\/cc\/dirlink\)/);
});
