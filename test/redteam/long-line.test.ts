// Red team: one line longer than a JavaScript string can be (a 560 MB pasted blob in one Claude
// Code message) made `brain search <word>` exit 3 ("Cannot create a string longer than
// 0x1fffffe8 characters"): the turn index's build, the --scan tier and `show` decoded the line
// whole. Such a text is read as its head (and says so); the search answers, through the index and
// with --scan, and finds the word in that message and in the others.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox, type Sandbox } from '../helpers/env';

const SID = '11111111-2222-4333-8444-555555555555';
let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'rt-long-line' });
  const dir = path.join(sb.home, '.claude', 'projects', '-work-long');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${SID}.jsonl`);
  const line = (uuid: string, ts: string, text: string) => JSON.stringify({ type: 'user', sessionId: SID, uuid, timestamp: ts, cwd: '/work/long', message: { role: 'user', content: text } });
  fs.writeFileSync(file, `${line('u1', '2026-01-01T00:00:00.000Z', 'hello wombat first')}\n`);
  // The second message: "wombat " then 560 MB of "a", written in pieces.
  const [head, tail] = line('u2', '2026-01-01T00:00:01.000Z', 'wombat \u0000').split('\\u0000');
  const fd = fs.openSync(file, 'a');
  fs.writeSync(fd, head);
  const mb = Buffer.alloc(1 << 20, 0x61);
  for (let i = 0; i < 560; i++) fs.writeSync(fd, mb);
  fs.writeSync(fd, `${tail}\n`);
  fs.closeSync(fd);
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' }, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb?.cleanup());

for (const scan of [false, true]) {
  test(`brain search${scan ? ' --scan' : ''} answers beside a 560 MB line, and finds the word in it`, { timeout: 300_000 }, () => {
    const r = brain(sb, ['search', 'wombat', '--json', ...(scan ? ['--scan'] : [])], { timeout: 300_000 });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.hits.length, 1, j.header);
    const lines = (j.hits[0].mentions ?? j.hits[0].snippets ?? []).map((m: { span?: { line_from: number } }) => m.span?.line_from);
    assert.ok(JSON.stringify(j.hits[0]).includes('hello wombat first'), 'the short message');
    assert.ok(lines.includes(2) || /"line_from":2\b/.test(JSON.stringify(j.hits[0])), `the long message: ${JSON.stringify(j.hits[0]).slice(0, 400)}`);
  });
}

test('brain show prints the long message as its head, with its citation', { timeout: 300_000 }, () => {
  const r = brain(sb, ['show', SID], { timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wombat a{100}/);
  assert.match(r.stdout, /lines 2–2 \(bytes \d+–\d+\)/);
  assert.ok(r.stdout.length < 64 << 20, `${r.stdout.length} characters printed`);
});
