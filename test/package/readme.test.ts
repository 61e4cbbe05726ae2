// README's pictures are the e2e run's: each one it shows is in media/screenshots, a PNG, and the
// name of a screen an e2e test photographs and checks (BRAIN_E2E_SCREENSHOTS=1 takes them again).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../helpers/env';

test("every picture in the README is an e2e screenshot kept in media/screenshots", () => {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const shots = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
  assert.ok(shots.length >= 2, 'the README shows at least two screens');
  const e2e = fs
    .readdirSync(path.join(REPO, 'test', 'e2e'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => fs.readFileSync(path.join(REPO, 'test', 'e2e', f), 'utf8'))
    .join('\n');
  for (const s of shots) {
    const m = /^media\/screenshots\/([\w-]+)\.png$/.exec(s);
    assert.ok(m, `${s}: README pictures live in media/screenshots`);
    const png = fs.readFileSync(path.join(REPO, s));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', `${s} is a PNG`);
    assert.ok(e2e.includes(`screenshot(page, '${m[1]}')`), `${s}: an e2e test takes the screenshot "${m[1]}"`);
  }
});
