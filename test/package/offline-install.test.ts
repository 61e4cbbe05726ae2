// `npm ci` without internet: nothing of the install compiles or downloads. better-sqlite3 loads its
// prebuilt binary (prebuilds/<platform>.node), so its implicit `node-gyp rebuild` (which fetches
// Node's headers) is not run (package.json allowScripts + .npmrc strict-allow-scripts). Run on a
// clone of this commit with --offline from the npm cache this machine's install filled, and no
// node-gyp headers (a fresh HOME, no nodedir).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../helpers/env';

test('npm ci --offline installs from the cache with nothing to compile, and better-sqlite3 loads', { timeout: 20 * 60_000 }, () => {
  const npmv = spawnSync('npm', ['--version'], { encoding: 'utf8' });
  assert.equal(npmv.status, 0, 'npm is on PATH (apt-get install npm, or Node from nodejs.org)');
  const [maj, min] = npmv.stdout.trim().split('.').map(Number);
  assert.ok(maj > 11 || (maj === 11 && min >= 16), `npm ${npmv.stdout.trim()} does not read allowScripts (11.16 or newer does): npm install -g npm@11`);
  const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-offline-'));
  try {
    const clone = path.join(dir, 'clone');
    // The working tree as it is (package.json, .npmrc, the lock), without node_modules.
    for (const f of ['package.json', 'package-lock.json', '.npmrc']) {
      fs.mkdirSync(clone, { recursive: true });
      fs.copyFileSync(path.join(REPO, f), path.join(clone, f));
    }
    const home = path.join(dir, 'home');
    fs.mkdirSync(home);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, npm_config_cache: cache, npm_config_nodedir: '', npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    const r = spawnSync('npm', ['ci', '--offline'], { cwd: clone, env, encoding: 'utf8', timeout: 18 * 60_000 });
    assert.equal(r.status, 0, `npm ci --offline failed:\n${(r.stderr + r.stdout).split('\n').filter((l) => !/EBADENGINE|required:|current:|package:|^npm warn EBADENGINE }/.test(l)).slice(-30).join('\n')}`);
    assert.equal(fs.existsSync(path.join(clone, 'node_modules', 'better-sqlite3', 'build')), false, 'better-sqlite3 was not compiled');
    assert.equal(fs.existsSync(path.join(home, '.cache', 'node-gyp')), false, 'no Node headers were fetched');
    const node = path.join(clone, 'node_modules', '.bin', 'node');
    const load = spawnSync(node, ['-e', "const D = require('better-sqlite3'); const d = new D(':memory:'); d.exec(\"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'trigram')\"); console.log(d.prepare('SELECT sqlite_version() AS v').get().v)"], { cwd: clone, encoding: 'utf8' });
    assert.equal(load.status, 0, load.stderr);
    assert.match(load.stdout.trim(), /^3\.\d+/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
