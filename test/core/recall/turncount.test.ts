// One count per thing: a turn is a user prompt or one assistant reply (README), and show, stats, the
// Sessions tree and the turn index all give the same number for every fixture session of every
// agent. The expected count comes from show's own entries, counted here by role.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { capturedSandbox } from '../cache/helpers';
import type { Sandbox } from '../../helpers/env';
import { updateCache } from '../../../src/core/cache';
import { openIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { readSession } from '../../../src/core/recall';
import { FloorView } from '../../../src/core/recall/floorview';

let sb: Sandbox;
before(async () => {
  sb = await capturedSandbox('turncount');
  await updateCache(sb.brain, {});
});
after(() => sb.cleanup());

interface Row {
  lane: string;
  session: string;
  index: number;
}

function indexed(): Row[] {
  const o = openIndex(homeRoot(sb.env, sb.brain));
  assert.ok(o.ok);
  try {
    o.index.update();
    return o.index.sessions().map((s) => ({ lane: s.lane, session: s.session, index: s.turns }));
  } finally {
    o.index.close();
  }
}

test('show, the Sessions tree, stats and the turn index count the same turns for every fixture session', async () => {
  const rows = indexed();
  const lanes = new Set(rows.map((r) => r.lane));
  for (const l of ['cc', 'codex', 'pi', 'cursor', 'gemini', 'copilot']) assert.ok(lanes.has(l), `fixtures of ${l} are on the floor`);
  // An id two agents share cannot be named to show alone; the rest is every session.
  const shared = new Set(rows.filter((r) => rows.filter((x) => x.session === r.session).length > 1).map((r) => r.session));
  const expected = new Map<string, number>();
  for (const r of rows) {
    if (shared.has(r.session)) continue;
    for (const index of ['live', 'off'] as const) {
      let shown;
      try {
        shown = readSession({ session: r.session, machine: 'testbox' }, sb.env, { index });
      } catch (e) {
        if (/not a transcript/.test(String(e))) continue; // a non-session file in an agent's folder
        throw e;
      }
      const said = shown.turns.filter((t) => t.role === 'user' || t.role === 'assistant').length;
      assert.equal(shown.session.turns, said, `${r.lane}/${r.session}: show's header counts the turns it lists (index ${index})`);
      assert.equal(r.index, said, `${r.lane}/${r.session}: the turn index counts what show lists`);
      expected.set(`${r.lane}/${r.session}`, said);
    }
  }
  assert.ok(expected.size >= 30, `sessions compared: ${expected.size}`);

  for (const index of ['live', 'off'] as const) {
    const v = new FloorView(sb.brain, sb.env, { index });
    try {
      v.refresh();
      const tree = new Map(v.sessions().map((s) => [`${s.lane}/${s.session}`, s.turns]));
      for (const [k, n] of expected) assert.equal(tree.get(k), n, `${k}: the Sessions tree (index ${index})`);
    } finally {
      v.close();
    }
  }

  // stats counts a main conversation's turns only (no sub-agent's: truth.ts); that it equals the
  // sum of show's, per agent, is agreement.test.ts's.
});
