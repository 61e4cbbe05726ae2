// Store copies holding bytes we never sent (a longer copy, another machine's tail, an interrupted
// sync of ours), against real rsync to a local folder and over a real sshd. rsync --append-verify
// would append to such a copy and then, its check failing, send ours whole over it: the store's
// bytes must instead survive in a moved-aside copy, be reported, and the live copy become ours.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Finding } from '../../../src/core/store/findings';
import { readState } from '../../../src/core/store/state';
import { runSync, type SyncOutcome } from '../../../src/core/store/sync';
import { listFiles } from '../../helpers/env';
import { appendToLake, chunkLines, lostFiles, snapshot } from './floor';
import { setupStore, type StoreSetup } from './harness';

function done(o: SyncOutcome) {
  assert.equal(o.kind, 'done', JSON.stringify(o));
  if (o.kind !== 'done') throw new Error('not done');
  return o.state;
}

/** The file a store-repaired finding says the store's copy was moved to. */
function movedTo(s: { mine: string }, f: Finding): string {
  const m = /moved aside(?: whole)? to (\.brain\/replaced\/\S+?) and ours/.exec(f.message);
  assert.ok(m, f.message);
  return path.join(s.mine, m[1]);
}

function replacedFiles(s: StoreSetup): string[] {
  return listFiles(path.join(s.mine, '.brain', 'replaced'));
}

/** A lake file the floor has never synced, with its manifest lines, as the capture writes them. */
function newLakeFile(home: string, lp: string, bytes: Buffer): void {
  fs.mkdirSync(path.dirname(path.join(home, lp)), { recursive: true });
  fs.writeFileSync(path.join(home, lp), bytes, { mode: 0o600 });
  const lines = chunkLines(lp, lp.split('/')[1] as 'cc', bytes);
  fs.appendFileSync(path.join(home, 'manifest', 'manifest.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
}

const line = (who: string, n: number) => `${JSON.stringify({ type: 'user', who, text: `${who} `.repeat(n) })}\n`;

for (const transport of ['local', 'ssh'] as const) {
  describe(`a store copy with bytes we never sent (${transport})`, () => {
    let s: StoreSetup;
    const ours = (lp: string) => fs.readFileSync(path.join(s.sb.brain, lp));
    const theirs = (lp: string) => fs.readFileSync(path.join(s.mine, lp));
    before(async () => {
      s = await setupStore(`longer-${transport}`, { ssh: transport === 'ssh' });
      assert.equal(done(await runSync(s.sb.brain, { env: s.env })).status, 'ok');
    });
    after(() => s.cleanup());

    it('longer than ours, then ours grows past it: moved aside whole, reported, and the live copy is ours', async () => {
      const lp = s.lakePaths[1];
      fs.appendFileSync(path.join(s.mine, lp), line('another machine with our name', 20));
      const old = theirs(lp);
      // Ours grows past the store's length, with bytes of its own, before any sync looks.
      appendToLake(s.sb.brain, lp, line('us', 400));
      assert.ok(ours(lp).length > old.length);
      const before = snapshot(s.store);
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.status, 'ok', st.message);
      assert.equal(st.warning, 'store copy repaired: 1 file');
      const f = st.findings.find((x) => x.code === 'store-repaired')!;
      assert.equal(f.path, lp);
      assert.match(f.message, new RegExp(`the store's copy \\(${old.length} bytes\\) held bytes that are not ours`));
      assert.ok(fs.readFileSync(movedTo(s, f)).equals(old), "the store's old bytes survive, whole, in the moved-aside copy");
      assert.ok(theirs(lp).equals(ours(lp)), "the store's live copy is ours");
      assert.deepEqual(lostFiles(before, snapshot(s.store)), []);
    });

    it('longer than ours: reported and left alone while ours is shorter, moved aside once ours is as long', async () => {
      const lp = s.lakePaths[2];
      fs.appendFileSync(path.join(s.mine, lp), line('a stranger', 30));
      const old = theirs(lp);
      const st = done(await runSync(s.sb.brain, { env: s.env, now: true }));
      assert.equal(st.warning, 'store copy longer than ours: 1 file');
      assert.equal(st.findings.find((x) => x.code === 'store-longer')!.path, lp);
      assert.ok(theirs(lp).equals(old), 'left alone');
      // Ours grows, but not yet to the store's length: still left alone.
      appendToLake(s.sb.brain, lp, line('u', 2));
      assert.ok(ours(lp).length < old.length);
      const st2 = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st2.warning, 'store copy longer than ours: 1 file');
      assert.ok(theirs(lp).equals(old), 'still left alone');
      // Past it, with other bytes: moved aside (kept whole) and ours sent, in that same sync.
      appendToLake(s.sb.brain, lp, line('us', 400));
      assert.ok(ours(lp).length > old.length);
      const st3 = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st3.warning, 'store copy repaired: 1 file', JSON.stringify(st3.findings));
      const f = st3.findings.find((x) => x.code === 'store-repaired')!;
      assert.equal(f.path, lp);
      assert.ok(fs.readFileSync(movedTo(s, f)).equals(old));
      assert.ok(theirs(lp).equals(ours(lp)));
      const st4 = done(await runSync(s.sb.brain, { env: s.env, now: true }));
      assert.equal(st4.warning, '', JSON.stringify(st4.findings));
    });

    it('longer than ours with bytes that turn out to be ours: appended to, nothing moved', async () => {
      const lp = s.lakePaths[3];
      const more = line('captured again', 10);
      // The store is ahead with exactly the bytes our capture appends next (a floor restored from
      // an older backup catching up with its origin).
      fs.appendFileSync(path.join(s.mine, lp), more);
      const moved = replacedFiles(s).length;
      assert.equal(done(await runSync(s.sb.brain, { env: s.env, now: true })).warning, 'store copy longer than ours: 1 file');
      appendToLake(s.sb.brain, lp, more + line('and then some', 5));
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.warning, '', JSON.stringify(st.findings));
      assert.equal(replacedFiles(s).length, moved, 'nothing moved aside');
      assert.ok(theirs(lp).equals(ours(lp)));
    });

    it('a new file of ours whose store copy is not ours: left alone while longer, moved aside once ours is as long', async () => {
      const lp = 'lake/cc/-new-project/fresh-session.jsonl';
      fs.mkdirSync(path.dirname(path.join(s.mine, lp)), { recursive: true });
      const old = Buffer.from(line('somebody else', 40) + line('somebody else', 40));
      fs.writeFileSync(path.join(s.mine, lp), old);
      newLakeFile(s.sb.brain, lp, Buffer.from(line('us', 3)));
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.warning, 'store copy longer than ours: 1 file', JSON.stringify(st.findings));
      assert.ok(theirs(lp).equals(old), 'left alone');
      appendToLake(s.sb.brain, lp, line('us', 600));
      assert.ok(ours(lp).length > old.length);
      const st2 = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st2.warning, 'store copy repaired: 1 file', JSON.stringify(st2.findings));
      const f = st2.findings.find((x) => x.code === 'store-repaired')!;
      assert.equal(f.path, lp);
      assert.ok(fs.readFileSync(movedTo(s, f)).equals(old));
      assert.ok(theirs(lp).equals(ours(lp)));
    });

    it("an interrupted sync's bytes (a prefix of ours past what was backed up): only the rest is sent, nothing moved", async () => {
      const lp = s.lakePaths[4];
      const sizeBefore = ours(lp).length;
      appendToLake(s.sb.brain, lp, line('long reply', 40_000));
      // What an rsync stopped half-way leaves: ours, up to somewhere past what the ledger vouches for.
      fs.appendFileSync(path.join(s.mine, lp), ours(lp).subarray(sizeBefore, sizeBefore + 150_000));
      const moved = replacedFiles(s).length;
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.warning, '', JSON.stringify(st.findings));
      assert.equal(replacedFiles(s).length, moved, 'nothing moved aside');
      assert.ok(theirs(lp).equals(ours(lp)));
      assert.ok(st.stats!.literal < ours(lp).length - sizeBefore - 100_000, `resumed, not re-sent: ${st.stats!.literal} literal bytes`);
      assert.equal(readState(s.sb.brain)!.warning, '');
    });
  });
}

