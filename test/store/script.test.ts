// The store-side script and the rsync command line: run for real under sh against a folder, sized
// under the kernel's one-argument limit, and never carrying anything that deletes at the store.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_SCRIPT, parseChecks, storeScript } from '../../src/core/store/script';
import { excludeLine, extraRsyncArgs, pushCommand } from '../../src/core/store/rsync';
import type { Config } from '../../src/core/config';
import { sandbox, type Sandbox } from '../helpers/env';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('store-side script', () => {
  let sb: Sandbox;
  let store: string;
  before(() => {
    sb = sandbox({ name: 'script' });
    store = path.join(sb.dir, 'store');
    fs.mkdirSync(path.join(store, 'm', 'lake'), { recursive: true });
  });
  after(() => sb.cleanup());

  const run = (checks: Parameters<typeof storeScript>[2]) => {
    const script = storeScript({ path: store, ssh_mux_only: false }, 'm', checks, 'STAMP');
    const r = spawnSync('sh', ['-c', script, 'brain-sync', 'true'], { encoding: 'utf8' });
    return { code: r.status, ...parseChecks(r.stderr) };
  };

  it('classifies each store copy: ok, longer, short, missing, moved (kept), differs, unknown', () => {
    const good = 'line one\nline two\n';
    const files: Record<string, string> = { ok: good, longer: good + 'extra\n', short: 'line', moved: 'LINE one\nline two\n', differs: 'LINE one\nline two\n', unknown: good + 'more\n' };
    for (const [n, t] of Object.entries(files)) fs.writeFileSync(path.join(store, 'm', 'lake', `${n}.jsonl`), t);
    const c = (n: string, repair: boolean, localSize = good.length) => ({ rel: `lake/${n}.jsonl`, size: good.length, sha256: sha(good), localSize, repair });
    const r = run([c('ok', true), c('longer', true), c('short', true), c('missing', true), c('moved', true), c('differs', false), c('unknown', true, good.length + 10)]);
    const st = Object.fromEntries([...r.checks].map(([k, v]) => [k.replace(/^lake\/|\.jsonl$/g, ''), v.status]));
    assert.deepEqual(st, { ok: 'ok', longer: 'longer', short: 'short', missing: 'missing', moved: 'moved', differs: 'differs', unknown: 'unknown' });
    assert.equal(r.checks.get('lake/unknown.jsonl')!.size, good.length + 5, "reports the store copy's length");
    // Store copies not shown to be ours, of files about to be pushed: rsync must not run.
    assert.equal(r.code, 3);
    assert.ok(r.again);
    assert.ok(typeof r.freeKiB === 'number' && r.freeKiB > 0, 'reports free space at the store');
    assert.equal(fs.readFileSync(path.join(store, 'm', '.brain', 'replaced', 'STAMP', 'lake', 'moved.jsonl'), 'utf8'), files.moved, 'moved aside, not deleted');
    assert.ok(!fs.existsSync(path.join(store, 'm', 'lake', 'moved.jsonl')));
    assert.equal(fs.readFileSync(path.join(store, 'm', 'lake', 'differs.jsonl'), 'utf8'), files.differs, 'left untouched');
    for (const n of ['longer', 'short', 'unknown']) assert.equal(fs.readFileSync(path.join(store, 'm', 'lake', `${n}.jsonl`), 'utf8'), files[n], `${n} left untouched`);
    // Reporting only (files kept out of the push), or all shown to be ours: rsync runs.
    const r2 = run([c('ok', true), c('missing', true), c('moved', true), c('longer', false), c('short', false), c('differs', false), c('unknown', false, 99)]);
    assert.equal(r2.code, 0);
    assert.ok(!r2.again);
  });

  it('a guarded folder of new files stops the step only if it exists at the store', () => {
    fs.mkdirSync(path.join(store, 'm', 'lake', 'there'), { recursive: true });
    const r = run([{ dir: 'lake/absent' }]);
    assert.equal(r.code, 0);
    const r2 = run([{ dir: 'lake/absent' }, { dir: 'lake/there' }]);
    assert.equal(r2.code, 3);
    assert.deepEqual(r2.dirs, ['lake/there']);
  });

  it('refuses to create a store folder that is missing, and creates only <machine>/', () => {
    const script = storeScript({ path: path.join(sb.dir, 'nope'), ssh_mux_only: false }, 'm', [], 'S');
    const r = spawnSync('sh', ['-c', script, 'brain-sync', 'true'], { encoding: 'utf8' });
    assert.equal(r.status, 3);
    assert.equal(parseChecks(r.stderr).storeMissing, path.join(sb.dir, 'nope'));
    assert.ok(!fs.existsSync(path.join(sb.dir, 'nope')));
  });

  it('stays under the one-argument limit however many files changed', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ rel: `lake/cc/-some-project-folder-name/${i}-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl`, size: 10, sha256: sha(String(i)), localSize: 20, repair: true }));
    const script = storeScript({ path: store, ssh_mux_only: false }, 'm', many, 'S');
    assert.ok(script.length <= MAX_SCRIPT, `${script.length}`);
    assert.ok(script.includes(many[0].rel), 'first (most important) checks kept');
    assert.ok(!script.includes("'"), 'no single quote: it travels inside one');
  });

  it('skips names it cannot quote', () => {
    const script = storeScript({ path: store, ssh_mux_only: false }, 'm', [{ rel: 'lake/a"b$(x).jsonl', size: 1, sha256: sha('x'), localSize: 1, repair: true }], 'S');
    assert.ok(!script.includes('a"b'));
  });
});

