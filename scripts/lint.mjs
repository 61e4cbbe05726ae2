#!/usr/bin/env node
// Lint: Biome's recommended rules, plus the architecture's own rules that no general linter knows:
// src/core never imports vscode; nothing reads ../shared; one file per CLI verb; no import cycles
// (scripts/cycles.mjs); no import from a lower layer to a higher one (scripts/layers.mjs); BRAIN_*
// variables are read only through src/core/settings.ts; no function in src/ longer than
// scripts/longest.mjs's LIMIT but the few its LONG_OK names, each with why.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { problems as longFunctions } from './longest.mjs';

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
// A BRAIN_* variable read straight from an environment (env.BRAIN_X, env['BRAIN_X'], or handed by
// name to a helper other than setting()) would bypass its one declaration, default and parse.
// A variable that must be read directly for a while goes here, with its reason. None today.
const DIRECT_OK = {};
for (const f of walk('src')) {
  if (f === join('src', 'core', 'settings.ts')) continue;
  const text = readFileSync(f, 'utf8');
  const line = (i) => text.slice(0, i).split('\n').length;
  for (const m of text.matchAll(/\benv\s*(?:\.|\[\s*['"`])(BRAIN_[A-Z0-9_]+)(?!\w)(?!['"`]?\]?\s*=[^=])/g)) {
    if (!DIRECT_OK[m[1]]) problems.push(`${f}:${line(m.index)}: reads ${m[1]} directly; use setting(env, '${m[1]}') from src/core/settings.ts`);
  }
  for (const m of text.matchAll(/\b(\w+)\(\s*[\w.]+\s*,\s*['"`](BRAIN_[A-Z0-9_]+)['"`]/g)) {
    if (m[1] !== 'setting' && !DIRECT_OK[m[2]]) problems.push(`${f}:${line(m.index)}: reads ${m[2]} through ${m[1]}(); use setting(env, '${m[2]}') from src/core/settings.ts`);
  }
}
problems.push(...longFunctions());
const layers = spawnSync(process.execPath, [join(root, 'scripts', 'layers.mjs')], { stdio: 'inherit' });
if (layers.status !== 0) problems.push('imports against the layering (scripts/layers.mjs)');
for (const p of problems) console.error(p);
const cyc = spawnSync(process.execPath, [join(root, 'scripts', 'cycles.mjs')], { stdio: 'inherit' });
if (cyc.status !== 0) problems.push('import cycles');
const r = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['lint', '--diagnostic-level=error', '.'], { stdio: 'inherit' });
process.exit(problems.length > 0 || r.status !== 0 ? 1 : 0);
