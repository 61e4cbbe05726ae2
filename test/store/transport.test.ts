// The StoreTransport contract (src/core/store/transport.ts), one suite run against both
// implementations: a local folder, and host:path over the real sshd of test/helpers/sshd.ts. Each
// method's answer, and the failure each one names for a missing store folder and, over ssh, for a
// host that does not answer. Nothing here knows which implementation it talks to.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readConfig, type Config } from '../../src/core/config';
import { ensureFloorId, manifestHead } from '../../src/core/store/floorid';
import { openTransport, withRetry, type PushRequest, type StoreTransport } from '../../src/core/store/transport';
import { setupStore, type StoreSetup } from './harness';

function configOf(s: StoreSetup): Config {
  const r = readConfig(s.sb.brain, s.env);
  if (r.kind !== 'ok') throw new Error(`config: ${r.kind}`);
  return r.config;
}

function withStore(cfg: Config, change: Partial<NonNullable<Config['store']>>): Config {
  return { ...cfg, store: { ...cfg.store!, ...change } };
}

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function pushRequest(s: StoreSetup, lake: string, stamp: string): PushRequest {
  const home = s.sb.brain;
  const excludeFrom = path.join(s.sb.dir, `excludes-${stamp}`);
  fs.writeFileSync(excludeFrom, '.tmp-*\n');
  const bytes = fs.readFileSync(path.join(home, lake));
  return {
    sources: ['lake', 'manifest', 'meta'].map((d) => path.join(home, d)).filter((d) => fs.existsSync(d)),
    excludeFrom,
    // One check of a file the store does not have yet: the store-side step must report it.
    items: [{ rel: lake, size: 0, sha256: sha(Buffer.alloc(0)), localSize: bytes.length, repair: false }],
    stamp,
    owner: { id: ensureFloorId(home), head: manifestHead(home), adopt: false },
  };
}

for (const kind of ['local', 'ssh'] as const) {
  describe(`StoreTransport contract: ${kind}`, () => {
    let s: StoreSetup;
    let cfg: Config;
    let t: StoreTransport;
    let lake: string;
    before(async () => {
      s = await setupStore(`transport-${kind}`, { ssh: kind === 'ssh' });
      cfg = configOf(s);
      t = openTransport(cfg, s.env);
      lake = s.lakePaths[0];
    });
    after(() => s.cleanup());

    it('names the store in its label and is ready to connect', async () => {
      assert.equal(t.label, kind === 'ssh' ? `${cfg.store!.host}:${s.store}` : s.store);
      assert.equal(await t.ready(), true);
    });

    it('push runs the store-side step, then rsync: its checks come back and the floor arrives', async () => {
      const run = await t.push(pushRequest(s, lake, 'S1'));
      assert.equal(run.failure, undefined, JSON.stringify(run.failure));
      assert.equal(run.code, 0);
      assert.deepEqual(run.checks.get(lake), { status: 'missing', size: 0 });
      assert.equal(run.owned, 'new');
      for (const lp of s.lakePaths) assert.ok(fs.readFileSync(path.join(s.sb.brain, lp)).equals(fs.readFileSync(path.join(s.mine, lp))), lp);
      assert.ok(run.transferred.includes(lake), run.stdout);
    });

    it('list gives every entry under the store root with its size', async () => {
      const r = await t.list();
      assert.ok(r.ok, JSON.stringify(r));
      const byRel = new Map(r.value.map((e) => [e.rel, e]));
      assert.equal(byRel.get('testbox')?.isDir, true);
      const e = byRel.get(`testbox/${lake}`);
      assert.ok(e && !e.isDir, `testbox/${lake} listed`);
      assert.equal(e.size, fs.statSync(path.join(s.sb.brain, lake)).size);
      assert.ok(e.mtime > 0);
    });

    it('readFile gives a file\'s text, and null for a file that is not there', async () => {
      const id = await t.readFile('testbox/.brain/floor-id');
      assert.ok(id.ok, JSON.stringify(id));
      assert.equal(id.value?.trim(), ensureFloorId(s.sb.brain));
      const none = await t.readFile('testbox/.brain/no-such-file');
      assert.deepEqual(none, { ok: true, value: null });
    });

    it('fetch copies the named files of this machine\'s folder; one not there is left out', async () => {
      const into = fs.mkdtempSync(path.join(s.sb.dir, 'fetch-'));
      const r = await t.fetch([lake, 'lake/not/there.jsonl'], into);
      assert.ok(r.ok, JSON.stringify(r));
      assert.ok(fs.readFileSync(path.join(into, lake)).equals(fs.readFileSync(path.join(s.sb.brain, lake))));
      assert.equal(fs.existsSync(path.join(into, 'lake/not/there.jsonl')), false);
    });

    it('a missing store folder is named by every method, and nothing is created', async () => {
      const gone = path.join(s.sb.dir, 'unmounted-disk');
      const m = openTransport(withStore(cfg, { path: gone }), s.env);
      const l = await m.list();
      assert.equal(l.ok ? 'ok' : l.failure.label, 'store folder missing');
      const rf = await m.readFile('testbox/.brain/floor-id');
      assert.equal(rf.ok ? 'ok' : rf.failure.label, 'store folder missing');
      const into = fs.mkdtempSync(path.join(s.sb.dir, 'fetch-'));
      const f = await m.fetch([lake], into);
      assert.equal(f.ok ? 'ok' : f.failure.label, 'store folder missing');
      const run = await m.push(pushRequest(s, lake, 'S2'));
      assert.equal(run.failure?.label, 'store folder missing');
      assert.match(run.failure!.message, /unmounted-disk/);
      assert.equal(fs.existsSync(gone), false);
    });

    it('withRetry pushes again while the policy says so; the replaced try is kept in earlier', async () => {
      const gone = path.join(s.sb.dir, 'late-disk');
      let asked = 0;
      const r = withRetry(openTransport(withStore(cfg, { path: gone }), s.env), {
        retries: 1,
        delayMs: 0,
        retryable: (run) => {
          asked++;
          // The disk comes back between the tries.
          if (run.failure?.label === 'store folder missing') fs.mkdirSync(gone);
          return !!run.failure;
        },
      });
      const run = await r.push(pushRequest(s, lake, 'S3'));
      assert.equal(run.failure, undefined, JSON.stringify(run.failure));
      assert.equal(run.earlier?.length, 1);
      assert.equal(run.earlier![0].failure?.label, 'store folder missing');
      assert.equal(asked, 1, 'a run that worked is not offered for retry');
      assert.ok(fs.existsSync(path.join(gone, 'testbox', lake)));
    });

    if (kind === 'ssh') {
      it('ssh_mux_only without a master is not ready', async () => {
        assert.equal(await openTransport(withStore(cfg, { ssh_mux_only: true }), s.env).ready(), false);
      });

      it('a host that does not answer is named as unreachable by every method', async () => {
        await s.sshd!.stop();
        try {
          const l = await t.list();
          assert.equal(l.ok ? 'ok' : l.failure.label, 'store unreachable');
          const rf = await t.readFile('testbox/.brain/floor-id');
          assert.equal(rf.ok ? 'ok' : rf.failure.label, 'store unreachable');
          const into = fs.mkdtempSync(path.join(s.sb.dir, 'fetch-'));
          const f = await t.fetch([lake], into);
          assert.equal(f.ok ? 'ok' : f.failure.label, 'store unreachable');
          const run = await t.push(pushRequest(s, lake, 'S4'));
          assert.equal(run.failure?.label, 'store unreachable');
          assert.match(run.failure!.message, /brainstore/);
        } finally {
          await s.sshd!.start();
        }
      });
    }
  });
}
