#!/usr/bin/env node
// `npm run package`: one .vsix per VS Code platform target, each carrying exactly that platform's
// native binaries and nothing of any other. Both native modules are Node-API, so one binary per
// platform loads in every Node ≥ 22 and every Electron (desktop VS Code, code-server):
//   - better-sqlite3 13 ships a prebuilt binary per platform inside its npm package
//     (prebuilds/<platform>.node); the target's one is kept, the others are left out;
//   - @duckdb/node-api loads @duckdb/node-bindings-<platform>, one npm package per platform; the
//     target's is fetched from the npm registry with `npm pack` (cached) when it is not the one
//     npm installed here.
// Nothing is compiled and nothing is fetched from anywhere but the npm registry.
//
//   node scripts/package.mjs                          every target, into ./vsix/
//   node scripts/package.mjs --target linux-x64       one target (repeat --target for more)
//   node scripts/package.mjs --target linux-x64 --out file.vsix
//   node scripts/package.mjs --test-hooks ...           the e2e suite's package: plus its test commands
//   node scripts/package.mjs --out-dir DIR --no-build
//
// Install the one for your editor's platform: `code --install-extension vsix/agent-brain-<target>-<version>.vsix`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** VS Code's target names → better-sqlite3's prebuild and DuckDB's binding package suffix. */
export const TARGETS = {
  'linux-x64': { sqlite: 'linux-x64', duckdb: 'linux-x64' },
  'linux-arm64': { sqlite: 'linux-arm64', duckdb: 'linux-arm64' },
  'alpine-x64': { sqlite: 'linuxmusl-x64', duckdb: 'linux-x64-musl' },
  'alpine-arm64': { sqlite: 'linuxmusl-arm64', duckdb: 'linux-arm64-musl' },
  'darwin-x64': { sqlite: 'darwin-x64', duckdb: 'darwin-x64' },
  'darwin-arm64': { sqlite: 'darwin-arm64', duckdb: 'darwin-arm64' },
  'win32-x64': { sqlite: 'win32-x64', duckdb: 'win32-x64' },
  'win32-arm64': { sqlite: 'win32-arm64', duckdb: 'win32-arm64' },
};

/** The VS Code target of the machine this runs on (glibc Linux assumed for linux). */
export function hostTarget() {
  return `${process.platform}-${process.arch}`;
}

function parseArgs(argv) {
  const o = { targets: [], out: undefined, outDir: path.join(REPO, 'vsix'), build: true, testHooks: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--target') o.targets.push(...val().split(','));
    else if (a === '--out' || a === '-o') o.out = val();
    else if (a === '--out-dir') o.outDir = path.resolve(val());
    else if (a === '--no-build') o.build = false;
    else if (a === '--test-hooks') o.testHooks = true;
    else if (a === '-h' || a === '--help') {
      console.log(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('// ')).map((l) => l.slice(3)).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  if (o.targets.length === 0) o.targets = Object.keys(TARGETS);
  for (const t of o.targets) if (!TARGETS[t]) throw new Error(`unknown --target ${t}; one of ${Object.keys(TARGETS).join(', ')}`);
  if (o.out && o.targets.length !== 1) throw new Error('--out needs exactly one --target');
  return o;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}${r.stderr ? `\n${r.stderr}` : ''}`);
  return r;
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true, dereference: true });
}

function pkgJson(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

/** Where fetched platform packages are kept between runs. */
export function packageCache(env = process.env) {
  if (env.BRAIN_PACKAGE_CACHE) return path.resolve(env.BRAIN_PACKAGE_CACHE);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'agent-brain-package');
}

/** @duckdb/node-bindings-<suffix> at `version`: the installed one if it matches, else `npm pack`ed. */
function duckdbBinding(suffix, version) {
  const name = `@duckdb/node-bindings-${suffix}`;
  const local = path.join(REPO, 'node_modules', name);
  if (fs.existsSync(local) && pkgJson(local).version === version) return local;
  const dir = path.join(packageCache(), `duckdb-node-bindings-${suffix}-${version}`);
  if (fs.existsSync(path.join(dir, '.ok'))) return path.join(dir, 'package');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  run('npm', ['pack', `${name}@${version}`, '--pack-destination', dir, '--loglevel=error'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', cwd: dir });
  const tgz = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack ${name}@${version} wrote no .tgz into ${dir}`);
  run('tar', ['xzf', path.join(dir, tgz), '-C', dir]);
  fs.rmSync(path.join(dir, tgz));
  fs.writeFileSync(path.join(dir, '.ok'), `${name}@${version}\n`);
  return path.join(dir, 'package');
}

