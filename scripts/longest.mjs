#!/usr/bin/env node
// Function lengths over src/, measured by Biome's own parser (its rule
// complexity/noExcessiveLinesPerFunction): the lines of a function's body, signature and closing
// brace not counted; a function nested in another counts in the outer one too. Functions, methods
// and arrow functions alike. lint.mjs fails on any function in src/ over LIMIT that LONG_OK does not
// name. `node scripts/longest.mjs [min]` lists every function of min lines or more (default 60),
// longest first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);

/** The most lines a function body in src/ may have. */
export const LIMIT = 100;

/** Functions allowed over LIMIT, each with why: 'path:name' → reason. Lint reports an entry that no
 * longer names a function over the limit, so the list holds only what is still long. */
export const LONG_OK = {};

const RULE = 'complexity/noExcessiveLinesPerFunction';

/** The name a function is known by, from its line and the column where Biome places its start:
 * `function name`, a method's `name(`, `name = ` or `name: ` before an arrow function or function
 * expression, or `callback of f` for one handed straight to a call `f(`. */
export function nameAt(line, column) {
  const from = line.slice(column - 1);
  const before = line.slice(0, column - 1);
  const m =
    /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)/.exec(from) ??
    /^(?:(?:public|private|protected|static|async|get|set|override)\s+)*\*?\s*(?!(?:function|async)\b)([\w$]+)\s*[<(]/.exec(from) ??
    /([\w$]+)\s*(?::[^=]*)?=\s*$/.exec(before) ??
    /([\w$]+)\s*:\s*$/.exec(before);
  if (m) return m[1];
  const call = /([\w$][\w$.]*)\s*\([^()]*$/.exec(before);
  return call ? `callback of ${call[1]}` : '(anonymous)';
}

/** Every function under `dirs` (paths relative to `base`) whose body has `min` lines or more:
 * { file, line, name, lines }, longest first. */
export function lengths(min, dirs = ['src'], base = root) {
  const tmp = mkdtempSync(join(tmpdir(), 'brain-longest-'));
  try {
    const config = {
      files: { includes: dirs.map((d) => `${resolve(base, d)}/**`) },
      formatter: { enabled: false },
      assist: { enabled: false },
      linter: { enabled: true, rules: { complexity: { noExcessiveLinesPerFunction: { level: 'error', options: { maxLines: Math.max(1, min - 1) } } } } },
    };
    writeFileSync(join(tmp, 'biome.json'), JSON.stringify(config));
    const r = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['lint', `--config-path=${tmp}`, `--only=${RULE}`, '--max-diagnostics=none', '--reporter=json', ...dirs], {
      cwd: base,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    let report;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      throw new Error(`longest.mjs: Biome gave no JSON report (exit ${r.status}): ${(r.stderr || r.stdout).slice(0, 2000)}`);
    }
    const texts = new Map();
    const out = [];
    for (const d of report.diagnostics ?? []) {
      if (d.category !== `lint/${RULE}`) continue;
      const lines = Number(/\((\d+)\)/.exec(d.message)?.[1]);
      // Biome's JSON report is marked experimental: a shape this does not know is said, not guessed at.
      if (!Number.isInteger(lines) || typeof d.location?.path !== 'string' || !d.location.start) throw new Error(`longest.mjs: a Biome diagnostic of a shape this script does not know: ${JSON.stringify(d).slice(0, 500)}`);
      const file = relative(base, resolve(base, d.location.path));
      if (!texts.has(file)) texts.set(file, readFileSync(resolve(base, file), 'utf8').split('\n'));
      const { line, column } = d.location.start;
      out.push({ file, line, name: nameAt(texts.get(file)[line - 1] ?? '', column), lines });
    }
    return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Lint's check: each function over LIMIT that LONG_OK does not name, and each LONG_OK entry that
 * names no function over LIMIT. */
export function problems(dirs = ['src'], base = root, allowed = LONG_OK, limit = LIMIT) {
  const long = lengths(limit + 1, dirs, base);
  const out = [];
  for (const f of long) {
    if (!allowed[`${f.file}:${f.name}`]) out.push(`${f.file}:${f.line}: function ${f.name} has ${f.lines} lines, over ${limit}; split it (scripts/longest.mjs lists the long ones)`);
  }
  for (const key of Object.keys(allowed)) {
    if (!long.some((f) => `${f.file}:${f.name}` === key)) out.push(`scripts/longest.mjs: LONG_OK names ${key}, which is no longer over ${limit} lines; take it off the list`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const min = Number(process.argv[2] ?? 60);
  if (!Number.isInteger(min) || min < 1) {
    console.error(`usage: node scripts/longest.mjs [min lines, a whole number of 1 or more; default 60]; got ${process.argv[2]}`);
    process.exit(2);
  }
  for (const f of lengths(min)) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}${LONG_OK[`${f.file}:${f.name}`] ? '  (allowed: see LONG_OK)' : ''}`);
}
