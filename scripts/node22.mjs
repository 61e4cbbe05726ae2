// The project needs Node ≥ 22 (better-sqlite3 13, node:test features, Node 20 is end-of-life), but
// a fresh machine may start with an older one. The `node` devDependency carries a Node 22 binary
// from the npm registry; a script run by an older Node runs itself again under it, with that
// binary's folder first on PATH so every `node` and `#!/usr/bin/env node` (bin/brain) below it is
// Node 22 too. Under `npm test`/`npm start` npm already puts node_modules/.bin first on PATH.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIN_NODE_MAJOR = 22;
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Node 22 binary the devDependency installed, or undefined. */
export function bundledNode() {
  const bin = join(REPO, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');
  return existsSync(bin) ? realpathSync(bin) : undefined;
}

/** Returns when this process runs on Node ≥ 22; otherwise runs the same script under the bundled
 * Node 22 and exits with its status. */
export function ensureNode22() {
  if (Number(process.versions.node.split('.')[0]) >= MIN_NODE_MAJOR) return;
  const node = bundledNode();
  if (!node) {
    console.error(`Node ${process.versions.node} is too old: Agent Brain needs Node ≥ ${MIN_NODE_MAJOR}. Run \`npm ci\` (it installs Node 22 as the \`node\` devDependency) or install Node ${MIN_NODE_MAJOR}+.`);
    process.exit(3);
  }
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}
