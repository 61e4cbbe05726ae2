// Red team: one bad machine folder in the store must not hide every other machine. Each machine's
// manifest is read under its own budget (bytes, lines, lake files named, time); a folder over it is
// left out and named, and the others answer: search through the store's turn index and with
// --scan, and `show`. The cases: a manifest that is a folder, a 600 MB manifest with no newline (a
// line that long is not held, nor joined block by block), a manifest naming 250,000 lake files
// that are not there (which must not fill the store's turns.sqlite), and a manifest symlinked to
// /dev/zero (not followed: the search must not read it at all). Over a local store folder and over
// ssh, where the store host does the reading.
import { test, before, after, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BETA_SESSION, PHRASE, twoMachines, type TwoMachines } from '../core/remote/machines';

const BAD = ['mandir', 'manlong', 'manmany', 'manzero'];

function plant(store: string): void {
  const man = (m: string) => {
    const dir = path.join(store, m, 'manifest');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(path.join(store, m, 'lake'), { recursive: true });
    return path.join(dir, 'manifest.jsonl');
  };
  fs.mkdirSync(man('mandir'));
  // 600 MB and not one newline (a sparse file: its bytes are zeros).
  const long = fs.openSync(man('manlong'), 'w');
  fs.ftruncateSync(long, 600 << 20);
  fs.closeSync(long);
  // 250,000 valid manifest lines, each naming its own lake file, none of which exists.
  const fd = fs.openSync(man('manmany'), 'w');
  const line = (i: number) => `${JSON.stringify({ v: 1, lane: 'cc', agent: 'claude-code', session: `s${i}`, gen: 1, byte_from: 0, byte_to: 10, line_from: 1, line_to: 1, chunk_sha256: '0'.repeat(64), captured_at: '2026-01-01T00:00:00.000Z', event_ts_first: null, machine_id: 'manmany', origin_path: `/x/${i}.jsonl`, source: 'record', lake_path: `lake/cc/p/${i}.jsonl` })}\n`;
  let buf = '';
  for (let i = 0; i < 250_000; i++) {
    buf += line(i);
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
  fs.symlinkSync('/dev/zero', man('manzero'));
}

for (const ssh of [false, true]) {
  describe(`a machine folder over its budget, ${ssh ? 'ssh store' : 'local store folder'}`, () => {
    let t: TwoMachines;
    before(async () => {
      t = await twoMachines(ssh ? 'rt-budget-ssh' : 'rt-budget', { ssh });
      plant(t.store);
    });
    after(async () => t?.cleanup());

    for (const scan of [false, true]) {
      test(`search${scan ? ' --scan' : ''}: beta answers; each bad folder is named, none is read whole`, { timeout: 300_000 }, () => {
        const started = Date.now();
        const r = t.runA(['search', PHRASE, '--json', ...(scan ? ['--scan'] : [])], { BRAIN_STORE_TIMEOUT: '240' });
        assert.notEqual(r.status, null, `brain search hung (killed by ${r.signal})`);
        assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
        const j = JSON.parse(r.stdout);
        assert.equal(j.store.searched, true, j.header);
        assert.ok(
          j.hits.some((h: { machine: string }) => h.machine === 'beta'),
          `beta's session found: ${j.header}`,
        );
        const refused = j.refused as { machine: string; lake_path: string; problem: string }[];
        for (const m of BAD) assert.ok(refused.some((f) => f.machine === m && f.lake_path === 'manifest/manifest.jsonl'), `${m} named: ${JSON.stringify(refused)}`);
        assert.ok(refused.some((f) => f.machine === 'manmany' && /names more than 200000 lake files/.test(f.problem)), JSON.stringify(refused));
        assert.ok(refused.some((f) => f.machine === 'manzero' && /symlink/.test(f.problem)), JSON.stringify(refused));
        assert.ok(refused.some((f) => f.machine === 'manlong' && /without a newline/.test(f.problem)), JSON.stringify(refused));
        console.log(`search${scan ? ' --scan' : ''} over the store with the bad folders: ${Date.now() - started} ms`);
        if (!scan) {
          const idx = fs.statSync(path.join(t.store, 'turns.sqlite'), { throwIfNoEntry: false });
          assert.ok(!idx || idx.size < 32 << 20, `the store's turns.sqlite is ${idx?.size} bytes`);
        }
      });
    }

    test("show of beta's session still works beside them", () => {
      const ok = t.runA(['show', BETA_SESSION, '--machine', 'beta']);
      assert.equal(ok.status, 0, ok.stderr);
      assert.ok(ok.stdout.includes(PHRASE));
    });
  });
}
