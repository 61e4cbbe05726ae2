#!/usr/bin/env node
// `npm run test:agents-latest`: the real-agent suite (test/agents) against the newest published
// Claude Code, Codex, Pi, Copilot CLI, Qwen Code and Factory Droid, beside the pinned ones, so a new agent release that changes its
// transcript format is caught before users meet it. Non-blocking: it reports and exits 0 (use
// --strict to exit 1 when the newest release breaks a case the pinned one passes).
//
// The newest versions are installed into a folder outside the repository (default
// $TMPDIR/agent-brain-agents-latest, reused between runs), never into node_modules. Then both
// runs keep the transcripts the CLIs wrote, and the report lists, per agent: the versions, the
// cases that fail only with the newest release (and which part of brain that case exercises), and
// how the transcript format differs (line kinds and fields that appeared or disappeared).
//
//   node scripts/agents-latest.mjs [--prefix DIR] [--all] [--strict] [--only cc,codex,pi,opencode]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT_CLIS } from './setup/40-agents.mjs';

const root = path.resolve(new URL('..', import.meta.url).pathname);
process.chdir(root);

const AGENTS = {
  cc: { pkg: '@anthropic-ai/claude-code', bin: 'claude', env: 'BRAIN_TEST_CLAUDE', label: 'Claude Code' },
  codex: { pkg: '@openai/codex', bin: 'codex', env: 'BRAIN_TEST_CODEX', label: 'Codex' },
  pi: { pkg: '@mariozechner/pi-coding-agent', bin: 'pi', env: 'BRAIN_TEST_PI', label: 'Pi' },
  opencode: { pkg: 'opencode-ai', bin: 'opencode', env: 'BRAIN_TEST_OPENCODE', label: 'OpenCode' },
  copilot_cli: { pkg: '@github/copilot', bin: 'copilot', env: 'BRAIN_TEST_COPILOT_CLI', label: 'Copilot CLI' },
  qwen: { pkg: '@qwen-code/qwen-code', bin: 'qwen', env: 'BRAIN_TEST_QWEN', label: 'Qwen Code' },
  droid: { pkg: 'droid', bin: 'droid', env: 'BRAIN_TEST_DROID', label: 'Factory Droid' },
  gemini: { pkg: '@google/gemini-cli', bin: 'gemini', env: 'BRAIN_TEST_GEMINI', label: 'Gemini CLI' },
  cline_cli: { pkg: 'cline', bin: 'cline', env: 'BRAIN_TEST_CLINE', label: 'Cline CLI' },
  continue: { pkg: '@continuedev/cli', bin: 'cn', env: 'BRAIN_TEST_CN', label: 'Continue CLI' },
};

/** Which part of brain a failing case exercises (by the case's name in test/agents/suite.ts etc.). */
const AREAS = [
  [/normalises/, 'the dialect (src/core/agents/<lane>/dialect.ts)'],
  [/search/, 'the turn index and search (src/core/index, src/core/recall)'],
  [/hook|init/, 'hooks (src/core/setup/hooks.ts, src/core/floor/hook.ts)'],
  [/resum|fork|reopen|rewrit/, 'rewrite handling (generations in src/core/floor/classify.ts)'],
  [/captures|verify/, 'capture (src/core/floor, src/core/agents/<lane>/paths.ts)'],
];

function args(argv) {
  const o = { prefix: path.join(os.tmpdir(), 'agent-brain-agents-latest'), all: false, strict: false, only: Object.keys(AGENTS) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--prefix') o.prefix = path.resolve(argv[++i] ?? '');
    else if (a === '--all') o.all = true;
    else if (a === '--strict') o.strict = true;
    else if (a === '--only') o.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--help' || a === '-h') {
      console.log(`usage: node scripts/agents-latest.mjs [--prefix DIR] [--all] [--strict] [--only ${Object.keys(AGENTS).join(',')}]`);
      process.exit(0);
    } else {
      console.error(`agents-latest: unknown option ${a} (see --help)`);
      process.exit(2);
    }
  }
  for (const l of o.only) {
    if (!AGENTS[l]) {
      console.error(`agents-latest: --only takes ${Object.keys(AGENTS).join(', ')}; got "${l}"`);
      process.exit(2);
    }
  }
  const rel = path.relative(root, o.prefix);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
    console.error(`agents-latest: --prefix ${o.prefix} is inside the repository; use a folder outside it (the repo's node_modules is never touched)`);
    process.exit(2);
  }
  return o;
}

function run(cmd, argv, opts = {}) {
  return spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts });
}

