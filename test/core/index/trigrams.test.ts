// The raw index's trigram keys: taken from the bytes, they are the keys of the decoded,
// lowercased lines, so a term's keys (taken from its lowercased forms) are all there whenever a
// line holds the term.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fold, rawTrigramKeys, trigramKeys } from '../../../src/core/index/trigrams';
import { rng } from './gen';

const PIECES = ['a', 'B', 'z', 'Q', ' ', '"', '\\', '\\n', 'é', 'É', 'Ü', 'ß', '東京', 'データ', 'İ', 'K', '🎉', 'x²', 'Ωμέγα', 'ДОМ', '\n', '0', '_', '{"k":"'];

test('trigram keys from raw bytes are the keys of each decoded, lowercased line', () => {
  const r = rng(7);
  for (let round = 0; round < 300; round++) {
    let s = '';
    const n = Math.floor(r() * 80);
    for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
    s += '\n';
    const got = new Set(rawTrigramKeys(Buffer.from(s), 0, Buffer.byteLength(s)));
    const want = new Set(s.split('\n').flatMap((line) => trigramKeys(fold(line))));
    assert.deepEqual([...want].filter((w) => !got.has(w)), [], JSON.stringify(s));
    // Nothing across a newline either: each key belongs to a line.
    assert.deepEqual([...got].filter((w) => !want.has(w)), [], JSON.stringify(s));
  }
});

test('a term found in a line has all its trigram keys in the chunk', () => {
  const text = 'first line\n{"text":"Grüße aus Zürich, and a KELVIN sign: 5 K"}\nlast ÉCOLE line\n';
  const chunk = new Set(rawTrigramKeys(Buffer.from(text), 0, Buffer.byteLength(text)));
  for (const term of ['GRÜßE', 'Zürich', 'kelvin sign: 5 k', 'école', 'first line']) {
    for (const w of trigramKeys(fold(term))) assert.ok(chunk.has(w), `${term}: ${w}`);
  }
  assert.ok(trigramKeys(fold('zzq')).some((w) => !chunk.has(w)));
});