/** @duckdb/node-api as one file: its ~180 modules would each be a file of the .vsix (vsce warns
 * past 100 JavaScript files, and the editor loads each one apart). Its native binding stays a
 * package of its own, required at run time as before. */
function stageDuckdbApi(dest) {
  const src = path.join(REPO, 'node_modules', '@duckdb', 'node-api');
  if (!fs.existsSync(src)) throw new Error('node_modules/@duckdb/node-api is missing: run npm ci');
  const pkg = pkgJson(src);
  const { buildSync } = createRequire(path.join(REPO, 'package.json'))('esbuild');
  buildSync({ entryPoints: [path.join(src, pkg.main)], bundle: true, platform: 'node', format: 'cjs', target: 'node22', external: ['@duckdb/node-bindings'], logLevel: 'warning', outfile: path.join(dest, 'lib', 'index.js') });
  copy(path.join(src, 'LICENSE'), path.join(dest, 'LICENSE'));
  const slim = { name: pkg.name, version: pkg.version, license: pkg.license, main: './lib/index.js', dependencies: pkg.dependencies };
  fs.writeFileSync(path.join(dest, 'package.json'), JSON.stringify(slim, null, 2) + '\n');
}

/** Everything but the native modules, shared by every target. */
function stageCommon(stage, testHooks) {
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const f of fs.readdirSync(path.join(REPO, 'dist'))) {
    if (!/\.(js|js\.map)$/.test(f)) continue;
    // The e2e suite's test commands go only into its own package.
    if (f.startsWith('testhooks.') && !testHooks) continue;
    copy(path.join(REPO, 'dist', f), path.join(stage, 'dist', f));
  }
  // Each agent's SQL views (src/core/cache/sqlfiles.ts reads them beside the bundles).
  copy(path.join(REPO, 'dist', 'agents'), path.join(stage, 'dist', 'agents'));
  for (const d of ['media', 'sql', 'skills']) if (fs.existsSync(path.join(REPO, d))) copy(path.join(REPO, d), path.join(stage, d));
  // The extension's details page is a README of its own (the repository's links into docs/ mean
  // nothing inside an editor); the licence must be there for vsce to package without skipping it.
  copy(path.join(REPO, 'media', 'vsix', 'README.md'), path.join(stage, 'README.md'));
  for (const f of ['CHANGELOG.md', 'LICENSE']) copy(path.join(REPO, f), path.join(stage, f));
  const nm = path.join(stage, 'node_modules');
  for (const p of ['detect-libc', '@duckdb/node-bindings']) {
    const src = path.join(REPO, 'node_modules', p);
    if (!fs.existsSync(src)) throw new Error(`node_modules/${p} is missing: run npm ci`);
    copy(src, path.join(nm, p));
  }
  stageDuckdbApi(path.join(nm, '@duckdb', 'node-api'));
  // better-sqlite3's JavaScript, without any binary and without its build inputs.
  const bsqSrc = path.join(REPO, 'node_modules', 'better-sqlite3');
  const bsq = pkgJson(bsqSrc);
  if (!fs.existsSync(path.join(bsqSrc, 'prebuilds'))) throw new Error(`better-sqlite3 ${bsq.version} has no prebuilds/: the extension needs better-sqlite3 ≥ 13 (npm ci)`);
  copy(path.join(bsqSrc, 'lib'), path.join(nm, 'better-sqlite3', 'lib'));
  for (const f of fs.readdirSync(path.join(nm, 'better-sqlite3', 'lib'))) {
    // lib/<platform>.js entry points each require one platform's binary: none is used by index.js.
    if (/^(linux|linuxmusl|darwin|win32)-/.test(f)) fs.rmSync(path.join(nm, 'better-sqlite3', 'lib', f));
  }
  copy(path.join(bsqSrc, 'LICENSE'), path.join(nm, 'better-sqlite3', 'LICENSE'));
  const slim = { name: bsq.name, version: bsq.version, description: bsq.description, license: bsq.license, main: bsq.main, engines: bsq.engines };
  fs.writeFileSync(path.join(nm, 'better-sqlite3', 'package.json'), JSON.stringify(slim, null, 2) + '\n');
  return { bsqVersion: bsq.version, duckdbVersion: pkgJson(path.join(nm, '@duckdb/node-bindings')).version };
}

