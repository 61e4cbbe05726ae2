// Only claimed bytes leave the floor: a pass writes straight into lake files, and one that was
// killed leaves bytes past the claims until the next pass claims or cuts them. `brain sync` and
// `brain backup` copy whole lake files, so they first settle the floor under its lock (the
// recovery a pass runs first) and copy while holding it: the copy never holds a byte that is cut
// afterwards, so it never diverges from the floor it backs up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';
import { localStoreConfig, writeConfig } from './floor';
import { requireRsync } from './harness';

const LINES = ['{"type":"user","message":{"role":"user","content":"one"}}', '{"type":"assistant","message":{"role":"assistant","content":"two"}}', '{"type":"user","message":{"role":"user","content":"three"}}'];

/** A floor holding one session, then a pass killed half-way through writing its append (torn lake tail). */
function tornFloor(name: string) {
  requireRsync();
  const sb = sandbox({ name });
  const origin = path.join(sb.home, '.claude', 'projects', 'p', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.writeFileSync(origin, LINES[0] + '\n');
  const lake = path.join(sb.brain, 'lake', 'cc', 'p', 's.jsonl');
  const manifest = path.join(sb.brain, 'manifest', 'manifest.jsonl');
  assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
  fs.appendFileSync(origin, LINES[1] + '\n' + LINES[2] + '\n');
  // Crash point 1: half of the append's first block is in the lake, the journal says so.
  const r = brain(sb, ['record', '--no-caches'], { env: { BRAIN_CRASH_AT: '1' } });
  assert.equal(r.signal, 'SIGKILL', r.stdout + r.stderr);
  const claimed = () => Math.max(...readManifest(manifest).lines.map((l) => l.byte_to));
  assert.ok(fs.statSync(lake).size > claimed(), 'unclaimed (torn) bytes in the lake');
  return { sb, origin, lake, manifest, claimed, journal: path.join(sb.brain, 'spool', '_journal') };
}

test('brain sync after a killed pass pushes only claimed bytes: the torn tail is cut first, and the store copy stays a prefix of the floor', () => {
  const w = tornFloor('settle-sync');
  try {
    const store = path.join(w.sb.dir, 'store');
    fs.mkdirSync(store);
    writeConfig(w.sb.brain, localStoreConfig(store));
    const s = brain(w.sb, ['sync', '--now']);
    assert.equal(s.status, 0, s.stdout + s.stderr);
    const copy = path.join(store, 'testbox', 'lake', 'cc', 'p', 's.jsonl');
    assert.equal(fs.statSync(copy).size, w.claimed(), 'the store copy holds the claimed bytes only');
    assert.deepEqual(fs.readFileSync(copy), fs.readFileSync(w.lake));
    assert.deepEqual(fs.readdirSync(w.journal), [], 'the killed pass was settled before the push');
    // The next pass writes the append again; the next sync appends it: nothing moved aside.
    assert.equal(brain(w.sb, ['record', '--no-caches']).status, 0);
    const s2 = brain(w.sb, ['sync', '--now']);
    assert.equal(s2.status, 0, s2.stdout + s2.stderr);
    assert.deepEqual(fs.readFileSync(copy), fs.readFileSync(w.origin));
    assert.doesNotMatch(s2.stdout, /replaced|repaired|moved aside/);
    assert.ok(!fs.existsSync(path.join(store, 'testbox', '.brain', 'replaced')), 'no store copy was moved aside');
    const v = brain(w.sb, ['verify', '--store', '--all']);
    assert.equal(v.status, 0, v.stdout + v.stderr);
  } finally {
    w.sb.cleanup();
  }
});

test('brain backup after a killed pass copies only claimed bytes', () => {
  const w = tornFloor('settle-backup');
  try {
    const dest = path.join(w.sb.dir, 'backup');
    const b = brain(w.sb, ['backup', dest]);
    assert.equal(b.status, 0, b.stdout + b.stderr);
    const copy = path.join(dest, 'lake', 'cc', 'p', 's.jsonl');
    assert.equal(fs.statSync(copy).size, w.claimed());
    assert.deepEqual(fs.readFileSync(copy), fs.readFileSync(w.lake));
    assert.equal(brain(w.sb, ['record', '--no-caches']).status, 0);
    const b2 = brain(w.sb, ['backup', dest]);
    assert.equal(b2.status, 0, b2.stdout + b2.stderr);
    assert.deepEqual(fs.readFileSync(copy), fs.readFileSync(w.origin));
  } finally {
    w.sb.cleanup();
  }
});

test('the settled floor is not had while a pass holds the floor lock; once it is free the sync pushes claimed bytes only', async () => {
  const w = tornFloor('settle-busy');
  try {
    const store = path.join(w.sb.dir, 'store');
    fs.mkdirSync(store);
    writeConfig(w.sb.brain, localStoreConfig(store));
    const { waitLock } = await import('../../../src/core/floor/lock');
    const held = await waitLock(path.join(w.sb.brain, 'locks'), 'floor', 5000);
    assert.ok(held);
    const { runSync } = await import('../../../src/core/store/sync');
    const { settledFloor } = await import('../../../src/core/floor/settle');
    assert.equal(await settledFloor(w.sb.brain, 200), null, 'busy while a pass holds the floor');
    held!.release();
    const o = await runSync(w.sb.brain, { now: true, env: w.sb.env });
    assert.equal(o.kind, 'done');
    assert.equal(fs.statSync(path.join(store, 'testbox', 'lake', 'cc', 'p', 's.jsonl')).size, w.claimed());
  } finally {
    w.sb.cleanup();
  }
});
