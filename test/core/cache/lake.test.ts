// scanFile, the bulk path's one pass over a lake file: UTF-8 validity, lines and the prefix hash,
// with characters and lines cut by the 4 MB read block (the scan reuses one buffer for every file).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { scanFile } from '../../../src/core/cache/lake';

const BLOCK = 1 << 22;

function scan(bytes: Buffer, claimed = bytes.length) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-lake-'));
  try {
    const f = path.join(dir, 'x.jsonl');
    fs.writeFileSync(f, bytes);
    const lines: [number, number, number][] = [];
    const r = scanFile(f, claimed, (n, off, len) => lines.push([n, off, len]));
    return { ...r, lines: lines };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('scanFile: a character cut by the read block is still UTF-8; a bad byte after one is not', () => {
  for (const at of [BLOCK - 1, BLOCK - 2, BLOCK - 3, 2 * BLOCK - 1]) {
    // '🚀' is 4 bytes: it starts `at`, so the block ends inside it.
    const head = Buffer.alloc(at, 'a');
    head[100] = 10;
    const good = Buffer.concat([head, Buffer.from('🚀\nb\n')]);
    const r = scan(good);
    assert.equal(r.utf8, true, `rocket at ${at}`);
    assert.deepEqual(r.lines, [[1, 0, 101], [2, 101, at + 5 - 101], [3, at + 5, 2]]);
    assert.equal(r.prefixSha256, createHash('sha256').update(good).digest('hex'));
    // The same cut character followed by a byte that is never UTF-8, in the next block.
    const bad = Buffer.concat([head, Buffer.from('🚀'), Buffer.from([0xff, 10])]);
    assert.equal(scan(bad).utf8, false, `bad byte after the rocket at ${at}`);
  }
  // Scans one after another share the buffer: a bad file does not spoil the next good one.
  assert.equal(scan(Buffer.from([0x61, 0xe9, 10])).utf8, false);
  assert.equal(scan(Buffer.from('ünï\n')).utf8, true);
});

test('scanFile: lines, last offset and hash stop at the claim', () => {
  const b = Buffer.from('{"a":1}\n{"b":2}\n{"c":');
  const r = scan(b, 12);
  assert.deepEqual(r.lines, [[1, 0, 8]]);
  assert.equal(r.lastOffset, 8);
  assert.equal(r.cutTail, true);
  assert.equal(r.prefixSha256, createHash('sha256').update(b.subarray(0, 8)).digest('hex'));
  const all = scan(b);
  assert.deepEqual(all.lines, [[1, 0, 8], [2, 8, 8], [3, 16, 5]]);
  assert.equal(all.cutTail, false);
});
