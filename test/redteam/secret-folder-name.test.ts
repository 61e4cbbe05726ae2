// Red team: a credential in a folder name (a project folder named after a token, so Claude Code's
// session folder holds it) was printed in clear wherever a path is shown: citations in `search
// --json` and `show`, and the places `brain secrets` lists. Each now shows it masked; the session
// text is masked as before. The token is made up here (none is real).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { rng } from '../core/secrets/plant';

const r = rng(5);
const TOKEN = `ghp_${Array.from({ length: 36 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 62)]).join('')}`;
const SID = '7e7e7e7e-0000-4000-8000-00000000f01d';
let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'rt-secret-folder' });
  const cwd = `/work/${TOKEN}`;
  const dir = path.join(sb.home, '.claude', 'projects', cwd.replace(/[/.]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'), 'utf8');
  fs.writeFileSync(path.join(dir, `${SID}.jsonl`), src.replaceAll('green and yellow', 'pangolin folder').replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(cwd)}`));
  const rec = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(rec.status, 0, rec.stderr);
});
after(() => sb?.cleanup());

const body = TOKEN.slice(4);
const clear = (s: string) => {
  for (let i = 0; i + 10 <= body.length; i += 5) if (s.includes(body.slice(i, i + 10))) return true;
  return false;
};

for (const [name, args] of [
  ['search --json', ['search', 'pangolin folder', '--json']],
  ['search', ['search', 'pangolin folder']],
  ['show', ['show', SID]],
  ['show --json', ['show', SID, '--json']],
  ['secrets --json', ['secrets', '--json']],
  ['secrets', ['secrets']],
] as const) {
  test(`${name}: the token in the folder name is masked`, () => {
    const out = brain(sb, [...args]);
    assert.ok(out.status === 0 || (args[0] === 'secrets' && out.status === 1), out.stderr);
    assert.ok(out.stdout.length > 0);
    assert.ok(!clear(out.stdout + out.stderr), `${name} prints the token: ${(out.stdout.match(new RegExp(`.{0,60}${body.slice(0, 10)}.{0,20}`)) ?? [''])[0]}`);
  });
}
