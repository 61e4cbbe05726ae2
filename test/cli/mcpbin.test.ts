// `brain mcp` through bin/brain loads the MCP bundle (dist/cli-mcp.js) alone, not the whole CLI as
// well: it starts once per agent session, compiling what it loads each time (it keeps no compile
// cache). It must still answer as a server, say a bad option as the CLI does, and `--help` works.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO, sandbox } from '../helpers/env';

const BIN = path.join(REPO, 'bin', 'brain');

function run(env: NodeJS.ProcessEnv, args: string[], input?: string) {
  // NODE_DEBUG=module names every file Node loads as a module, on stderr.
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...env, NODE_DEBUG: 'module' }, input, encoding: 'utf8', timeout: 60_000 });
}

const loaded = (stderr: string, bundle: string) => new RegExp(`load "[^"]*dist[\\\\/]${bundle.replace(/\./g, '\\.')}"`).test(stderr);

test('brain mcp loads dist/cli-mcp.js alone and answers initialize', () => {
  const sb = sandbox({ name: 'mcpbin' });
  try {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const r = run(sb.env, ['mcp'], `${init}\n`);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(loaded(r.stderr, 'cli-mcp.js'), 'dist/cli-mcp.js was loaded');
    assert.ok(!loaded(r.stderr, 'cli.js'), 'dist/cli.js was not loaded');
    const answer = JSON.parse(r.stdout.trim().split('\n')[0]);
    assert.equal(answer.id, 1);
    assert.equal(answer.result.serverInfo.name, 'agent-brain');
    const bad = run(sb.env, ['mcp', '--bogus'], '');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /brain mcp: unknown option --bogus/);
    const help = run(sb.env, ['mcp', '--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^brain mcp \[--store PATH\]/m);
    assert.ok(loaded(help.stderr, 'cli.js'), '--help is the CLI');
  } finally {
    sb.cleanup();
  }
});
