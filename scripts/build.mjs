// Bundles the CLI (brain, brain mcp), the capture worker and the VS Code extension with esbuild.
// Native modules stay external: they are loaded from node_modules at run time.
import { build } from 'esbuild';
import { resolve as resolvePath } from 'node:path';

/**
 * `import * as fs from 'node:fs'` in a CommonJS bundle becomes a copy of the module's ~100 exports
 * in every file that says it (esbuild's __toESM): some 60 copies of fs, path and os cost a short
 * command ~10 ms of CPU before it did anything. Each of them goes through one module of the bundle
 * instead, which copies them once.
 */
function sharedBuiltins() {
  return {
    name: 'shared-builtins',
    setup(b) {
      b.onResolve({ filter: /^node:(fs|path|os)$/ }, (a) => (a.namespace === 'shared-builtin' ? { path: a.path, external: true } : { path: a.path, namespace: 'shared-builtin' }));
      b.onLoad({ filter: /.*/, namespace: 'shared-builtin' }, (a) => ({ contents: `export * from '${a.path}';`, loader: 'js', resolveDir: '.' }));
    },
  };
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  sourcemap: 'linked',
  external: ['vscode', 'better-sqlite3', '@duckdb/node-api', 'fsevents'],
  logLevel: 'warning',
  plugins: [sharedBuiltins()],
};

// Every entry a person or a harness runs says an old Node is too old, before any module (a native
// one built for Node 22 crashes an older Node with no message), as bin/brain does.
const nodeCheck = {
  js: `'use strict'; if (Number(process.versions.node.split('.')[0]) < 22) { process.stderr.write('brain: Node ' + process.versions.node + ' is too old; Agent Brain needs Node 22 or newer (https://nodejs.org, or your package manager; in the clone, node_modules/.bin/node is Node 22 after npm ci).\\n'); process.exit(3); }`,
};

const entries = [
  // The CLI without `brain mcp`, which is its own bundle (see src/cli/verbs.ts).
  { entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', define: { __BRAIN_SPLIT__: 'true' }, banner: nodeCheck },
  { entryPoints: ['src/cli/mcpbin.ts'], outfile: 'dist/cli-mcp.js', banner: nodeCheck },
  // `brain hook` alone (bin/brain picks it): what a harness waits for at each session start.
  { entryPoints: ['src/cli/hookbin.ts'], outfile: 'dist/hook.js', banner: nodeCheck },
  // `brain search` alone (bin/brain picks it): what an agent runs from its shell to recall.
  { entryPoints: ['src/cli/searchbin.ts'], outfile: 'dist/search.js', banner: nodeCheck },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', optional: true },
  { entryPoints: ['src/extension/worker/main.ts'], outfile: 'dist/worker.js', optional: true },
  // The e2e suite's test commands: a bundle of their own, packaged only into its .vsix (--test-hooks).
  { entryPoints: ['src/extension/testHooks.ts'], outfile: 'dist/testhooks.js', optional: true },
  // The turn index's parse thread, found beside whichever bundle builds the index.
  { entryPoints: ['src/core/index/parse-worker.ts'], outfile: 'dist/index-worker.js' },
  // The store side, sent to an ssh store host on stdin (`ssh HOST node - ...`): one file, no native
  // module: better-sqlite3 is node:sqlite behind its API there (src/core/remote/nodesqlite.ts), the
  // others fail to load as a missing module would.
  { entryPoints: ['src/core/remote/main.ts'], outfile: 'dist/remote.js', sourcemap: false, minify: true, plugins: [sharedBuiltins(), noNative()] },
];

/** Native modules become a module that fails to load, as a missing one would. */
function noNative() {
  return {
    name: 'no-native',
    setup(b) {
      b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: resolvePath('src/core/remote/nodesqlite.ts') }));
      b.onResolve({ filter: /^node:sqlite$/ }, (a) => ({ path: a.path, external: true }));
      b.onResolve({ filter: /^(@duckdb\/node-api|fsevents|vscode)$/ }, (a) => ({ path: a.path, namespace: 'no-native' }));
      b.onLoad({ filter: /.*/, namespace: 'no-native' }, (a) => ({ contents: `throw new Error(${JSON.stringify(`${a.path} is not sent to the store host`)});`, loader: 'js' }));
    },
  };
}

import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
await Promise.all(
  entries
    .filter((e) => !e.optional || existsSync(e.entryPoints[0]))
    .map(({ optional, ...e }) => build({ ...common, ...e })),
);

// Each agent's SQL views are read at run time (like sql/), from dist/agents/<lane>/views.sql
// beside the bundles (src/core/cache/sqlfiles.ts).
// Copied over in place, and only folders of lanes that no longer exist are removed: a second build
// running at the same time never finds the folder half deleted.
const lanes = new Set(['kit']);
for (const d of readdirSync('src/core/agents', { withFileTypes: true })) {
  const f = `src/core/agents/${d.name}/views.sql`;
  if (d.isDirectory() && existsSync(f)) {
    cpSync(f, `dist/agents/${d.name}/views.sql`);
    lanes.add(d.name);
  }
}
for (const d of readdirSync('dist/agents')) if (!lanes.has(d)) rmSync(`dist/agents/${d}`, { recursive: true, force: true });
// ... and the SQL several agents' views share (src/core/agents/kit/*.sql).
for (const f of readdirSync('src/core/agents/kit').filter((x) => x.endsWith('.sql'))) cpSync(`src/core/agents/kit/${f}`, `dist/agents/kit/${f}`);

// package.json's texts that come from the code (the registry's agents, the core's tool schemas).
await import('./sync-manifest.mjs');
