// The Sessions view's other machines at an ssh store: asked of the store host (a real sshd), kept
// in a cache file shown at once after a restart, asked again after the other machine syncs, and a
// session of the other machine read through the store. Out of reach: the list kept, the reason said.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StoreSessions } from '../../../src/extension/worker/storesessions';
import { FIXTURES } from '../../helpers/env';
import { BETA_SESSION, PHRASE, twoMachines, type TwoMachines } from '../../core/remote/machines';

let t: TwoMachines;
before(async () => {
  t = await twoMachines('far-sessions', { ssh: true });
});
after(() => t.cleanup());

test("an ssh store's other machines: listed, cached, refreshed after their sync, read", async () => {
  const changes: number[] = [];
  const far = new StoreSessions(t.a.brain, t.a.env, (n) => changes.push(n));
  assert.deepEqual(far.sessions(), [], 'nothing before the store answered');
  assert.ok((await far.refresh(true)) > 0, far.problem ?? '');
  const list = far.sessions();
  assert.ok(list.length > 0);
  assert.ok(list.every((s) => s.machine === 'beta'), 'this machine is listed from its own floor, not the store');
  const s = list.find((x) => x.session === BETA_SESSION);
  assert.ok(s, JSON.stringify(list.map((x) => x.session)));
  assert.match(s.root, /^brainstore:\/.*\/store\/beta$/);
  assert.ok(s.title.length > 0 && s.lines > 0 && s.bytes > 0);
  assert.deepEqual(changes, [list.length]);

  // A restart shows the cached list before the store answers.
  assert.deepEqual(new StoreSessions(t.a.brain, t.a.env).sessions(), list);

  const v = await far.view(BETA_SESSION, 'beta');
  assert.ok(v);
  assert.equal(v.info.machine, 'beta');
  assert.ok(v.turns.some((x) => x.text.includes(PHRASE)));

  // The other machine records one more session and syncs: the next ask lists it.
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'));
  fs.writeFileSync(path.join(t.b.home, '.claude', 'projects', '-srv-beta-work', 'b37a0000-0000-4000-8000-0000000second.jsonl'), src);
  assert.equal(t.runB(['record']).status, 0);
  assert.equal(t.runB(['sync', '--now']).status, 0);
  assert.ok((await far.refresh(true)) >= 1);
  assert.ok(far.sessions().some((x) => x.session === 'b37a0000-0000-4000-8000-0000000second'));

  // Out of reach: the list stays, the reason is said.
  await t.sshd!.stop();
  const n = far.sessions().length;
  assert.equal(await far.refresh(true), 0);
  assert.match(far.problem ?? '', /cannot reach|store unreachable/);
  assert.equal(far.sessions().length, n);
});