function npmVersion(pkg) {
  const r = run('npm', ['view', pkg, 'version']);
  if (r.status !== 0) throw new Error(`npm view ${pkg} version failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

// ---- the suite, once per set of binaries ----------------------------------------------------

function runSuite(name, lanes, binEnv, keepDir) {
  fs.rmSync(keepDir, { recursive: true, force: true });
  fs.mkdirSync(keepDir, { recursive: true });
  const files = lanes.map((l) => `test/agents/${l}.test.ts`);
  console.log(`• ${name}: node --test ${files.join(' ')}`);
  const r = run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=3', ...files], {
    env: { ...process.env, TZ: 'UTC', BRAIN_AGENTS_KEEP: keepDir, ...binEnv },
    timeout: 20 * 60_000,
  });
  const results = parseTap(r.stdout);
  for (const [lane, cases] of Object.entries(results)) {
    const bad = cases.filter((c) => !c.ok).length;
    console.log(`  ${lane}: ${cases.length - bad}/${cases.length} passed`);
  }
  return results;
}

/** TAP from node:test: `# Subtest: real agent <lane>` opens a suite; indented `ok N - name` /
 * `not ok N - name` are its cases, followed by a YAML block whose `error:` we keep a few lines of. */
function parseTap(tap) {
  const out = {};
  let lane = null;
  let last = null;
  let inError = false;
  for (const line of tap.split('\n')) {
    const suite = /^# Subtest: real agent (\w+)/.exec(line);
    if (suite) {
      lane = suite[1];
      out[lane] ??= [];
      continue;
    }
    const c = /^ {4}(not )?ok \d+ - (.*)$/.exec(line);
    if (c && lane) {
      last = { name: c[2].replace(/ # .*$/, ''), ok: !c[1], error: [] };
      out[lane].push(last);
      inError = false;
      continue;
    }
    if (last && !last.ok) {
      if (/^ {6}error: /.test(line)) {
        inError = true;
        const first = line.replace(/^ {6}error: (\|-)?/, '').trim();
        if (first) last.error.push(first.replace(/^'|'$/g, ''));
        continue;
      }
      if (inError) {
        if (/^ {8}/.test(line) && last.error.length < 6) last.error.push(line.trim());
        else if (!/^ {8}/.test(line)) inError = false;
      }
    }
  }
  return out;
}

// ---- transcript shapes --------------------------------------------------------------------

/** A line's kind, as each dialect tells lines apart. */
function kindOf(lane, j) {
  if (lane === 'cc') {
    const blocks = Array.isArray(j.message?.content) ? j.message.content.map((b) => b?.type).join('+') : typeof j.message?.content;
    return [j.type, j.subtype, j.attachment?.type, j.message ? blocks : undefined].filter(Boolean).join('/');
  }
  if (lane === 'codex') return [j.type, j.payload?.type, j.payload?.item?.type, j.payload?.role].filter(Boolean).join('/');
  // Row records (src/core/agents/kit/sqlite.ts): a table's columns are its shape.
  if (lane === 'opencode') return [j.op, j.table, Array.isArray(j.cols) ? j.cols.map((c) => c[0]).join(',') : undefined].filter(Boolean).join('/');
  return [j.type, j.message?.role].filter(Boolean).join('/');
}

/** Dotted key paths of an object, three levels deep, arrays flattened as []. */
function fieldPaths(v, prefix = '', depth = 0, out = new Set()) {
  if (depth >= 3 || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) {
    for (const x of v) fieldPaths(x, `${prefix}[]`, depth, out);
    return out;
  }
  for (const [k, x] of Object.entries(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    fieldPaths(x, p, depth + 1, out);
  }
  return out;
}

function shapes(lane, dir) {
  const kinds = new Map();
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.json')) {
        // A document rewritten whole (Cline CLI, Continue): its fields, as one kind per file name.
        let j;
        try {
          j = JSON.parse(fs.readFileSync(p, 'utf8'));
        } catch {
          continue;
        }
        const k = `document ${e.name.replace(/^[^.]*/, '*')}`;
        if (!kinds.has(k)) kinds.set(k, new Set());
        for (const f of fieldPaths(j)) kinds.get(k).add(f);
      } else if (p.endsWith('.jsonl')) {
        for (const line of fs.readFileSync(p, 'utf8').split('\n')) {
          if (!line.trim()) continue;
          let j;
          try {
            j = JSON.parse(line);
          } catch {
            continue;
          }
          const k = kindOf(lane, j);
          if (!kinds.has(k)) kinds.set(k, new Set());
          for (const f of fieldPaths(j)) kinds.get(k).add(f);
        }
      }
    }
  };
  walk(path.join(dir, lane));
  return kinds;
}

function diffShapes(before, after) {
  const lines = [];
  for (const k of [...after.keys()].sort()) if (!before.has(k)) lines.push(`+ line kind ${k}`);
  for (const k of [...before.keys()].sort()) if (!after.has(k)) lines.push(`- line kind ${k}`);
  for (const k of [...after.keys()].sort()) {
    if (!before.has(k)) continue;
    const b = before.get(k);
    const a = after.get(k);
    const added = [...a].filter((f) => !b.has(f)).sort();
    const gone = [...b].filter((f) => !a.has(f)).sort();
    if (added.length) lines.push(`  ${k}: + ${added.join(', ')}`);
    if (gone.length) lines.push(`  ${k}: - ${gone.join(', ')}`);
  }
  return lines;
}

// ---- main -----------------------------------------------------------------------------------

const o = args(process.argv.slice(2));
const rows = [];
for (const lane of o.only) {
  const a = AGENTS[lane];
  const pinned = AGENT_CLIS[a.pkg] ?? '(not pinned)';
  let latest;
  try {
    latest = npmVersion(a.pkg);
  } catch (e) {
    console.error(`agents-latest: ${e.message}`);
    process.exit(1);
  }
  rows.push({ lane, ...a, pinned, latest });
}
for (const r of rows) console.log(`${r.label.padEnd(12)} pinned ${r.pinned.padEnd(10)} newest ${r.latest}${r.pinned === r.latest ? '  (same)' : ''}`);
const lanes = rows.filter((r) => o.all || r.pinned !== r.latest).map((r) => r.lane);
if (lanes.length === 0) {
  console.log('\nThe pinned versions are the newest published: nothing to compare (--all runs the suite anyway).');
  process.exit(0);
}

const toInstall = rows.filter((r) => lanes.includes(r.lane)).map((r) => `${r.pkg}@${r.latest}`);
fs.mkdirSync(o.prefix, { recursive: true });
console.log(`• npm install --prefix ${o.prefix} ${toInstall.join(' ')}`);
const inst = run('npm', ['install', '--prefix', o.prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', ...toInstall], { stdio: 'inherit' });
if (inst.status !== 0) {
  console.error(`agents-latest: installing ${toInstall.join(' ')} into ${o.prefix} failed (exit ${inst.status})`);
  process.exit(1);
}
const latestEnv = {};
for (const r of rows.filter((x) => lanes.includes(x.lane))) {
  const bin = path.join(o.prefix, 'node_modules', '.bin', r.bin);
  if (!fs.existsSync(bin)) {
    console.error(`agents-latest: ${bin} is missing after the install`);
    process.exit(1);
  }
  latestEnv[r.env] = bin;
}

console.log('• build');
const b = run(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (b.status !== 0) process.exit(1);

const work = path.join(o.prefix, 'runs');
const pinnedRes = runSuite('pinned', lanes, {}, path.join(work, 'pinned'));
const latestRes = runSuite('newest', lanes, latestEnv, path.join(work, 'newest'));

let broke = 0;
console.log('\n=== What the newest releases change ===');
for (const r of rows.filter((x) => lanes.includes(x.lane))) {
  console.log(`\n## ${r.label} ${r.pinned} -> ${r.latest}`);
  const p = new Map((pinnedRes[r.lane] ?? []).map((c) => [c.name, c]));
  const l = latestRes[r.lane] ?? [];
  if (l.length === 0) console.log('  the suite did not run for it (see the output above)');
  const newly = l.filter((c) => !c.ok && p.get(c.name)?.ok !== false);
  const both = l.filter((c) => !c.ok && p.get(c.name)?.ok === false);
  broke += newly.length;
  if (newly.length === 0 && l.length) console.log(`  every case that passes with ${r.pinned} passes with ${r.latest}`);
  for (const c of newly) {
    const area = AREAS.find(([re]) => re.test(c.name))?.[1].replace('<lane>', r.lane) ?? 'see the case';
    console.log(`  BROKEN by ${r.latest}: "${c.name}"\n    exercises ${area}`);
    for (const e of c.error) console.log(`    | ${e}`);
  }
  if (both.length) console.log(`  (also failing with the pinned version, so not the release's doing: ${both.map((c) => `"${c.name}"`).join(', ')})`);
  const d = diffShapes(shapes(r.lane, path.join(work, 'pinned')), shapes(r.lane, path.join(work, 'newest')));
  console.log(d.length ? `  transcript format changes (line kinds, fields):\n${d.map((x) => `    ${x}`).join('\n')}` : '  no transcript format change seen in the suite\'s sessions');
}
console.log(`\nTranscripts kept under ${work}/{pinned,newest}/<lane>/ for a closer look.`);
process.exit(o.strict && broke > 0 ? 1 : 0);
