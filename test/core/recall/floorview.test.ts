// The session list the editor's Sessions view draws (core/recall/floorview.ts), without an editor:
// this machine's sessions from its turn index or, without one, from its manifest; other machines'
// from a local store; each refresh says how much changed; a session reads with its turns.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FloorView } from '../../../src/core/recall/floorview';
import { readSession } from '../../../src/core/recall/read';
import { TestFloor, fixtureTranscripts } from '../index/floor';

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

const CC = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';

for (const index of ['live', 'off'] as const) {
  test(`floor view (${index === 'off' ? 'from the manifest' : 'from the turn index'}): this machine, a store's other machine, refresh and read`, () => {
    const dir = tmp('floorview');
    const home = path.join(dir, 'brain');
    const store = path.join(dir, 'store');
    try {
      const mine = new TestFloor(home);
      const fixtures = fixtureTranscripts();
      for (const x of fixtures.slice(0, -1)) mine.addFixture(x);
      const other = new TestFloor(path.join(store, 'otherbox'), 'otherbox');
      other.addFixture(fixtures.find((x) => x.includes(CC))!);
      fs.writeFileSync(path.join(home, 'config.toml'), `[store]\npath = ${JSON.stringify(store)}\n`, { mode: 0o600 });
      const env = { HOME: dir, BRAIN_HOME: home, BRAIN_MACHINE: 'testbox' };

      const v = new FloorView(home, env, { index });
      try {
        assert.equal(v.machine, 'testbox');
        assert.ok(v.refresh() > 0, 'the first refresh reads everything');
        const all = v.sessions();
        const here = all.filter((s) => s.machine === 'testbox');
        const there = all.filter((s) => s.machine === 'otherbox');
        assert.equal(there.length, 1);
        assert.equal(there[0].session, CC);
        assert.equal(there[0].root, path.join(store, 'otherbox'));
        assert.ok(here.length >= 4, `this machine's sessions: ${here.length}`);
        const cc = here.find((s) => s.session === CC)!;
        assert.equal(cc.lane, 'cc');
        assert.equal(cc.agentLabel, 'Claude Code');
        assert.equal(cc.root, home);
        assert.ok(cc.turns > 0 && cc.title.length > 0);
        assert.ok(cc.lakePath.startsWith('lake/cc/'));
        // One session shape: the list carries recall's SessionInfo, the same one read_session (and
        // search) gives for the session, from this machine's floor and from the store's.
        const keys = ['session', 'agent', 'lane', 'machine', 'project', 'repo', 'started', 'ended', 'turns', 'native_session', 'parent_session', 'subagent', 'title'];
        const pick = (s: object) => Object.fromEntries(keys.map((k) => [k, (s as Record<string, unknown>)[k]]));
        assert.deepEqual(pick(cc), pick(readSession({ session: CC }, env, { index }).session));
        assert.deepEqual(pick(there[0]), pick(readSession({ session: CC, store, machine: 'otherbox' }, env, { index: 'off' }).session));

        assert.equal(v.refresh(), 0, 'nothing changed, nothing reported');
        mine.addFixture(fixtures[fixtures.length - 1]);
        assert.ok(v.refresh() > 0, 'a new file on the floor is a change');
        assert.equal(v.sessions().filter((s) => s.machine === 'testbox').length, here.length + 1);

        const read = v.view(CC);
        assert.ok(read);
        assert.equal(read.info.session, CC);
        assert.ok(read.turns.length >= cc.turns, 'every turn the list counts, with its citation');
        assert.equal(read.turns[0].citation.lake_path, cc.lakePath);
        const remote = v.view(CC, 'otherbox');
        assert.ok(remote);
        assert.equal(remote.info.machine, 'otherbox');
        assert.equal(fs.existsSync(path.join(store, 'turns.sqlite')), false, 'reading the store writes no index into it');
      } finally {
        v.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
