#!/usr/bin/env node
// `npm run package`: builds the .vsix with vsce. The bundles (dist/) carry all JavaScript; the two
// native modules are shipped beside them in node_modules/: @duckdb/node-api is N-API (one binary
// for every Node and Electron), better-sqlite3 is not, so it is compiled for a named runtime:
//
//   node scripts/package.mjs                          Node of the e2e VS Code (code-server 4.139)
//   node scripts/package.mjs --target node@24.22.3    any Node, headers from the npm registry
//   node scripts/package.mjs --target electron@37.7.0 desktop VS Code (headers from Electron's site)
//   node scripts/package.mjs --nodedir DIR --target node@X   headers you already have
//   node scripts/package.mjs --out file.vsix
//
// If the runtime's better-sqlite3 cannot be built or loaded, the extension still works: search
// falls back to a scan and the status tooltip says so (docs/extension.md).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, NODE_VERSION, runtime, install as installE2E, buildBetterSqlite3, nodeGyp } from './setup/50-e2e.mjs';

function parseArgs(argv) {
  const o = { target: `node@${NODE_VERSION}`, out: undefined, nodedir: undefined, build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--target') o.target = val();
    else if (a === '--out' || a === '-o') o.out = val();
    else if (a === '--nodedir') o.nodedir = val();
    else if (a === '--no-build') o.build = false;
    else if (a === '-h' || a === '--help') {
      console.log(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  const m = /^(node|electron)@(\d+\.\d+\.\d+)$/.exec(o.target);
  if (!m) throw new Error(`--target must be node@X.Y.Z or electron@X.Y.Z, got "${o.target}"`);
  o.runtime = m[1];
  o.version = m[2];
  return o;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
}

/** better-sqlite3 compiled for the target, as a folder holding package.json, lib/ and build/Release. */
function nativeFor(o) {
  const rt = runtime();
  if (o.runtime === 'node') {
    let nodeDir = o.nodedir;
    if (!nodeDir && o.version === NODE_VERSION) {
      installE2E();
      nodeDir = rt.nodeDir;
    }
    if (!nodeDir) {
      // Headers for another Node come from the npm registry's node-<platform>-<arch> package.
      const prefix = path.join(rt.cache, `node-${o.version}`);
      nodeDir = path.join(prefix, 'node_modules', rt.nodePkg);
      if (!fs.existsSync(path.join(nodeDir, 'include', 'node', 'node.h'))) {
        fs.mkdirSync(prefix, { recursive: true });
        if (!fs.existsSync(path.join(prefix, 'package.json'))) fs.writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
        run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `${rt.nodePkg}@${o.version}`]);
      }
    }
    return buildBetterSqlite3({ nodeDir, version: o.version, cache: rt.cache });
  }
  // Electron: node-gyp fetches Electron's headers (needs that site; not reachable on CI here).
  const src = path.join(REPO, 'node_modules', 'better-sqlite3');
  const out = path.join(rt.cache, `better-sqlite3-electron-${o.version}`);
  if (!fs.existsSync(path.join(out, '.built'))) {
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    for (const n of ['package.json', 'binding.gyp', 'lib', 'src', 'deps', 'LICENSE']) fs.cpSync(path.join(src, n), path.join(out, n), { recursive: true });
    const args = [nodeGyp(), 'rebuild', '--release', `--target=${o.version}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'];
    if (o.nodedir) args.push(`--nodedir=${o.nodedir}`);
    run(process.execPath, args, { cwd: out });
    fs.writeFileSync(path.join(out, '.built'), new Date().toISOString() + '\n');
  }
  return out;
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true, dereference: true });
}

function pkgJson(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

export function packageVsix(argv = []) {
  const o = parseArgs(argv);
  const t0 = Date.now();
  if (o.build) run(process.execPath, [path.join(REPO, 'scripts', 'build.mjs')], { cwd: REPO });
  for (const f of ['dist/extension.js']) {
    if (!fs.existsSync(path.join(REPO, f))) throw new Error(`${f} is missing after the build`);
  }
  const bsq = nativeFor(o);

  const root = pkgJson(REPO);
  const stage = path.join(REPO, '.test-work', 'vsix-stage');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });

  for (const f of fs.readdirSync(path.join(REPO, 'dist'))) {
    if (/\.(js|js\.map)$/.test(f)) copy(path.join(REPO, 'dist', f), path.join(stage, 'dist', f));
  }
  // Each agent's SQL views (src/core/cache/sqlfiles.ts reads them beside the bundles).
  copy(path.join(REPO, 'dist', 'agents'), path.join(stage, 'dist', 'agents'));
  for (const d of ['media', 'sql', 'skills']) if (fs.existsSync(path.join(REPO, d))) copy(path.join(REPO, d), path.join(stage, d));
  for (const f of ['CHANGELOG.md', 'LICENSE']) if (fs.existsSync(path.join(REPO, f))) copy(path.join(REPO, f), path.join(stage, f));
  const readme = ['README.md'].map((f) => path.join(REPO, f)).find((f) => fs.existsSync(f));
  fs.writeFileSync(path.join(stage, 'README.md'), readme ? fs.readFileSync(readme) : `# ${root.displayName}\n\n${root.description}\n`);

  // Runtime node_modules: exactly the externals of the bundles and what they require.
  const nm = path.join(stage, 'node_modules');
  const bsqPkg = pkgJson(bsq);
  copy(path.join(bsq, 'package.json'), path.join(nm, 'better-sqlite3', 'package.json'));
  copy(path.join(bsq, 'lib'), path.join(nm, 'better-sqlite3', 'lib'));
  copy(path.join(bsq, 'build', 'Release', 'better_sqlite3.node'), path.join(nm, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
  if (fs.existsSync(path.join(bsq, 'LICENSE'))) copy(path.join(bsq, 'LICENSE'), path.join(nm, 'better-sqlite3', 'LICENSE'));
  // The staged copy is already built: no install script, no prebuild download at install time.
  delete bsqPkg.scripts;
  delete bsqPkg.devDependencies;
  bsqPkg.dependencies = { bindings: bsqPkg.dependencies.bindings };
  fs.writeFileSync(path.join(nm, 'better-sqlite3', 'package.json'), JSON.stringify(bsqPkg, null, 2));
  const plain = ['bindings', 'file-uri-to-path', 'detect-libc', '@duckdb/node-api', '@duckdb/node-bindings', `@duckdb/node-bindings-${process.platform}-${process.arch}`];
  for (const p of plain) {
    const src = path.join(REPO, 'node_modules', p);
    if (!fs.existsSync(src)) throw new Error(`node_modules/${p} is missing: run npm ci`);
    copy(src, path.join(nm, p));
  }
  // npm list (which vsce runs) must see every optional platform binding it does not find as
  // absent-and-optional, so the staged node-bindings keeps only the one present.
  const nb = pkgJson(path.join(nm, '@duckdb/node-bindings'));
  if (nb.optionalDependencies) {
    nb.optionalDependencies = Object.fromEntries(Object.entries(nb.optionalDependencies).filter(([k]) => fs.existsSync(path.join(nm, k))));
    fs.writeFileSync(path.join(nm, '@duckdb/node-bindings', 'package.json'), JSON.stringify(nb, null, 2));
  }

  const manifest = {
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
    contributes: root.contributes,
    icon: root.icon,
    repository: root.repository,
    dependencies: {
      'better-sqlite3': bsqPkg.version,
      '@duckdb/node-api': pkgJson(path.join(nm, '@duckdb/node-api')).version,
    },
  };
  fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  fs.writeFileSync(path.join(stage, '.vscodeignore'), ['**/*.map', 'node_modules/**/*.md', 'node_modules/**/*.d.ts', 'node_modules/better-sqlite3/deps/**', 'node_modules/better-sqlite3/src/**'].join('\n') + '\n');

  const out = path.resolve(o.out ?? path.join(REPO, `${root.name}-${root.version}.vsix`));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const vsce = path.join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  run(process.execPath, [vsce, 'package', '--allow-missing-repository', '--skip-license', '--allow-star-activation', '-o', out], { cwd: stage, stdio: ['ignore', 'pipe', 'inherit'] });
  const size = fs.statSync(out).size;
  console.log(`packaged ${path.relative(process.cwd(), out)} for ${o.target}: ${(size / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    packageVsix(process.argv.slice(2));
  } catch (e) {
    console.error(`✗ package: ${e.message}`);
    process.exit(1);
  }
}
