// The user's install: `npm pack`, then `npm i -g` of the tarball (into a temporary prefix) gives a
// `brain` on PATH that records and searches, with the turn index, from what the tarball carries
// and its runtime dependencies alone: no test tool (the agent CLIs, ccusage, the Node 22 binary of
// the devDependencies) comes along.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, sandbox } from '../helpers/env';

// The outer npm's settings (under `npm test`) would leak into these installs.
const npmEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

test('npm pack → npm i -g gives a working brain on PATH without test-only packages', () => {
  const sb = sandbox({ fixtures: true, name: 'install' });
  try {
    const packDir = path.join(sb.dir, 'pack');
    const prefix = path.join(sb.dir, 'prefix');
    fs.mkdirSync(packDir, { recursive: true });
    // dist/ is built already (the test runner builds first); building again here would rewrite it
    // under the feet of tests running beside this one.
    npm(['pack', '--ignore-scripts', '--pack-destination', packDir, '--loglevel=error'], REPO);
    const tgz = fs.readdirSync(packDir).find((f) => /^agent-brain-.*\.tgz$/.test(f));
    assert.ok(tgz, 'npm pack wrote agent-brain-*.tgz');
    npm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', path.join(packDir, tgz)], sb.dir);

    const installed = path.join(prefix, 'lib', 'node_modules', 'agent-brain');
    const deps = fs.readdirSync(path.join(installed, 'node_modules')).flatMap((d) => (d.startsWith('@') ? fs.readdirSync(path.join(installed, 'node_modules', d)).map((x) => `${d}/${x}`) : [d]));
    for (const testOnly of ['@anthropic-ai/claude-code', '@openai/codex', '@mariozechner/pi-coding-agent', 'ccusage', 'node', 'typescript', 'tsx', 'playwright-core', '@vscode/vsce']) {
      assert.ok(!deps.includes(testOnly), `${testOnly} is not installed for users`);
    }
    assert.ok(!fs.existsSync(path.join(installed, 'src')) && !fs.existsSync(path.join(installed, 'test')), 'sources and tests are not in the tarball');

    const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
    const env = { ...sb.env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}` };
    const run = (args: string[]) => spawnSync('brain', args, { env, cwd: sb.dir, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    const v = run(['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout.trim(), version);
    const which = spawnSync('sh', ['-c', 'command -v brain'], { env, encoding: 'utf8' });
    assert.equal(which.stdout.trim(), path.join(prefix, 'bin', 'brain'));

    const rec = run(['record']);
    assert.equal(rec.status, 0, rec.stderr);
    const s = run(['search', 'does it only run on main', '--json', '--limit', '3']);
    assert.equal(s.status, 0, s.stderr);
    const j = JSON.parse(s.stdout);
    assert.equal(j.source, 'index', 'the installed better-sqlite3 loads: the turn index answers');
    assert.equal(j.hits[0].session, 'fe869ecb-c176-478f-9734-7e4b8ef12cff');
  } finally {
    sb.cleanup();
  }
});
