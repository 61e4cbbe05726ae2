// `brain search` through bin/brain loads its own bundle (dist/search.js), not the whole CLI: an
// agent runs it from its shell. It must answer exactly as the search verb inside the CLI does:
// the same listing, the same --json, the same words and exit code for a bad option, and `--help`
// still works.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { CLI, REPO, brain, sandbox, type Sandbox } from '../helpers/env';

const BIN = path.join(REPO, 'bin', 'brain');

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'searchbin' });
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

function run(entry: string, args: string[]) {
  // NODE_DEBUG=module names every file Node loads as a module, on stderr.
  return spawnSync(process.execPath, [entry, ...args], { env: { ...sb.env, NODE_DEBUG: 'module' }, encoding: 'utf8', timeout: 60_000 });
}

const loaded = (stderr: string, bundle: string) => new RegExp(`load "[^"]*dist[\\\\/]${bundle.replace('.', '\\.')}"`).test(stderr);
/** stderr without Node's module lines. */
const said = (stderr: string) => stderr.split('\n').filter((l) => !/^MODULE \d+:/.test(l)).join('\n');

test('brain search loads dist/search.js alone and answers as the CLI does', () => {
  for (const args of [
    ['search', 'theme'],
    ['search', 'green', 'and', 'yellow', '--json'],
    ['search', 'theme', '--limit', '2', '--agent', 'pi'],
    ['search', 'zzqxjvwkq-nowhere'],
    ['search', 'theme', '--scan', '--json'],
  ]) {
    const lean = run(BIN, args);
    const whole = run(CLI, args);
    assert.ok(loaded(lean.stderr, 'search.js'), `dist/search.js was loaded for ${args.join(' ')}`);
    assert.ok(!loaded(lean.stderr, 'cli.js'), `dist/cli.js was not loaded for ${args.join(' ')}`);
    assert.equal(lean.status, whole.status, args.join(' '));
    assert.equal(lean.stdout, whole.stdout, args.join(' '));
    assert.equal(said(lean.stderr), said(whole.stderr), args.join(' '));
  }
});

test('brain search from the index loads no child_process nor worker_threads (it starts no rg, ssh, flock or parse thread)', () => {
  const r = run(BIN, ['search', 'theme']);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /load built-in module (node:)?(child_process|worker_threads)\b/);
});

test('brain search: a bad option or no term exits 2 with the CLI words, --help goes through the CLI', () => {
  const bad = run(BIN, ['search', 'theme', '--bogus']);
  assert.equal(bad.status, 2);
  assert.ok(loaded(bad.stderr, 'search.js'));
  assert.match(bad.stderr, /brain search: unknown option --bogus/);
  const none = run(BIN, ['search']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /brain search: search needs a TERM/);
  const help = run(BIN, ['search', '--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^brain search TERM/m);
  assert.ok(loaded(help.stderr, 'cli.js'), '--help is the CLI');
});
