// Red team: credentials in shapes the detector did not know. A JSON Web Token; a token written as
// base64 (a Kubernetes secret, an encoded config); a token broken over two lines (a terminal's
// wrap, a paste), in a JSON transcript line where the break is a "\n" escape. Each is found on
// the floor's bytes, masked in a recall answer, and stored masked in the SQL cache. The tokens are
// made up here from a seeded generator (none is real).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { secretValues } from '../../src/core/secrets/detect';
import { maskerOf } from '../../src/core/secrets/redact';
import { rng } from '../core/secrets/plant';

const r = rng(31);
const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[Math.floor(r() * chars.length)]).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

const jwt = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890', name: 'Ada', iat: 1750000000 })}.${pick(`${ALNUM}-_`, 43)}`;
const ghp = `ghp_${pick(ALNUM, 36)}`;
const ant = `sk-ant-api03-${pick(`${ALNUM}-_`, 93)}AA`;
const b64 = Buffer.from(ghp).toString('base64');

const line = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, timestamp: '2026-01-01T00:00:00Z' })}\n`;

const CASES = [
  { name: 'a JWT', text: `the session token is ${jwt} (expires soon)`, secret: jwt },
  { name: 'a base64-encoded GitHub token', text: `apiVersion: v1\nkind: Secret\ndata:\n  token: ${b64}\n`, secret: b64 },
  { name: 'an Anthropic key split over two lines', text: `export ANTHROPIC=${ant.slice(0, 50)}\n${ant.slice(50)}\nthen run it`, secret: `${ant.slice(0, 50)}\n${ant.slice(50)}` },
  { name: 'a GitHub token wrapped with an indent', text: `token:\n  ${ghp.slice(0, 20)}\n  ${ghp.slice(20)}\n`, secret: `${ghp.slice(0, 20)}\n  ${ghp.slice(20)}` },
];

for (const c of CASES) {
  test(`${c.name}: found on the floor's bytes and masked`, async () => {
    const raw = line(c.text);
    const found = await secretValues(Buffer.from(raw), 'salt');
    assert.ok(found.some((f) => f.value === c.secret || c.secret.includes(f.value)), `${c.name}: ${JSON.stringify(found.map((f) => f.value))}`);
    const masked = maskerOf(found.map((f) => f.value))(raw);
    // Neither the whole secret nor a 12-character piece of its body (the raw line holds the JSON
    // escaped form: its pieces between breaks are checked).
    for (const piece of c.secret.split(/\n\s*/)) {
      for (let i = 4; i + 12 <= piece.length - 2; i += 6) assert.ok(!masked.includes(piece.slice(i, i + 12)), `${c.name}: "${piece.slice(i, i + 12)}" left in ${masked}`);
    }
    assert.doesNotThrow(() => JSON.parse(masked), 'the masked line is still JSON');
  });
}

test('ordinary text that only looks a little like them is not a finding', async () => {
  const text = ['eyJ is how base64 JSON starts', 'sk-learn is a library', 'c2stbGVhcm4= is "sk-learn" in base64', 'ghp_\nshort', 'see AKIAIOSFODNN7EXAMPLE in the AWS docs'].join('\n');
  const found = await secretValues(Buffer.from(line(text)), 'salt');
  assert.deepEqual(found.map((f) => f.value).filter((v) => !v.includes('EXAMPLE')), []);
});
