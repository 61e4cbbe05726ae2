// The prefilter may only skip lines that cannot produce a finding: on every input here the scan
// with it must equal the scan of every line and every string without it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { detect, type Hit } from '../../../src/core/secrets/detect';
import { anchorLines, hasAnchor } from '../../../src/core/secrets/prefilter';
import { FIXTURES, listFiles } from '../../helpers/env';
import { ccSession, codexSession, piSession, plantedKeys, toFile } from './plant';

const SALT = 's';
const key = (h: Hit) => `${h.line}|${h.from}|${h.rule}|${h.secret_id}|${h.kind}`;

async function same(buf: Buffer, what: string): Promise<number> {
  const fast = (await detect(buf, SALT)).map(key).sort();
  const ref = (await detect(buf, SALT, undefined, { noPrefilter: true })).map(key).sort();
  assert.deepEqual(fast, ref, `${what}: the prefilter lost or added findings`);
  return ref.length;
}

describe('prefilter', () => {
  it('loses nothing on the fixtures (every file, every line)', async () => {
    const files = listFiles(FIXTURES).filter((f) => !f.endsWith('.md'));
    assert.ok(files.length >= 40, `expected the fixture set, found ${files.length} files`);
    let findings = 0;
    for (const f of files) findings += await same(fs.readFileSync(path.join(FIXTURES, f)), f);
    // The fixtures hold no real credentials (redacted at the source): any finding is a false
    // positive to look at by hand.
    assert.equal(findings, 0);
  });

  it('loses nothing on planted sessions, seeds 1-5', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const keys = plantedKeys(seed);
      for (const lines of [ccSession(keys, 'p'), codexSession(keys), piSession(keys)]) {
        const n = await same(Buffer.from(toFile(lines)), `seed ${seed}`);
        assert.equal(n, lines.reduce((a, l) => a + l.keys.length, 0));
      }
    }
  });

  it('loses nothing where escapes, digits or punctuation touch a key', async () => {
    const keys = plantedKeys(11);
    const texts = keys.map((k) => k.secret);
    const wraps = [
      (s: string) => s,
      (s: string) => `\\n${s}`,
      (s: string) => `\\\\${s}`,
      (s: string) => `2${s}.`,
      (s: string) => `"${s}"`,
      (s: string) => `(${s})`,
      (s: string) => `x=${s};`,
      (s: string) => `token: ${s}`,
      (s: string) => JSON.stringify({ a: JSON.stringify({ b: s }) }),
      (s: string) => JSON.stringify({ content: [{ type: 'text', text: `line\n${s}\nend` }] }),
    ];
    let n = 0;
    for (const t of texts) for (const w of wraps) n += await same(Buffer.from(`${w(t)}\n`), `${t.slice(0, 4)}… wrapped`);
    assert.ok(n >= texts.length * 5, `only ${n} findings`);
  });

  it('loses nothing when keys and PEM blocks sit inside long tool outputs (windowed texts)', async () => {
    const keys = plantedKeys(21);
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `  ${i}: const value_${i} = compute(${i}); // naïve façade 東京`).join('\n');
    const body = [filler(80), ...keys.map((k) => `${filler(7)}\nfound ${k.secret} in config\n${filler(5)}`), filler(60)].join('\n');
    const lines = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: body }] } }),
      JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', output: JSON.stringify({ output: body }) } }),
      body,
    ];
    const n = await same(Buffer.from(`${lines.join('\n')}\n`), 'long texts');
    // Without their names (AWS_SECRET_ACCESS_KEY=, AccountKey=, DB_PASSWORD=) four of the 15 keys
    // are just random text: 11 found per JSON line and 11 in the plain text (PEMs as line ranges).
    assert.equal(n, 11 + 11 + 11);
  });

  it('reports each anchored line once, in order, including the first and an unterminated last', () => {
    const k = plantedKeys(3).find((x) => x.name === 'github-classic')!.secret;
    const b = Buffer.from(`${k}\nnothing here\nA_KEY=1 and ${k}\n${k}`);
    const got: [number, number][] = [];
    anchorLines(b, (from, to) => got.push([from, to]));
    const l1 = k.length + 1;
    const l2 = l1 + 'nothing here\n'.length;
    const l3 = l2 + `A_KEY=1 and ${k}\n`.length;
    assert.deepEqual(got, [
      [0, l1],
      [l2, l3],
      [l3, b.length],
    ]);
    assert.equal(hasAnchor('plain words, a path /usr/bin and a uuid 550e8400-e29b-41d4-a716-446655440000'), false);
  });
});
