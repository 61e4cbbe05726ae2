// The recall mask over a large answer made of the real fixtures' lines with planted sessions spread
// through it: every key masked with the guard's preview, the fixtures' own text left as it was
// (no false positives), and a long run without a break (a base64 blob) does not stall the pass.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maskSecrets } from '../../../src/core/secrets/redact';
import { FIXTURES, listFiles } from '../../helpers/env';
import { ccSession, codexSession, piSession, plantedKeys, byName } from './plant';

test('a large answer: every planted key masked wherever it sits, the fixtures untouched', { timeout: 300_000 }, async () => {
  const keys = plantedKeys(11);
  const fixture = listFiles(FIXTURES)
    .filter((f) => /\.jsonl?$/.test(f))
    .flatMap((f) => fs.readFileSync(path.join(FIXTURES, f), 'utf8').split('\n'))
    .filter((l) => l.length > 0);
  const planted = [...ccSession(keys, 'p1'), ...codexSession(keys), ...piSession(keys)].map((l) => l.text);
  const rows: { raw_line: string }[] = [];
  let size = 0;
  for (let i = 0; size < 4 << 20; i++) {
    const l = i % 97 === 50 ? planted[Math.floor(i / 97) % planted.length] : fixture[i % fixture.length];
    rows.push({ raw_line: l });
    size += l.length;
  }
  // A single 2 MB token (a pasted blob) and a title cut inside a key.
  rows.push({ raw_line: 'A'.repeat(2 << 20) });
  const gh = byName(keys, 'github-fine-grained').secret;
  rows.push({ raw_line: `push with ${gh.slice(0, 30)}…` });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-redact-'));
  try {
    const m = await maskSecrets(home, { rows });
    const v = m.value.rows;
    // Only the rows that held a key can hold one now (the others are checked to be unchanged).
    const out = v.filter((_, i) => planted.includes(rows[i].raw_line) || i === rows.length - 1).map((r) => r.raw_line).join('\n');
    for (const k of keys) {
      for (let i = 0; i + 10 <= k.body.length; i += 5) assert.ok(!out.includes(k.body.slice(i, i + 10)), `part of ${k.name} left in clear`);
    }
    assert.ok(m.masked >= planted.length, `${m.masked} masked`);
    const openai = byName(keys, 'openai').secret;
    assert.ok(out.includes(`${openai.slice(0, 4)}…${openai.slice(-2)}`));
    rows.forEach((r, i) => {
      if (!planted.includes(r.raw_line) && i < rows.length - 1 && v[i].raw_line !== r.raw_line) assert.equal(v[i].raw_line, r.raw_line, `fixture line ${i} changed`);
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
