// `brain hook <agent>` through bin/brain loads its own small bundle (dist/hook.js), not the whole
// CLI: a harness waits for it at every session start. It must do exactly what the hook verb does
// inside the CLI: write the meta record, say a bad option with exit 2, and `--help` still works.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, listFiles, sandbox } from '../helpers/env';

const BIN = path.join(REPO, 'bin', 'brain');

function run(env: NodeJS.ProcessEnv, args: string[], input?: string) {
  // NODE_DEBUG=module names every file Node loads as a module, on stderr.
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...env, NODE_DEBUG: 'module' }, input, encoding: 'utf8', timeout: 60_000 });
}

const loaded = (stderr: string, bundle: string) => new RegExp(`load "[^"]*dist[\\\\/]${bundle.replace('.', '\\.')}"`).test(stderr);

test('brain hook loads dist/hook.js alone and writes the meta record', () => {
  const sb = sandbox({ name: 'hookbin' });
  try {
    const cwd = path.join(sb.dir, 'repo');
    fs.mkdirSync(path.join(cwd, '.git', 'refs', 'heads'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(cwd, '.git', 'refs', 'heads', 'main'), `${'a'.repeat(40)}\n`);
    fs.writeFileSync(path.join(cwd, '.git', 'config'), '[remote "origin"]\n\turl = https://example.org/r.git\n');
    const r = run(sb.env, ['hook', 'cc'], JSON.stringify({ session_id: 'hook-fast', cwd, hook_event_name: 'SessionStart' }));
    assert.equal(r.status, 0, r.stderr);
    assert.ok(loaded(r.stderr, 'hook.js'), 'dist/hook.js was loaded');
    assert.ok(!loaded(r.stderr, 'cli.js'), 'dist/cli.js was not loaded');
    const metas = listFiles(path.join(sb.brain, 'meta')).filter((f) => f.endsWith('hook-fast.json'));
    assert.equal(metas.length, 1, `one meta record: ${metas.join(', ')}`);
    const rec = JSON.parse(fs.readFileSync(path.join(sb.brain, 'meta', metas[0]), 'utf8'));
    assert.equal(rec.session, 'hook-fast');
    assert.equal(rec.git.branch, 'main');
    assert.equal(rec.git.commit, 'a'.repeat(40));
    assert.equal(rec.git.remote, 'https://example.org/r.git');
  } finally {
    sb.cleanup();
  }
});

test('brain hook: a bad option exits 2 with the CLI words, a bad agent exits 0, --help goes through the CLI', () => {
  const sb = sandbox({ name: 'hookbin-usage' });
  try {
    const bad = run(sb.env, ['hook', 'cc', '--bogus'], '');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /brain hook: unknown option --bogus/);
    const agent = run(sb.env, ['hook', 'nosuch'], '{"session_id":"x"}');
    assert.equal(agent.status, 0, 'never fails the agent');
    assert.match(agent.stderr, /unknown agent "nosuch" \(the agent is not affected\)/);
    assert.equal(run(sb.env, ['hook', 'nosuch', '--strict'], '{"session_id":"x"}').status, 1);
    const help = run(sb.env, ['hook', '--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^brain hook <cc\|/m);
    assert.ok(loaded(help.stderr, 'cli.js'), '--help is the CLI');
  } finally {
    sb.cleanup();
  }
});
