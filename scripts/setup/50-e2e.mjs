// The end-to-end VS Code: code-server (a real VS Code served to a browser) on its own Node 24; the
// packaged extension's native modules are Node-API prebuilds, so nothing is compiled for it. The
// same code-server also runs on the Node 22 that the `node` devDependency installed (the oldest
// Node an editor may run the extension on): test/e2e starts it there too. Installed once into
// a cache folder outside the repo and reused: every step leaves a stamp and is skipped when the
// stamp is there, so a second run costs a few stats. `@vscode/test-electron` cannot run here (no
// downloads but the npm registry), hence code-server from npm driven by Chromium from apt.
//
// Imported by scripts/package.mjs and test/e2e for the paths; run as a script it installs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CODE_SERVER_VERSION = '4.139.1';
// code-server 4.139 requires Node 24; its extension host runs on it (ABI 137).
export const NODE_VERSION = '24.22.3';

/** Where the e2e runtime lives. Outside the repo so a fresh clone on the same machine reuses it. */
export function cacheDir(env = process.env) {
  if (env.BRAIN_E2E_CACHE) return path.resolve(env.BRAIN_E2E_CACHE);
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'agent-brain-e2e');
}

export function runtime(env = process.env) {
  const cache = cacheDir(env);
  const nodePkg = `node-${process.platform}-${process.arch}`;
  const nodePrefix = path.join(cache, `node-${NODE_VERSION}`);
  const nodeDir = path.join(nodePrefix, 'node_modules', nodePkg);
  const csPrefix = path.join(cache, `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
  return {
    cache,
    nodeDir,
    node: path.join(nodeDir, 'bin', 'node'),
    codeServerDir: path.join(csPrefix, 'node_modules', 'code-server'),
    codeServerEntry: path.join(csPrefix, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    csPrefix,
    nodePrefix,
    nodePkg,
  };
}

function npmInstall(prefix, spec, env) {
  fs.mkdirSync(prefix, { recursive: true });
  // A package.json of its own, so npm never walks up into another project.
  if (!fs.existsSync(path.join(prefix, 'package.json'))) fs.writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
  const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], {
    cwd: prefix,
    stdio: 'inherit',
    env,
  });
  if (r.status !== 0) throw new Error(`npm install ${spec} into ${prefix} failed (exit ${r.status})`);
}

export function install({ log = console.log } = {}) {
  const rt = runtime();
  fs.mkdirSync(rt.cache, { recursive: true });
  const t0 = Date.now();
  const timings = {};

  const nodeStamp = path.join(rt.nodePrefix, '.ok');
  if (!fs.existsSync(nodeStamp)) {
    const t = Date.now();
    log(`installing Node ${NODE_VERSION} (${rt.nodePkg}) into ${rt.nodePrefix}`);
    fs.rmSync(rt.nodePrefix, { recursive: true, force: true });
    npmInstall(rt.nodePrefix, `${rt.nodePkg}@${NODE_VERSION}`, process.env);
    if (!fs.existsSync(path.join(rt.nodeDir, 'include', 'node', 'node.h'))) throw new Error(`${rt.nodePkg}@${NODE_VERSION} has no headers in ${rt.nodeDir}/include/node`);
    fs.writeFileSync(nodeStamp, new Date().toISOString() + '\n');
    timings.node = Date.now() - t;
  }

  const csStamp = path.join(rt.csPrefix, '.ok');
  if (!fs.existsSync(csStamp)) {
    if (!fs.existsSync('/usr/include/gssapi/gssapi.h')) {
      throw new Error('code-server needs libkrb5-dev to build its kerberos module: apt-get install -y libkrb5-dev (scripts/setup/10-apt.mjs does it as root)');
    }
    const t = Date.now();
    log(`installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION} into ${rt.csPrefix} (about 2 minutes)`);
    fs.rmSync(rt.csPrefix, { recursive: true, force: true });
    // Under `npm test` the outer npm's npm_config_* variables (user-agent "node/v20" among them)
    // would become the inner install's config, and code-server's postinstall reads its Node version
    // from that user agent: start the inner npm from a clean slate.
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const env = {
      ...clean,
      PATH: `${path.join(rt.nodeDir, 'bin')}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: rt.nodeDir,
      npm_config_unsafe_perm: 'true',
    };
    npmInstall(rt.csPrefix, `code-server@${CODE_SERVER_VERSION}`, env);
    if (!fs.existsSync(rt.codeServerEntry)) throw new Error(`code-server installed but ${rt.codeServerEntry} is missing`);
    const v = spawnSync(rt.node, [rt.codeServerEntry, '--version'], { encoding: 'utf8', env: { ...process.env, HOME: rt.cache } });
    if (v.status !== 0) throw new Error(`code-server --version failed: ${v.stderr}`);
    fs.writeFileSync(csStamp, v.stdout);
    timings.codeServer = Date.now() - t;
  }

  timings.total = Date.now() - t0;
  return { rt, timings };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const { timings } = install();
    const secs = Object.entries(timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}s`).join(', ');
    console.log(`e2e runtime ready (${secs})`);
  } catch (e) {
    console.error(`✗ e2e setup: ${e.message}`);
    process.exit(1);
  }
}
