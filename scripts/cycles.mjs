#!/usr/bin/env node
// Import cycles in src/: between files, and between modules (a folder of src/core, e.g. agents with
// its agent folders and kit, or src/cli, src/mcp, src/extension). Type-only imports are left out:
// they are erased from the bundles. Prints each cycle; exit 1 when there is one. lint.mjs runs it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const files = [];
const walk = (d) => {
  for (const n of readdirSync(d)) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts')) files.push(p);
  }
};
walk(join(root, 'src'));

const target = (from, spec) => {
  const p = resolve(dirname(from), spec);
  return [`${p}.ts`, join(p, 'index.ts')].find((c) => existsSync(c));
};
const graph = new Map();
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)) {
    if (m[1]) continue;
    const t = target(f, m[2]);
    if (t) deps.add(t);
  }
  for (const m of text.matchAll(/require\(['"](\.[^'"]+)['"]\)/g)) {
    const t = target(f, m[1]);
    if (t) deps.add(t);
  }
  graph.set(f, deps);
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(g) {
  let n = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c);
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

const moduleOf = (f) => {
  const parts = relative(join(root, 'src'), f).split('/');
  return parts[0] === 'core' && parts.length > 2 ? `core/${parts[1]}` : parts.length > 1 ? parts[0] : `${parts[0]}`;
};
const modules = new Map();
for (const [f, deps] of graph) {
  const a = moduleOf(f);
  if (!modules.has(a)) modules.set(a, new Set());
  for (const d of deps) if (moduleOf(d) !== a) modules.get(a).add(moduleOf(d));
}

const problems = [
  ...cycles(graph).map((c) => `import cycle between files: ${c.map((f) => relative(root, f)).join(' -> ')}`),
  ...cycles(modules).map((c) => `import cycle between modules: ${c.join(' -> ')}`),
];
for (const p of problems) console.error(p);
process.exitCode = problems.length ? 1 : 0;