describe('more new files than one store-side step can check', () => {
  it('keeps the files whose check does not fit out of the push, and checks them in the next round', async () => {
    const s = await setupStore('longer-many');
    s.env.BRAIN_SCRUB_FILES = '0';
    try {
      assert.equal(done(await runSync(s.sb.brain, { env: s.env })).status, 'ok');
      // A folder the store already has: its new files are checked by name, about 150 bytes each.
      const dir = path.posix.dirname(s.lakePaths[0]);
      const names = Array.from({ length: 900 }, (_, i) => `${dir}/${String(i).padStart(4, '0')}-${'n'.repeat(60)}.jsonl`);
      for (const lp of names) newLakeFile(s.sb.brain, lp, Buffer.from(line(lp.slice(-12), 2)));
      // The last of them (the last checked) already has a store copy that is not ours.
      const last = names[names.length - 1];
      appendToLake(s.sb.brain, last, line('us', 300));
      const old = Buffer.from(line('somebody else', 5));
      fs.writeFileSync(path.join(s.mine, last), old);
      const st = done(await runSync(s.sb.brain, { env: s.env }));
      assert.equal(st.status, 'ok', st.message);
      const f = st.findings.find((x) => x.code === 'store-repaired');
      assert.ok(f && f.path === last, JSON.stringify(st.findings));
      assert.ok(fs.readFileSync(movedTo(s, f)).equals(old));
      for (const lp of names) assert.ok(fs.readFileSync(path.join(s.mine, lp)).equals(fs.readFileSync(path.join(s.sb.brain, lp))), lp);
    } finally {
      await s.cleanup();
    }
  });
});
