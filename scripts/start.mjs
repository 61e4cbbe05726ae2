#!/usr/bin/env node
// `npm start`: the main job on this machine. Captures every agent session into BRAIN_HOME
// (default ~/.brain) and shows what was captured, per agent, and where; then, when a store is
// configured, runs the first sync, and says how to open it all in VS Code.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { MIN_NODE_MAJOR, ensureNode22 } from './node22.mjs';

ensureNode22();

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'dist', 'cli.js');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = (args) => spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' }).status ?? 1;

/** How to run the CLI from this folder, as a person types it. */
function nextCommand() {
  // The user's own PATH, without what npm and node22.mjs put in front of it for this run.
  const PATH = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !d.includes(`${sep}node_modules${sep}`)).join(delimiter);
  const onPath = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8', env: { ...process.env, PATH } });
  const major = Number(String(onPath.stdout ?? '').split('.')[0]);
  if (onPath.status === 0 && major >= MIN_NODE_MAJOR) return 'node dist/cli.js';
  const rel = relative(process.cwd(), process.execPath);
  return `${rel.startsWith('..') || isAbsolute(rel) ? process.execPath : rel} dist/cli.js`;
}

let code = run(['record']);
if (code !== 0) process.exit(code);
const home = process.env.BRAIN_HOME || join(process.env.HOME || '', '.brain');
if (existsSync(join(home, 'config.toml')) && existsSync(join(root, 'src', 'cli', 'sync.ts'))) {
  console.log('\nSyncing to the configured store:');
  code = run(['sync', '--now']);
}
// The next steps name a command that runs: `node` when the one on PATH is new enough, else the
// Node 22 this runs on (the devDependency's, when the system's is older).
const brain = nextCommand();
console.log(`
Next:
  ${brain} verify            re-hash every chunk against the manifest
  ${brain} search "<words>"  find a session again, with citations
  ${brain} init --store DIR  back up to a store shared by all your machines
  npm run package -- --target ${process.platform}-${process.arch} && code --install-extension vsix/${pkg.name}-${process.platform}-${process.arch}-${pkg.version}.vsix    the VS Code extension`);
process.exit(code);
