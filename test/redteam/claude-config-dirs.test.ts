// Red team: two Claude Code config folders (CLAUDE_CONFIG_DIR, one per account) holding a session
// file at the same relative path shared one lake file: each switch between accounts made the other
// account's session a new generation of it. Each config folder other than the default now has its
// own prefix in the lane (@config-<hash>/), the default keeps its paths, and a floor that already
// holds an origin under its old name keeps recording it there (nothing is recorded again).
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, listFiles, sandbox, type Sandbox } from '../helpers/env';

const REL = path.join('projects', '-work-shared', '5a5a5a5a-0000-4000-8000-00000000acc7.jsonl');
let sb: Sandbox;
let a: string;
let b: string;
before(() => {
  sb = sandbox({ name: 'rt-cc-config' });
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'), 'utf8');
  a = path.join(sb.home, '.claude', REL);
  b = path.join(sb.home, 'account-b', REL);
  for (const [f, word] of [[a, 'alpha account'], [b, 'beta account']] as const) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, src.replaceAll('green and yellow', word));
  }
});
after(() => sb?.cleanup());

const record = (env: NodeJS.ProcessEnv = {}) => {
  const r = brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0', ...env } });
  assert.equal(r.status, 0, r.stderr);
};
const lake = () => listFiles(path.join(sb.brain, 'lake', 'cc'));
const manifest = () =>
  fs
    .readFileSync(path.join(sb.brain, 'manifest', 'manifest.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { lake_path: string; gen: number; origin_path: string });

test('two config folders, one relative path: two lake files, no generations, however often they switch', () => {
  record();
  record({ CLAUDE_CONFIG_DIR: path.join(sb.home, 'account-b') });
  record();
  record({ CLAUDE_CONFIG_DIR: path.join(sb.home, 'account-b') });
  const files = lake();
  assert.equal(files.length, 2, files.join('\n'));
  assert.ok(files.includes('-work-shared/5a5a5a5a-0000-4000-8000-00000000acc7.jsonl'), 'the default folder keeps its path');
  assert.ok(files.some((f) => /^@config-[0-9a-f]{12}\/-work-shared\/5a5a5a5a-0000-4000-8000-00000000acc7\.jsonl$/.test(f)), files.join('\n'));
  assert.ok(manifest().every((m) => m.gen === 1), 'no generation 2');
  for (const f of files) {
    const text = fs.readFileSync(path.join(sb.brain, 'lake', 'cc', f), 'utf8');
    assert.equal(text, fs.readFileSync(f.startsWith('@') ? b : a, 'utf8'), `${f} is its own origin's bytes`);
  }
});

test('a floor that recorded a folder without a prefix keeps recording it there', () => {
  const before = lake();
  // The same folder (~/.claude of the first HOME) named by CLAUDE_CONFIG_DIR from another HOME:
  // not the default there, so it would get a prefix, but the floor holds it already.
  const other = path.join(sb.dir, 'home2');
  fs.mkdirSync(other, { recursive: true });
  fs.appendFileSync(a, `${fs.readFileSync(a, 'utf8').trim().split('\n').pop()}\n`);
  record({ HOME: other, CLAUDE_CONFIG_DIR: path.join(sb.home, '.claude') });
  assert.deepEqual(lake(), before, 'no new lake file');
  assert.equal(fs.readFileSync(path.join(sb.brain, 'lake', 'cc', '-work-shared', '5a5a5a5a-0000-4000-8000-00000000acc7.jsonl'), 'utf8'), fs.readFileSync(a, 'utf8'), 'the new line appended where the origin was');
  assert.ok(manifest().every((m) => m.gen === 1), 'no generation 2');
});
