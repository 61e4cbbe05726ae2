// bin/brain turns Node's compile cache on (in the user's cache folder) so a short command does not
// compile the bundle on every run; `brain mcp`, which writes no file, and NODE_DISABLE_COMPILE_CACHE
// leave it off.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, listFiles, sandbox } from '../helpers/env';

const BIN = path.join(REPO, 'bin', 'brain');
// module.enableCompileCache came with Node 22.1.
const hasCache = typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';

function run(env: NodeJS.ProcessEnv, args: string[], input?: string) {
  return spawnSync(process.execPath, [BIN, ...args], { env, input, encoding: 'utf8', timeout: 60_000 });
}

test('bin/brain keeps the compiled bundle in the cache folder, and reads it on the next run', { skip: !hasCache && 'Node has no module.enableCompileCache' }, () => {
  const sb = sandbox({ name: 'compile-cache' });
  try {
    const cache = path.join(sb.env.XDG_CACHE_HOME!, 'agent-brain', 'node-compile-cache');
    const first = run(sb.env, ['--version']);
    assert.equal(first.status, 0, first.stderr);
    const files = listFiles(cache);
    assert.ok(files.length > 0, 'a cache entry was written');
    const again = run({ ...sb.env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, ['--version']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim().split('\n').pop(), first.stdout.trim());
    assert.match(again.stderr, /cache for \S*dist[\\/]cli\.js was accepted/, again.stderr);
    assert.deepEqual(listFiles(cache), files, 'the same entry serves the second run');
    // No XDG_CACHE_HOME: ~/.cache.
    const noXdg = { ...sb.env, XDG_CACHE_HOME: '' };
    assert.equal(run(noXdg, ['--version']).status, 0);
    assert.ok(listFiles(path.join(sb.home, '.cache', 'agent-brain', 'node-compile-cache')).length > 0);
  } finally {
    sb.cleanup();
  }
});

test('brain mcp and NODE_DISABLE_COMPILE_CACHE=1 write no compile cache', { skip: !hasCache && 'Node has no module.enableCompileCache' }, () => {
  const sb = sandbox({ name: 'compile-cache-off' });
  try {
    const cache = path.join(sb.env.XDG_CACHE_HOME!, 'agent-brain');
    const off = run({ ...sb.env, NODE_DISABLE_COMPILE_CACHE: '1' }, ['--version']);
    assert.equal(off.status, 0, off.stderr);
    assert.ok(!fs.existsSync(cache), 'NODE_DISABLE_COMPILE_CACHE=1 is obeyed');
    // stdin closes at once: the server starts, sees the end of its input and exits.
    const mcp = run(sb.env, ['mcp'], '');
    assert.equal(mcp.status, 0, mcp.stderr);
    assert.ok(!fs.existsSync(cache), 'brain mcp wrote no file');
  } finally {
    sb.cleanup();
  }
});
