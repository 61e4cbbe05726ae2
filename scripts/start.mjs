#!/usr/bin/env node
// `npm start`: the main job on this machine. Captures every agent session into BRAIN_HOME
// (default ~/.brain) and shows what was captured, per agent, and where; then, when a store is
// configured, runs the first sync, and says how to open it all in VS Code.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNode22 } from './node22.mjs';

ensureNode22();

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'dist', 'cli.js');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = (args) => spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' }).status ?? 1;

let code = run(['record']);
if (code !== 0) process.exit(code);
const home = process.env.BRAIN_HOME || join(process.env.HOME || '', '.brain');
if (existsSync(join(home, 'config.toml')) && existsSync(join(root, 'src', 'cli', 'sync.ts'))) {
  console.log('\nSyncing to the configured store:');
  code = run(['sync', '--now']);
}
console.log(`
Next:
  node dist/cli.js verify            re-hash every chunk against the manifest
  node dist/cli.js search "<words>"  find a session again, with citations
  node dist/cli.js init --store DIR  back up to a store shared by all your machines
  npm run package -- --target ${process.platform}-${process.arch} && code --install-extension vsix/${pkg.name}-${process.platform}-${process.arch}-${pkg.version}.vsix    the VS Code extension`);
process.exit(code);
