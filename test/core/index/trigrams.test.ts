// The raw index's trigram words: taken from the bytes, they are the words of the decoded,
// lowercased lines, so a term's words (taken from its lowercased forms) are all there whenever a
// line holds the term.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fold, rawTrigramWords, trigramWords } from '../../../src/core/index/trigrams';
import { rng } from './gen';

const PIECES = ['a', 'B', 'z', 'Q', ' ', '"', '\\', '\\n', 'é', 'É', 'Ü', 'ß', '東京', 'データ', 'İ', 'K', '🎉', 'x²', 'Ωμέγα', 'ДОМ', '\n', '0', '_', '{"k":"'];

test('trigram words from raw bytes are the words of each decoded, lowercased line', () => {
  const r = rng(7);
  for (let round = 0; round < 300; round++) {
    let s = '';
    const n = Math.floor(r() * 80);
    for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
    s += '\n';
    const got = new Set(rawTrigramWords(Buffer.from(s), 0, Buffer.byteLength(s)));
    const want = new Set(s.split('\n').flatMap((line) => trigramWords(fold(line))));
    assert.deepEqual([...want].filter((w) => !got.has(w)), [], JSON.stringify(s));
    // Nothing across a newline either: each word belongs to a line.
    assert.deepEqual([...got].filter((w) => !want.has(w)), [], JSON.stringify(s));
  }
});

test('a term found in a line has all its trigram words in the chunk', () => {
  const text = 'first line\n{"text":"Grüße aus Zürich, and a KELVIN sign: 5 K"}\nlast ÉCOLE line\n';
  const chunk = new Set(rawTrigramWords(Buffer.from(text), 0, Buffer.byteLength(text)));
  for (const term of ['GRÜßE', 'Zürich', 'kelvin sign: 5 k', 'école', 'first line']) {
    for (const w of trigramWords(fold(term))) assert.ok(chunk.has(w), `${term}: ${w}`);
  }
  assert.ok(trigramWords(fold('zzq')).some((w) => !chunk.has(w)));
});
