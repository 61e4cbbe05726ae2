// The one declaration of the BRAIN_* variables: every one the program names is declared (and none
// that it no longer names), README's table is the module's, values are parsed one way with a bad
// one named; and the layering lint reports an import that goes up.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SETTINGS, setting, settingsTable } from '../../src/core/settings';
import { BrainError } from '../../src/core/errors';

const ROOT = path.resolve(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

test('every BRAIN_ variable named in src is declared in settings.ts, and every declared one is named', () => {
  const named = new Map<string, string>();
  for (const f of sources(SRC)) {
    if (f.endsWith(path.join('core', 'settings.ts'))) continue;
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/\bBRAIN_[A-Z0-9_]*[A-Z0-9]\b/g)) named.set(m[0], path.relative(ROOT, f));
  }
  const declared = new Set(Object.keys(SETTINGS));
  const missing = [...named].filter(([n]) => !declared.has(n)).map(([n, f]) => `${n} (${f})`);
  assert.deepEqual(missing, [], 'declare these in src/core/settings.ts (type, default, what, for whom)');
  const stale = [...declared].filter((n) => !named.has(n));
  assert.deepEqual(stale, [], 'no longer read anywhere: remove them from src/core/settings.ts');
  assert.ok(declared.size >= 30, `${declared.size} settings`);
});

test("docs/configuration.md's Environment table is the one the module generates", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const m = /<!-- settings:begin[^>]*-->\n([\s\S]*?)\n<!-- settings:end -->/.exec(readme);
  assert.ok(m, 'docs/configuration.md has the settings markers');
  assert.equal(m[1], settingsTable(), 'regenerate it: node --import tsx scripts/settings-table.mjs');
  for (const n of Object.keys(SETTINGS)) assert.match(m[1], new RegExp(`\\| \`${n}\` \\|`));
});

test('values are parsed once: defaults when unset or empty, units as declared', () => {
  assert.equal(setting({}, 'BRAIN_QUIET_SECONDS'), 600);
  assert.equal(setting({ BRAIN_QUIET_SECONDS: '' }, 'BRAIN_QUIET_SECONDS'), 600);
  assert.equal(setting({ BRAIN_QUIET_SECONDS: '0' }, 'BRAIN_QUIET_SECONDS'), 0);
  assert.equal(setting({ BRAIN_WATCH_POLL_SECONDS: '2' }, 'BRAIN_WATCH_POLL_SECONDS'), 2);
  assert.equal(setting({ BRAIN_SQL_TIMEOUT: '500ms' }, 'BRAIN_SQL_TIMEOUT'), 500);
  assert.equal(setting({ BRAIN_SQL_MAX_BYTES: '8k' }, 'BRAIN_SQL_MAX_BYTES'), 8192);
  assert.equal(setting({}, 'BRAIN_SQL_TIMEOUT'), undefined);
  assert.equal(setting({ HOME: '/h' }, 'BRAIN_HOME'), path.join('/h', '.brain'));
  assert.equal(setting({ BRAIN_HOME: 'rel' }, 'BRAIN_HOME'), path.resolve('rel'));
  assert.deepEqual(setting({ BRAIN_SSH_COMMAND: '  ssh  -F cfg ' }, 'BRAIN_SSH_COMMAND'), ['ssh', '-F', 'cfg']);
  assert.deepEqual(setting({}, 'BRAIN_SSH_COMMAND'), ['ssh']);
  assert.equal(setting({ BRAIN_HASH_THREAD: '0' }, 'BRAIN_HASH_THREAD'), false);
  assert.equal(setting({}, 'BRAIN_HASH_THREAD'), true);
  assert.equal(setting({ BRAIN_NO_SQLITE: '1' }, 'BRAIN_NO_SQLITE'), true);
  assert.equal(setting({ BRAIN_DUCKDB_THREADS: '2' }, 'BRAIN_DUCKDB_THREADS'), 2);
});

test('a bad value stops with an error naming the variable and the accepted form', () => {
  assert.throws(
    () => setting({ BRAIN_SQL_TIMEOUT: 'later' }, 'BRAIN_SQL_TIMEOUT'),
    (e: unknown) => e instanceof BrainError && /BRAIN_SQL_TIMEOUT=later is not valid/.test(e.message) && /500ms/.test(e.hint ?? ''),
  );
  assert.throws(() => setting({ BRAIN_SQL_MAX_BYTES: '12' }, 'BRAIN_SQL_MAX_BYTES'), /BRAIN_SQL_MAX_BYTES=12 is not valid/);
});

test('a bad value of a lenient setting is said once on stderr and the default is used', () => {
  const script = `
    const { setting } = require(${JSON.stringify(path.join(SRC, 'core', 'settings.ts'))});
    const env = { BRAIN_IO_TIMEOUT: 'soon', BRAIN_DUCKDB_THREADS: '0' };
    console.log(JSON.stringify([setting(env, 'BRAIN_IO_TIMEOUT'), setting(env, 'BRAIN_IO_TIMEOUT'), setting(env, 'BRAIN_DUCKDB_THREADS') ?? null]));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', env: { ...process.env } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [120, 120, null]);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.filter((l) => l.includes('BRAIN_IO_TIMEOUT=soon is not valid')).length, 1, r.stderr);
  assert.match(r.stderr, /BRAIN_IO_TIMEOUT=soon is not valid \(a number of seconds, 0 or more\); using the default, 120/);
  assert.match(r.stderr, /BRAIN_DUCKDB_THREADS=0 is not valid/);
});

test('the layering: src today has no upward import; one going up, or a file in no layer, is reported', async () => {
  const { violations, missingPaths } = (await import(path.join(ROOT, 'scripts', 'layers.mjs'))) as { violations: (src?: string) => string[]; missingPaths: (src?: string) => string[] };
  assert.deepEqual(violations(), []);
  assert.deepEqual(missingPaths(), [], 'every path a layer names exists');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-layers-'));
  try {
    const put = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
      fs.writeFileSync(path.join(tmp, rel), text);
    };
    put('core/floor/a.ts', "import { x } from '../cache/b';\nimport type { Y } from '../../cli/c';\nexport const a = x;\n");
    put('core/cache/b.ts', "import { a } from '../floor/a';\nexport const x = 1;\n");
    put('cli/c.ts', 'export type Y = 1;\n');
    put('core/nowhere/d.ts', 'export const d = 1;\n');
    const v = violations(tmp);
    assert.equal(v.length, 3, v.join('\n'));
    assert.match(v.join('\n'), /core\/floor\/a\.ts imports src\/core\/cache\/b\.ts: layer floor may not import from layer caches/);
    assert.match(v.join('\n'), /core\/floor\/a\.ts imports src\/cli\/c\.ts/);
    assert.match(v.join('\n'), /core\/nowhere\/d\.ts: in no layer/);
    // A layer that names a path the tree does not hold is reported too (the tmp tree holds none but floor and cache).
    const missing = missingPaths(tmp);
    assert.ok(missing.some((m) => m.includes('names src/core/agents, which does not exist')), missing.join('\n'));
    assert.ok(!missing.some((m) => m.includes('src/core/floor,')), missing.join('\n'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
