// A batch's pending FTS rows (src/core/index/turnindex/pendingfts.ts): written in the order they
// came, a row taken back is not written, and a rowid given again after that is written once,
// with its new text (as a resume cut gives a turn's id again).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PendingFts } from '../../../src/core/index/turnindex/pendingfts';

function rows(p: PendingFts): [number, string][] {
  const out: [number, string][] = [];
  p.each((id, text) => out.push([id, text]));
  return out;
}

test('pending FTS rows: order kept, taken back, given again', () => {
  const p = new PendingFts();
  p.add(5, 'a');
  p.add(3, 'b');
  p.add(9, 'c');
  assert.equal(p.drop(4), false);
  assert.equal(p.drop(3), true);
  assert.equal(p.drop(3), false);
  p.add(3, 'b2');
  p.add(11, 'd');
  assert.equal(p.drop(11), true);
  assert.deepEqual(rows(p), [
    [5, 'a'],
    [9, 'c'],
    [3, 'b2'],
  ]);
  p.clear();
  assert.deepEqual(rows(p), []);
  assert.equal(p.drop(5), false);
  p.add(5, 'e');
  assert.equal(p.drop(5), true);
  assert.deepEqual(rows(p), []);
});
