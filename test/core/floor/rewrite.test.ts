// Rewritten origins open a new generation; the old generation's bytes are never touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

const REL = 'sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';

function setup(name: string): { sb: Sandbox; origin: string; lake1: string; orig: Buffer } {
  const sb = sandbox({ fixtures: true, name });
  const origin = path.join(sb.home, '.claude', 'projects', REL);
  assert.equal(brain(sb, ['record']).status, 0);
  const lake1 = path.join(sb.brain, 'lake', 'cc', REL);
  return { sb, origin, lake1, orig: fs.readFileSync(origin) };
}

function gen(sb: Sandbox, n: number): string {
  return path.join(sb.brain, 'lake', 'cc', REL.replace(/\.jsonl$/, `.g${n}.jsonl`));
}

function check(sb: Sandbox, origin: string, lake1: string, orig: Buffer, n = 2): void {
  const r = brain(sb, ['record', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout);
  assert.equal(rep.lanes.cc.generations, 1, 'one generation opened');
  assert.ok(fs.readFileSync(lake1).equals(orig), 'generation 1 untouched');
  assert.ok(fs.readFileSync(gen(sb, n)).equals(fs.readFileSync(origin)), `generation ${n} is the new content`);
  const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.lake_path.includes('5c0375b4'));
  const last = m[m.length - 1];
  assert.equal(last.gen, n);
  assert.equal(last.byte_from, 0);
  assert.equal(last.line_from, 1);
  const v = brain(sb, ['verify']);
  assert.equal(v.status, 0, v.stdout);
}

test('truncate then grow opens generation 2', () => {
  const { sb, origin, lake1, orig } = setup('trunc');
  try {
    fs.truncateSync(origin, 0);
    fs.appendFileSync(origin, orig.subarray(0, 500).toString('latin1').replace(/[\n]/g, ' ') + '\n{"new":1}\n', 'latin1');
    check(sb, origin, lake1, orig);
  } finally {
    sb.cleanup();
  }
});

test('same-size rewrite (one byte changed in the middle) opens generation 2', () => {
  const { sb, origin, lake1, orig } = setup('samesize');
  try {
    const b = Buffer.from(orig);
    const mid = b.length >> 1;
    b[mid] = b[mid] === 0x41 ? 0x42 : 0x41;
    const fd = fs.openSync(origin, 'r+');
    fs.writeSync(fd, b, mid, 1, mid);
    fs.closeSync(fd);
    const t = new Date(Date.now() + 5000);
    fs.utimesSync(origin, t, t);
    check(sb, origin, lake1, orig);
  } finally {
    sb.cleanup();
  }
});

test('replace by rename (new inode) opens generation 2', () => {
  const { sb, origin, lake1, orig } = setup('rename');
  try {
    const tmp = origin + '.tmp';
    fs.writeFileSync(tmp, Buffer.concat([orig, Buffer.from('{"appended":"after rename"}\n')]));
    fs.renameSync(tmp, origin);
    check(sb, origin, lake1, orig);
  } finally {
    sb.cleanup();
  }
});

test('shrink opens generation 2; a later rewrite opens generation 3', () => {
  const { sb, origin, lake1, orig } = setup('shrink');
  try {
    fs.truncateSync(origin, orig.indexOf(10) + 1);
    check(sb, origin, lake1, orig);
    const g2 = fs.readFileSync(gen(sb, 2));
    fs.writeFileSync(origin, '{"third":true}\n');
    check(sb, origin, lake1, orig, 3);
    assert.ok(fs.readFileSync(gen(sb, 2)).equals(g2), 'generation 2 untouched');
  } finally {
    sb.cleanup();
  }
});

test('a change at the start of a grown file is caught by the fingerprint without a full read', () => {
  const { sb, origin, lake1, orig } = setup('prefix');
  try {
    const b = Buffer.from(orig);
    b[10] = b[10] === 0x61 ? 0x62 : 0x61;
    fs.writeFileSync(origin + '.x', Buffer.concat([b, Buffer.from('{"more":1}\n')]));
    // Same inode: overwrite in place.
    fs.writeFileSync(origin, fs.readFileSync(origin + '.x'));
    fs.rmSync(origin + '.x');
    check(sb, origin, lake1, orig);
  } finally {
    sb.cleanup();
  }
});

/** A byte changed in the middle (outside both 4 KiB fingerprints) and a line appended, in place. */
function editMiddleAndAppend(origin: string, orig: Buffer): void {
  const b = Buffer.from(orig);
  const mid = b.length >> 1;
  assert.ok(mid > 8192 && b.length - mid > 8192, 'the edit is outside both fingerprints');
  b[mid] = b[mid] === 0x41 ? 0x42 : 0x41;
  const fd = fs.openSync(origin, 'r+');
  fs.writeSync(fd, b, mid, 1, mid);
  fs.closeSync(fd);
  fs.appendFileSync(origin, '{"type":"user","message":{"role":"user","content":"after the edit"}}\n');
}

test('a byte changed in the middle of a session that also grew opens a generation in the same pass', () => {
  const { sb, origin, lake1, orig } = setup('mid-edit');
  try {
    editMiddleAndAppend(origin, orig);
    const r = brain(sb, ['record', '--json', '--no-caches']);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.lanes.cc.generations, 1, 'one generation opened');
    assert.equal(rep.prefix_check.found, 1);
    assert.ok(fs.readFileSync(gen(sb, 2)).equals(fs.readFileSync(origin)), 'generation 2 is the origin, byte for byte');
    assert.ok(fs.readFileSync(lake1).subarray(0, orig.length).equals(orig), 'generation 1 keeps what it had');
    const v = brain(sb, ['verify', '--deep']);
    assert.equal(v.status, 0, v.stdout);
  } finally {
    sb.cleanup();
  }
});

test('with a small prefix-check budget the change is found within ceil(size / budget) passes', () => {
  const { sb, origin, orig } = setup('mid-edit-budget');
  try {
    const budget = 16 * 1024;
    const env = { BRAIN_PREFIX_CHECK_BYTES: String(budget) };
    // The check of a first append is under way (its place in the rotation is kept) when the edit comes.
    fs.appendFileSync(origin, '{"type":"user","message":{"role":"user","content":"first"}}\n');
    assert.equal(brain(sb, ['record', '--no-caches'], { env }).status, 0);
    const before = fs.readFileSync(origin);
    editMiddleAndAppend(origin, before);
    const k = Math.ceil(before.length / budget);
    let passes = 0;
    while (passes < k && !(fs.existsSync(gen(sb, 2)) && fs.readFileSync(gen(sb, 2)).equals(fs.readFileSync(origin)))) {
      const r = brain(sb, ['record', '--json', '--no-caches'], { env });
      assert.equal(r.status, 0, r.stderr);
      assert.ok((JSON.parse(r.stdout).prefix_check?.bytes ?? 0) <= budget, 'within the budget');
      passes++;
    }
    assert.ok(fs.existsSync(gen(sb, 2)) && fs.readFileSync(gen(sb, 2)).equals(fs.readFileSync(origin)), `generation 2 equals the origin after ${passes} of at most ${k} passes`);
    assert.ok(passes > 1, 'the budget spread the check over passes');
    const v = brain(sb, ['verify', '--deep']);
    assert.equal(v.status, 0, v.stdout);
    // Once checked whole, an idle session is not read again.
    const idle = JSON.parse(brain(sb, ['record', '--json', '--no-caches'], { env }).stdout);
    assert.equal(idle.prefix_check.bytes, 0);
    void orig;
  } finally {
    sb.cleanup();
  }
});
