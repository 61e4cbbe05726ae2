#!/usr/bin/env node
// The layers of src/, lowest first. A file may import from its own layer and the ones below it,
// never from one above: the floor must not know about the caches built on it, the core must not
// know about the CLI, the editor or the MCP server. docs/development.md "Layout" describes the same order.
// Type-only imports count too: a type from above ties a lower layer to a higher one's shape just
// the same. Cycles inside a layer are cycles.mjs's to find. lint.mjs runs this; exit 1 on a
// violation or on a file that belongs to no layer.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Lowest first. Entries are paths under src/: a folder (with everything below it) or one file. */
export const LAYERS = [
  // Plain utilities: the environment, paths, errors, file helpers. Nothing about agents or the floor.
  { name: 'base', paths: ['core/settings.ts', 'core/errors.ts', 'core/home.ts', 'core/safepath.ts', 'core/safeopen.ts', 'core/visible.ts', 'core/since.ts', 'core/machine.ts', 'core/sqlite.ts', 'core/walk.ts', 'core/sample.ts', 'core/turns.ts', 'core/truth.ts', 'core/sqllimits.ts', 'core/lazy.ts', 'core/pids.ts'] },
  // What each agent writes and where (one folder per agent, their registry and the dialect kit).
  { name: 'agents', paths: ['core/agents'] },
  // The floor: capture, the lake, the manifest.
  { name: 'floor', paths: ['core/floor'] },
  // Caches built on the floor: DuckDB, the turn index; config.toml, which validates the cache's
  // [sql] table.
  { name: 'caches', paths: ['core/cache', 'core/index', 'core/config.ts'] },
  // Reading back (recall), the store (sync, backup; recall over every machine at the store), the
  // Parquet export of every machine's cache and setting up (init, doctor, the harnesses' registration).
  { name: 'recall and store', paths: ['core/recall', 'core/store', 'core/remote', 'core/export', 'core/setup', 'core/harness'] },
  // What runs after capture, the secret guard over the floor and the store, and the recall front
  // door (which masks with the secret guard).
  { name: 'pipeline', paths: ['core/pipeline', 'core/secrets', 'core/tools'] },
  // The MCP server (the CLI starts it).
  { name: 'mcp', paths: ['mcp'] },
  // The front ends.
  { name: 'front ends', paths: ['cli', 'extension'] },
];

/** Imports that go up, each with why it cannot go yet: [from file, to file, reason]. */
export const ALLOWED = [
  ['core/cache/ingest.ts', 'core/secrets/cachemask.ts', 'the cache stores lines with their secrets masked, so SQL cannot transform a key back out; the detector lives with the secret guard'],
];

const root = resolve(new URL('..', import.meta.url).pathname);

export function layerOf(rel) {
  for (let i = 0; i < LAYERS.length; i++) {
    if (LAYERS[i].paths.some((p) => rel === p || rel.startsWith(`${p}/`))) return i;
  }
  return -1;
}

function files(d, out = []) {
  for (const n of readdirSync(d)) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const target = (from, spec) => {
  const p = resolve(dirname(from), spec);
  return [`${p}.ts`, join(p, 'index.ts')].find((c) => existsSync(c));
};

/** Layer paths that name nothing under `src`: a layer list that describes a tree that is not there. */
export function missingPaths(src = join(root, 'src')) {
  const out = [];
  for (const l of LAYERS) {
    for (const p of l.paths) if (!existsSync(join(src, p))) out.push(`scripts/layers.mjs: layer "${l.name}" names src/${p}, which does not exist`);
  }
  return out;
}

/** Every upward import (and every file in no layer) under `src`. */
export function violations(src = join(root, 'src')) {
  const out = [];
  for (const f of files(src)) {
    const rel = relative(src, f);
    const mine = layerOf(rel);
    if (mine < 0) {
      out.push(`src/${rel}: in no layer (add its folder to LAYERS in scripts/layers.mjs and to docs/development.md "Layout")`);
      continue;
    }
    const text = readFileSync(f, 'utf8');
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)].map((m) => m[1]),
      ...[...text.matchAll(/(?:require|import)\(['"](\.[^'"]+)['"]\)/g)].map((m) => m[1]),
    ];
    for (const s of specs) {
      const t = target(f, s);
      if (!t) continue;
      const to = relative(src, t);
      const theirs = layerOf(to);
      if (theirs <= mine) continue;
      if (ALLOWED.some(([a, b]) => a === rel && b === to)) continue;
      out.push(`src/${rel} imports src/${to}: layer ${LAYERS[mine].name} may not import from layer ${LAYERS[theirs].name} above it`);
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const v = [...missingPaths(), ...violations()];
  for (const p of v) console.error(p);
  process.exitCode = v.length ? 1 : 0;
}