/** The target's binaries into the stage, after removing the previous target's. */
function stageNative(stage, target, versions) {
  const nm = path.join(stage, 'node_modules');
  const t = TARGETS[target];
  const prebuilds = path.join(nm, 'better-sqlite3', 'prebuilds');
  fs.rmSync(prebuilds, { recursive: true, force: true });
  copy(path.join(REPO, 'node_modules', 'better-sqlite3', 'prebuilds', `${t.sqlite}.node`), path.join(prebuilds, `${t.sqlite}.node`));
  for (const d of fs.readdirSync(path.join(nm, '@duckdb'))) {
    if (d.startsWith('node-bindings-')) fs.rmSync(path.join(nm, '@duckdb', d), { recursive: true, force: true });
  }
  const binding = duckdbBinding(t.duckdb, versions.duckdbVersion);
  copy(binding, path.join(nm, '@duckdb', `node-bindings-${t.duckdb}`));
  // npm list (which vsce runs) must see every other platform's binding as absent and optional: the
  // staged node-bindings names only the target's.
  const nbDir = path.join(nm, '@duckdb', 'node-bindings');
  const nb = pkgJson(path.join(REPO, 'node_modules', '@duckdb', 'node-bindings'));
  nb.optionalDependencies = { [`@duckdb/node-bindings-${t.duckdb}`]: versions.duckdbVersion };
  fs.writeFileSync(path.join(nbDir, 'package.json'), JSON.stringify(nb, null, 2));
}

/** What the e2e suite's package adds (--test-hooks): its commands, enabled only in test mode and
 * hidden from the palette otherwise. A production package has neither these nor dist/testhooks.js. */
const TEST_COMMANDS = [
  ['ping', 'Test: Ping'],
  ['loop', 'Test: Loop Monitor'],
  ['clipboard', 'Test: Read Clipboard'],
  ['invokeTools', 'Test: Invoke Language Model Tools'],
].map(([id, title]) => ({ command: `agentBrain.test.${id}`, title, category: 'Agent Brain', enablement: 'agentBrain.testMode' }));

function withTestCommands(contributes) {
  return {
    ...contributes,
    commands: [...contributes.commands, ...TEST_COMMANDS],
    menus: { ...contributes.menus, commandPalette: [...(contributes.menus?.commandPalette ?? []), ...TEST_COMMANDS.map((c) => ({ command: c.command, when: 'agentBrain.testMode' }))] },
  };
}

function manifest(root, versions, testHooks) {
  return {
    name: root.name,
    displayName: root.displayName,
    description: root.description,
    version: root.version,
    publisher: root.publisher,
    license: root.license,
    engines: { vscode: root.engines.vscode },
    main: root.main,
    categories: root.categories,
    activationEvents: root.activationEvents,
    contributes: testHooks ? withTestCommands(root.contributes) : root.contributes,
    icon: root.icon,
    repository: root.repository,
    dependencies: { 'better-sqlite3': versions.bsqVersion, '@duckdb/node-api': pkgJson(path.join(REPO, 'node_modules', '@duckdb', 'node-api')).version },
  };
}

/** Builds (unless --no-build) and packages; returns the .vsix paths, one per target. */
export function packageVsix(argv = []) {
  const o = parseArgs(argv);
  if (o.build) run(process.execPath, [path.join(REPO, 'scripts', 'build.mjs')], { cwd: REPO });
  if (!fs.existsSync(path.join(REPO, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing after the build');
  const root = pkgJson(REPO);
  // A stage of its own: two packagings at once (tests run in parallel) must not share one.
  fs.mkdirSync(path.join(REPO, '.test-work'), { recursive: true });
  const stage = fs.mkdtempSync(path.join(REPO, '.test-work', 'vsix-stage-'));
  try {
    return packageStaged(o, root, stage);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

function packageStaged(o, root, stage) {
  const versions = stageCommon(stage, o.testHooks);
  fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(manifest(root, versions, o.testHooks), null, 2) + '\n');
  fs.writeFileSync(path.join(stage, '.vscodeignore'), ['**/*.map', 'node_modules/**/*.md', 'node_modules/**/*.d.ts'].join('\n') + '\n');
  const vsce = path.join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  const outs = [];
  for (const target of o.targets) {
    const t0 = Date.now();
    stageNative(stage, target, versions);
    const out = path.resolve(o.out ?? path.join(o.outDir, `${root.name}-${target}-${root.version}.vsix`));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    run(process.execPath, [vsce, 'package', '--target', target, '--allow-star-activation', '-o', out], { cwd: stage, stdio: ['ignore', 'pipe', 'inherit'] });
    console.log(`packaged ${path.relative(process.cwd(), out)} (${target}): ${(fs.statSync(out).size / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    outs.push(out);
  }
  return outs;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    packageVsix(process.argv.slice(2));
  } catch (e) {
    console.error(`✗ package: ${e.message}`);
    process.exit(1);
  }
}
