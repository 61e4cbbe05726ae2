#!/usr/bin/env node
// The README's test command. On a fresh machine of this kind it first installs what the tests need
// (apt packages, the e2e VS Code, native modules for it) idempotently, through scripts/setup/*.mjs
// in name order; where it cannot, a setup script says what to install and the run fails.
// Run by a Node older than 22, it first runs itself again under the Node 22 that `npm ci` installed
// (scripts/node22.mjs). Then it builds, type-checks and runs every test/**/*.test.ts with node:test.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNode22 } from './node22.mjs';

ensureNode22();

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);
process.env.TZ = 'UTC';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n✗ ${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
    process.exit(r.status || 1);
  }
}

const only = process.argv.slice(2);
const skipSetup = process.env.BRAIN_TEST_SKIP_SETUP === '1';

if (!skipSetup) {
  for (const f of readdirSync('scripts/setup').filter((f) => f.endsWith('.mjs')).sort()) {
    console.log(`• setup: ${f}`);
    run(process.execPath, [join('scripts/setup', f)]);
  }
}
console.log('• build');
run(process.execPath, ['scripts/build.mjs']);
console.log('• typecheck');
run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']);
console.log('• lint');
run(process.execPath, ['scripts/lint.mjs']);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}
let files = walk('test').sort();
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
console.log(`• ${files.length} test files`);
// dist/ is built above, once: tests that need it (the e2e packages, the worker) do not build it
// again, since two builds at once rewrite dist/ under each other's feet.
process.env.BRAIN_TEST_BUILT = '1';
run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files]);