describe('rsync command line', () => {
  const cfg: Config = { machine: 'm', machineFrom: 'config', rsync_path: '/usr/bin/rsync', interval: 600, file: 'x', store: { path: '/srv/b', host: 'box', ssh_mux_only: false } };

  it('appends and verifies, never deletes, one connection with the mkdir riding along', () => {
    const { cmd, args } = pushCommand({ cfg, env: {}, sources: ['/h/lake'], excludeFrom: "/h/x", items: [], stamp: 'S' });
    assert.equal(cmd, '/usr/bin/rsync');
    assert.ok(args.includes('-a') && args.includes('--append-verify'));
    assert.ok(!args.some((a) => /delete|remove-source/.test(a)));
    assert.ok(args.some((a) => a.startsWith('--rsync-path=sh -c ') && a.includes('mkdir -p "$P/$M/.brain"')));
    const e = args[args.indexOf('-e') + 1];
    assert.match(e, /BatchMode=yes/);
    assert.match(e, /ConnectTimeout=\d+/);
    assert.ok(args.some((a) => /^--timeout=\d+$/.test(a)));
    assert.equal(args[args.length - 1], 'box:/srv/b/m/');
  });

  it('BRAIN_RSYNC_ARGS may slow it down but never delete or rewrite', () => {
    assert.deepEqual(extraRsyncArgs({ BRAIN_RSYNC_ARGS: '--bwlimit=1m' }), ['--bwlimit=1m']);
    for (const bad of ['--delete', '--delete-after', '--inplace', '-c', '--checksum', '--remove-source-files', '-avI']) {
      assert.throws(() => extraRsyncArgs({ BRAIN_RSYNC_ARGS: bad }), /not allowed/, bad);
    }
  });

  it('exclude lines match one path exactly (real rsync)', () => {
    const sb = sandbox({ name: 'excl' });
    try {
      const src = path.join(sb.dir, 'src', 'lake', 'cc');
      fs.mkdirSync(src, { recursive: true });
      for (const n of ['a[1]*?.jsonl', 'a1x.jsonl', 'ab.jsonl', 'a[1]*?.jsonlx']) fs.writeFileSync(path.join(src, n), n);
      const excl = path.join(sb.dir, 'excl');
      fs.writeFileSync(excl, excludeLine('lake/cc/a[1]*?.jsonl') + '\n');
      const dst = path.join(sb.dir, 'dst');
      fs.mkdirSync(dst);
      const r = spawnSync('/usr/bin/rsync', ['-a', `--exclude-from=${excl}`, path.join(sb.dir, 'src', 'lake'), `${dst}/`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(fs.readdirSync(path.join(dst, 'lake', 'cc')).sort(), ['a1x.jsonl', 'a[1]*?.jsonlx', 'ab.jsonl']);
    } finally {
      sb.cleanup();
    }
  });
});
