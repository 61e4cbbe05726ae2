// One version source: package.json. `brain --version` prints it, and no source file writes it down
// a second time (the MCP server's info and the store's stamp read the same constant; see
// test/mcp/server.test.ts for the first).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { VERSION } from '../../src/core/store/version';
import { REPO, brain, sandbox } from '../helpers/env';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

test('brain --version prints package.json\'s version', () => {
  assert.equal(VERSION, pkg.version);
  const sb = sandbox({ name: 'cli-version' });
  try {
    for (const arg of ['--version', 'version']) {
      const r = brain(sb, [arg]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), pkg.version);
    }
  } finally {
    sb.cleanup();
  }
});

test('no source file writes the version down itself', () => {
  const quoted = new RegExp(`['"\`]${pkg.version.replace(/\./g, '\\.')}['"\`]`);
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.[cm]?[jt]s$/.test(e.name) && quoted.test(fs.readFileSync(p, 'utf8'))) found.push(path.relative(REPO, p));
    }
  };
  walk(path.join(REPO, 'src'));
  walk(path.join(REPO, 'scripts'));
  assert.deepEqual(found, [], `read it from package.json (src/core/store/version.ts) instead`);
});
