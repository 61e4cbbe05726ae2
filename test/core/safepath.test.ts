// The one path guard: what it refuses without looking at the disk, what it refuses when it does
// (a symlink anywhere below the root, never followed), and the file names it makes from input.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileSegment, readInside, UnsafePathError, unsafeReason, within } from '../../src/core/safepath';
import { BrainError } from '../../src/core/errors';

test('refuses .., absolute paths, NUL bytes and empty names; the error names the input and the root', () => {
  const root = '/srv/store/m';
  for (const [rel, why] of [
    ['lake/../../x', /"\.\." segment/],
    ['..', /"\.\." segment/],
    ['lake/cc/../../../etc/passwd', /"\.\." segment/],
    ['/etc/passwd', /absolute/],
    ['C:\\x', /absolute/],
    ['lake/a\0b', /NUL/],
    ['', /empty/],
    ['./.', /names no file/],
  ] as const) {
    assert.throws(
      () => within(root, rel, { what: 'lake_path' }),
      (e: unknown) => e instanceof UnsafePathError && e instanceof BrainError && e.code === 'unsafe-path' && why.test(e.message) && e.message.includes(JSON.stringify(rel)) && e.message.includes(root),
      JSON.stringify(rel),
    );
  }
  assert.equal(within(root, 'lake/cc/p/s.jsonl'), '/srv/store/m/lake/cc/p/s.jsonl');
  assert.equal(within(root, 'lake//cc/./s..jsonl'), '/srv/store/m/lake/cc/s..jsonl', 'dots inside a name are a name');
  // Another BrainError is not an UnsafePathError.
  assert.equal(new BrainError('usage', 'x') instanceof UnsafePathError, false);
});

test('on disk: a symlinked file or folder anywhere below the root is refused, never followed', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-safepath-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-safepath-out-'));
  try {
    fs.writeFileSync(path.join(outside, 'secret'), 'outside bytes');
    fs.mkdirSync(path.join(root, 'lake', 'cc'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lake', 'cc', 'real.jsonl'), 'inside\n');
    fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'lake', 'cc', 'link.jsonl'));
    fs.symlinkSync(outside, path.join(root, 'lake', 'dir'));
    assert.equal(unsafeReason(root, 'lake/cc/real.jsonl', { disk: true, file: true }), null);
    assert.equal(unsafeReason(root, 'lake/cc/link.jsonl'), null, 'without the disk check only the name is judged');
    assert.equal(unsafeReason(root, 'lake/cc/link.jsonl', { disk: true }), 'is a symlink');
    assert.equal(unsafeReason(root, 'lake/dir/secret', { disk: true }), 'passes through a symlink (lake/dir)');
    assert.equal(unsafeReason(root, 'lake/cc/missing.jsonl', { disk: true, file: true }), null, 'nothing there to follow');
    assert.equal(unsafeReason(root, 'lake/cc', { disk: true, file: true }), 'is not a regular file');
    assert.equal(readInside(root, 'lake/cc/real.jsonl').toString(), 'inside\n');
    assert.throws(() => readInside(root, 'lake/dir/secret'), UnsafePathError);
    assert.throws(() => readInside(root, 'lake/cc/link.jsonl'), /is a symlink: refused/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('fileSegment: one name that never climbs or hides, ordinary ids unchanged, distinct inputs distinct names', () => {
  assert.equal(fileSegment('0b7c1f52-9c2e-4b1e-a3f1-2d3e4f5a6b7c'), '0b7c1f52-9c2e-4b1e-a3f1-2d3e4f5a6b7c');
  assert.equal(fileSegment('../x'), '%2E.%2Fx');
  assert.equal(fileSegment('..'), '%2E.');
  assert.equal(fileSegment('a\\b'), 'a%5Cb');
  const inputs = ['a/b', 'a%2Fb', 'a%b', '.x', '%2Ex', '', '%', 'a\0', 'a%00'];
  const names = inputs.map(fileSegment);
  assert.equal(new Set(names).size, inputs.length, JSON.stringify(names));
  for (const n of names) {
    assert.ok(!n.includes('/') && !n.includes('\0') && !n.startsWith('.'), n);
  }
});
