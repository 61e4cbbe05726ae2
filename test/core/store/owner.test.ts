// Two floors under one machine name (the default name is the host name) must not share
// <store>/<machine>/: the second is refused, with a label and the fix, before anything of the
// first's is touched. A folder written before floors had ids goes to the floor whose manifest
// matches; `brain sync --adopt` takes a folder over explicitly. Local store and real sshd.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFloorId } from '../../../src/core/store/floorid';
import { readState } from '../../../src/core/store/state';
import { runSync, type SyncOutcome } from '../../../src/core/store/sync';
import { brain, listFiles } from '../../helpers/env';
import { bigSession, fixtureFiles, localStoreConfig, makeFloor, snapshot, sshStoreConfig, writeConfig } from './floor';
import { setupStore, type StoreSetup } from './harness';

function done(o: SyncOutcome) {
  assert.equal(o.kind, 'done', JSON.stringify(o));
  if (o.kind !== 'done') throw new Error('not done');
  return o.state;
}

/** Every file with its bytes and mtime, and every folder: "untouched" means all of it is equal. */
function exactly(dir: string): string {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const abs = path.join(d, e.name);
      const r = `${rel}/${e.name}`;
      const st = fs.statSync(abs);
      if (e.isDirectory()) {
        out.push(`${r}/ ${(st.mode & 0o777).toString(8)}`);
        walk(abs, r);
      } else out.push(`${r} ${st.size} ${st.mtimeMs} ${createHash('sha256').update(fs.readFileSync(abs)).digest('hex')}`);
    }
  };
  walk(dir, '');
  return out.join('\n');
}

for (const transport of ['local', 'ssh'] as const) {
  describe(`two floors under one machine name (${transport})`, () => {
    let s: StoreSetup;
    let other: string;
    let envOther: NodeJS.ProcessEnv;
    before(async () => {
      s = await setupStore(`owner-${transport}`, { ssh: transport === 'ssh' });
      assert.equal(done(await runSync(s.sb.brain, { env: s.env })).status, 'ok');
      // Another machine whose host name is the same: a floor of its own, the same machine name.
      other = path.join(s.sb.dir, 'other-brain');
      makeFloor(other, [{ lane: 'pi', rel: 'other/session.jsonl', bytes: bigSession(20_000) }, ...fixtureFiles(4)]);
      writeConfig(other, transport === 'ssh' ? sshStoreConfig(s.sshd!.host, s.store) : localStoreConfig(s.store));
      envOther = { ...s.env, BRAIN_HOME: other };
    });
    after(() => s.cleanup());

    it('the first floor to sync records itself as the owner', () => {
      const id = readFloorId(s.sb.brain);
      assert.match(id ?? '', /^[0-9a-f]{32}$/);
      assert.equal(fs.readFileSync(path.join(s.mine, '.brain', 'floor-id'), 'utf8').trim(), id);
    });

    it('the second is refused: non-zero exit, the label in state.json, the fix said, nothing of the first touched', () => {
      const untouched = exactly(s.mine);
      const r = brain(s.sb, ['sync'], { env: envOther });
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /warning: backup failing: machine name taken/);
      assert.match(r.stdout, /machine = "testbox-2"/);
      assert.match(r.stdout, /brain sync --adopt/);
      const st = readState(other)!;
      assert.equal(st.status, 'failed');
      assert.equal(st.warning, 'backup failing: machine name taken');
      assert.match(st.message, /holds the backup of another floor \(floor id [0-9a-f]{8}…\)/);
      assert.equal(exactly(s.mine), untouched, "nothing of the first floor's was touched");
      // Status and doctor say it too.
      const j = JSON.parse(brain(s.sb, ['status', '--local', '--json'], { env: envOther }).stdout);
      assert.equal(j.warning, 'backup failing: machine name taken');
      type Check = { name: string; level: string; detail: string; fix?: string };
      const d = JSON.parse(brain(s.sb, ['doctor', '--json'], { env: envOther }).stdout) as { checks: Check[] };
      assert.ok(d.checks.some((c) => c.name === 'warning' && c.detail.startsWith('backup failing: machine name taken')));
      const own = d.checks.find((c) => c.name === 'machine name')!;
      assert.equal(own.level, 'fail');
      assert.match(own.fix ?? '', /brain sync --adopt/);
      const mine = (JSON.parse(brain(s.sb, ['doctor', '--json'], { env: s.env }).stdout) as { checks: Check[] }).checks.find((c) => c.name === 'machine name')!;
      assert.equal(mine.level, 'ok', mine.detail);
    });

    it('a folder written before floors had ids is taken over by the floor whose manifest matches, and refused to another', async () => {
      fs.rmSync(path.join(s.mine, '.brain', 'floor-id'));
      const untouched = exactly(s.mine);
      const st = done(await runSync(other, { env: envOther, now: true }));
      assert.equal(st.warning, 'backup failing: machine name taken');
      assert.match(st.message, /written before floors had ids/);
      assert.equal(exactly(s.mine), untouched);
      const mine = done(await runSync(s.sb.brain, { env: s.env, now: true }));
      assert.equal(mine.status, 'ok', mine.message);
      assert.match(mine.message, /recorded as this floor's/);
      assert.equal(fs.readFileSync(path.join(s.mine, '.brain', 'floor-id'), 'utf8').trim(), readFloorId(s.sb.brain));
    });

    it('--adopt takes the folder over (the same machine set up again), keeping the old id and every byte', () => {
      const before = snapshot(s.mine);
      const r = brain(s.sb, ['sync', '--adopt'], { env: envOther });
      assert.ok(r.status === 0 || r.status === 1, r.stdout + r.stderr);
      const st = readState(other)!;
      assert.equal(st.status, 'ok', st.message);
      assert.match(st.message, /taken over by this floor/);
      assert.equal(fs.readFileSync(path.join(s.mine, '.brain', 'floor-id'), 'utf8').trim(), readFloorId(other));
      const kept = listFiles(path.join(s.mine, '.brain', 'replaced')).filter((f) => f.endsWith('.brain/floor-id'));
      assert.equal(kept.length, 1);
      assert.equal(fs.readFileSync(path.join(s.mine, '.brain', 'replaced', kept[0]), 'utf8').trim(), readFloorId(s.sb.brain));
      // Every byte the first floor had there is still there, in place or moved aside.
      const now = new Set([...snapshot(s.mine).values()].map((v) => v.sha));
      for (const [f, v] of before) if (f !== '.brain/floor-id') assert.ok(now.has(v.sha), `${f} kept`);
      // And now the first floor is the one refused.
      const r2 = brain(s.sb, ['sync', '--now'], { env: s.env });
      assert.equal(r2.status, 1);
      assert.equal(readState(s.sb.brain)!.warning, 'backup failing: machine name taken');
    });
  });
}
