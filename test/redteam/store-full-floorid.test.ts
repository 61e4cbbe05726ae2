// Red team: the store's disk is full at a machine's first sync. The claim on <store>/<machine>/
// (.brain/floor-id) was created but could not be written, and the empty id then read as another
// floor's: once space was freed every sync failed with "machine name taken", and doctor said the
// name was fine. A real full filesystem (a 32 MiB tmpfs, filled up) is the store here: the first sync
// must fail as a full store disk, the next one after space is freed must succeed, and an empty or
// cut-short id (what an older brain left) is finished by the sync and named by doctor. Mounting
// needs root, which CI has.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { localStoreConfig, writeConfig } from '../core/store/floor';
import { requireRsync } from '../core/store/harness';

const root = process.getuid?.() === 0;
const skip = root ? false : 'needs root to mount a tmpfs';
let sb: Sandbox;
let mnt: string;
let mounted = false;

function fill(dir: string): string {
  const f = path.join(dir, 'filler');
  const fd = fs.openSync(f, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  return f;
}

function sync(): { status: number | null; out: string; j: { state?: { warning?: string } } | null } {
  const r = brain(sb, ['sync', '--now', '--json']);
  let j = null;
  try {
    j = JSON.parse(r.stdout);
  } catch {
    /* said below */
  }
  return { status: r.status, out: r.stdout + r.stderr, j };
}

function doctorCheck(): { level: string; detail: string } {
  const d = brain(sb, ['doctor', '--offline', '--json']);
  const c = (JSON.parse(d.stdout).checks as { name: string; level: string; detail: string }[]).find((x) => x.name === 'machine name');
  assert.ok(c, d.stdout);
  return c;
}

before(() => {
  if (!root) return;
  requireRsync();
  sb = sandbox({ fixtures: true, name: 'rt-store-full' });
  mnt = path.join(sb.dir, 'store');
  fs.mkdirSync(mnt);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mnt], { encoding: 'utf8' });
  assert.equal(r.status, 0, `mount: ${r.stderr}`);
  mounted = true;
  writeConfig(sb.brain, localStoreConfig(mnt).replace('rsync_path', 'machine = "fullbox"\nrsync_path'));
  sb.env.BRAIN_MACHINE = 'fullbox';
  const rec = brain(sb, ['record']);
  assert.equal(rec.status, 0, rec.stderr);
});

after(() => {
  if (mounted) spawnSync('umount', [mnt]);
  sb?.cleanup();
});

test('a first sync onto a full store disk: "store disk full", then the sync after space is freed works', { skip }, () => {
  const filler = fill(mnt);
  const first = sync();
  assert.notEqual(first.status, 0, first.out);
  assert.match(first.j?.state?.warning ?? '', /store disk full/, first.out);
  const id = path.join(mnt, 'fullbox', '.brain', 'floor-id');
  if (fs.existsSync(id)) assert.match(fs.readFileSync(id, 'utf8'), /^[0-9a-f]{32}\n$/, 'an id at the store is whole or absent');
  assert.notEqual(doctorCheck().level, 'fail', 'doctor does not call the name taken');
  fs.rmSync(filler);
  const second = sync();
  assert.equal(second.status, 0, second.out);
  assert.equal(fs.readFileSync(id, 'utf8').trim(), fs.readFileSync(path.join(sb.brain, 'floor-id'), 'utf8').trim());
  assert.equal(doctorCheck().level, 'ok');
});

for (const [what, text] of [
  ['empty', ''],
  ['cut short', 'a3f9'],
] as const) {
  test(`an ${what} id at the store (left by an older brain) is finished by the next sync; doctor names it`, { skip }, () => {
    const other = sandbox({ fixtures: true, name: 'rt-store-torn' });
    try {
      writeConfig(other.brain, localStoreConfig(mnt).replace('rsync_path', `machine = "torn${text.length}"\nrsync_path`));
      other.env.BRAIN_MACHINE = `torn${text.length}`;
      assert.equal(brain(other, ['record']).status, 0);
      const id = path.join(mnt, `torn${text.length}`, '.brain', 'floor-id');
      fs.mkdirSync(path.dirname(id), { recursive: true });
      fs.writeFileSync(id, text);
      const d = brain(other, ['doctor', '--offline', '--json']);
      const c = (JSON.parse(d.stdout).checks as { name: string; level: string; detail: string }[]).find((x) => x.name === 'machine name')!;
      if (text) {
        assert.equal(c.level, 'warn', c.detail);
        assert.match(c.detail, /unfinished/);
      } else assert.equal(c.level, 'ok', c.detail);
      const r = brain(other, ['sync', '--now']);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.equal(fs.readFileSync(id, 'utf8').trim(), fs.readFileSync(path.join(other.brain, 'floor-id'), 'utf8').trim());
    } finally {
      other.cleanup();
    }
  });
}
