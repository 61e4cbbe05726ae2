#!/usr/bin/env node
// Lint: Biome's recommended rules, plus the architecture's own rules that no general linter knows:
// src/core never imports vscode; nothing reads ../shared; one file per CLI verb; no import cycles
// (scripts/cycles.mjs).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);
const problems = [];
function walk(dir, out = []) {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (n === 'fixtures' || n === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|mjs|cjs|js)$/.test(n)) out.push(p);
  }
  return out;
}
for (const f of walk('src/core')) {
  if (/from ['"]vscode['"]|require\(['"]vscode['"]\)/.test(readFileSync(f, 'utf8'))) problems.push(`${f}: src/core must not import vscode`);
}
for (const f of [...walk('src'), ...walk('test'), ...walk('scripts'), ...walk('bench')]) {
  if (/\.\.\/shared\b|\/work\/shared/.test(readFileSync(f, 'utf8')) && !f.endsWith('lint.mjs')) problems.push(`${f}: reads ../shared (copy what you need into test/fixtures)`);
}
const verbs = readFileSync('src/cli/verbs.ts', 'utf8');
for (const m of verbs.matchAll(/require\('\.\/([\w-]+)'\)/g)) {
  try {
    statSync(`src/cli/${m[1]}.ts`);
  } catch {
    problems.push(`src/cli/verbs.ts: verb module ${m[1]} has no file src/cli/${m[1]}.ts`);
  }
}
for (const p of problems) console.error(p);
const cyc = spawnSync(process.execPath, [join(root, 'scripts', 'cycles.mjs')], { stdio: 'inherit' });
if (cyc.status !== 0) problems.push('import cycles');
const r = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['lint', '--diagnostic-level=error', '.'], { stdio: 'inherit' });
process.exit(problems.length > 0 || r.status !== 0 ? 1 : 0);
