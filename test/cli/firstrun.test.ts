// A first run on any machine: every entry point says an old Node is too old (instead of crashing);
// init will not pin a Node that cannot run brain, and doctor runs each pinned command; a mistyped
// verb is answered with the verb meant; piped tables keep every character; cite takes the forms
// citations print.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, brain, sandbox, type Sandbox } from '../helpers/env';

const made: Sandbox[] = [];
after(() => {
  for (const s of made) s.cleanup();
});
function box(name: string, fixtures = false): Sandbox {
  const sb = sandbox({ name, fixtures });
  made.push(sb);
  return sb;
}

/** A Node that reports itself as 20.11.1: this Node with a preload, as a program of its own (what
 * init and doctor would find pinned). */
function oldNode(sb: Sandbox): { preload: string; exe: string } {
  const preload = path.join(sb.dir, 'old-node.js');
  fs.writeFileSync(preload, `Object.defineProperty(process.versions, 'node', { value: '20.11.1' });\n`);
  const exe = path.join(sb.dir, 'bin', 'node');
  fs.mkdirSync(path.dirname(exe), { recursive: true });
  fs.writeFileSync(exe, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -r ${JSON.stringify(preload)} "$@"\n`, { mode: 0o755 });
  return { preload, exe };
}

/** Nodes older than 22 on PATH (the system's, on a machine that has one). */
function realOldNodes(): string[] {
  const out: string[] = [];
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(d, 'node');
    if (!d || !fs.existsSync(p)) continue;
    const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    if (/^\d+\./.test(v) && Number(v.split('.')[0]) < 22 && !out.includes(fs.realpathSync(p))) out.push(fs.realpathSync(p));
  }
  return out;
}

const ENTRIES = ['dist/cli.js', 'dist/hook.js', 'dist/search.js', 'dist/cli-mcp.js', 'bin/brain'];

test('every entry point says Node is too old, with exit 3, instead of crashing', () => {
  const sb = box('oldnode');
  const { preload } = oldNode(sb);
  for (const e of ENTRIES) {
    for (const args of [['stats'], ['search', 'x'], ['hook', 'cc'], ['mcp']]) {
      const r = spawnSync(process.execPath, ['-r', preload, path.join(REPO, e), ...args], { env: sb.env, encoding: 'utf8', input: '' });
      assert.equal(r.status, 3, `${e} ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /Node 20\.11\.1 is too old; Agent Brain needs Node 22 or newer/, e);
    }
  }
  // A real older Node, where the machine has one (the system's Node 20 here).
  for (const node of realOldNodes()) {
    for (const e of ENTRIES) {
      const r = spawnSync(node, [path.join(REPO, e), 'stats'], { env: sb.env, encoding: 'utf8' });
      assert.equal(r.status, 3, `${node} ${e}: status ${r.status} signal ${r.signal} ${r.stderr}`);
      assert.match(r.stderr, /is too old; Agent Brain needs Node 22/);
    }
  }
});

test('npm start prints next steps that run, under the Node on the user\'s PATH', () => {
  const sb = box('start');
  // A PATH whose node is old, as on a machine with the system's Node 20: start.mjs runs itself
  // again under the devDependency's Node 22.
  const { exe } = oldNode(sb);
  const PATH = [path.dirname(exe), ...(process.env.PATH ?? '').split(path.delimiter).filter((d) => !d.includes(`${path.sep}node_modules${path.sep}`))].join(path.delimiter);
  const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'start.mjs')], { cwd: REPO, env: { ...sb.env, PATH }, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const next = r.stdout.split('\n').filter((l) => /^\s+\S.*dist\/cli\.js verify/.test(l));
  assert.equal(next.length, 1, r.stdout);
  const cmd = next[0].trim().split(/\s+/).slice(0, 3);
  assert.notEqual(cmd[0], 'node', 'the node on PATH is too old: the step names the Node 22 that ran');
  const v = spawnSync(cmd[0], [path.join(REPO, cmd[1]), 'verify'], { cwd: REPO, env: { ...sb.env, PATH }, encoding: 'utf8' });
  assert.equal(v.status, 0, `${next[0]}: ${v.stderr}`);
});

test('init refuses to pin a Node that cannot run brain, and changes nothing', () => {
  const sb = box('init-old');
  const { exe } = oldNode(sb);
  fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
  const r = brain(sb, ['init', '--no-timer'], { env: { BRAIN_BIN: `${exe} ${path.join(REPO, 'bin', 'brain')}` } });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /init would pin .*Node 20\.11\.1; brain needs Node 22 or newer/);
  assert.equal(fs.existsSync(path.join(sb.home, '.claude', 'settings.json')), false, 'no hook was written');
  assert.equal(fs.existsSync(path.join(sb.brain, 'config.toml')), false, 'no config was written');
});

test('doctor runs each pinned command and fails naming one that does not start', () => {
  const sb = box('doctor-pinned');
  fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
  const ok = brain(sb, ['init', '--no-timer']);
  assert.ok(ok.status === 0 || ok.status === 1, ok.stdout + ok.stderr);
  const settings = path.join(sb.home, '.claude', 'settings.json');
  const text = fs.readFileSync(settings, 'utf8');
  assert.ok(text.includes(process.execPath), 'the hook pins this Node');
  const good = JSON.parse(brain(sb, ['doctor', '--offline', '--json']).stdout);
  assert.ok(good.checks.some((c: any) => c.name === 'pinned settings.json' && c.level === 'ok'), JSON.stringify(good.checks));
  // As init run by an old Node left it: that Node pinned.
  const { exe } = oldNode(sb);
  fs.writeFileSync(settings, text.split(JSON.stringify(process.execPath).slice(1, -1)).join(exe));
  const r = brain(sb, ['doctor', '--offline', '--json']);
  assert.equal(r.status, 1);
  const bad = JSON.parse(r.stdout).checks.find((c: any) => c.name === 'pinned settings.json');
  assert.equal(bad?.level, 'fail', r.stdout);
  assert.match(bad.detail, new RegExp(`${settings.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} runs .* which does not start .*too old`));
});

test('a mistyped verb says which one was meant, without the whole help', () => {
  const sb = box('typo');
  for (const [typed, meant] of [['serch', 'search'], ['stast', 'stats'], ['recrod', 'record'], ['doctr', 'doctor']]) {
    const r = brain(sb, [typed]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`unknown command "${typed}": did you mean "brain ${meant}"\\?`));
    assert.ok(r.stderr.split('\n').length <= 3, r.stderr);
  }
  assert.doesNotMatch(brain(sb, ['xyzzyplugh']).stderr, /did you mean/);
});

test('a table piped to a program keeps its headers and values whole', () => {
  const sb = box('piped', true);
  assert.equal(brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
  const long = 'a value longer than any terminal would show in one column of a table of many columns, '.repeat(3).trim();
  const r = brain(sb, ['sql', `SELECT '${long}' AS a_rather_long_column_name, '${long}' AS another_long_column_name, 42 AS tokens_cache_creation_input`]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.split('\n')[0], /^a_rather_long_column_name\s+another_long_column_name\s+tokens_cache_creation_input$/);
  assert.ok(r.stdout.split('\n')[2].includes(long), r.stdout);
  assert.doesNotMatch(r.stdout, /…/);
});

test('cite takes the range as citations print it (46-48) and an absolute path inside the floor', () => {
  const sb = box('cite', true);
  assert.equal(brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
  const lake = path.join(sb.brain, 'lake');
  const rel = (function find(d: string): string {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        const f = find(p);
        if (f) return f;
      } else if (p.endsWith('.jsonl') && fs.readFileSync(p, 'utf8').split('\n').length > 50) return path.relative(sb.brain, p);
    }
    return '';
  })(lake);
  assert.ok(rel, 'a lake file of more than 50 lines');
  const want = JSON.parse(brain(sb, ['cite', rel, '46..48', '--json']).stdout);
  for (const [p, range] of [[rel, '46-48'], [rel, '46–48'], [path.join(sb.brain, rel), '46..48'], [path.join(sb.brain, rel), '46-48']]) {
    const r = brain(sb, ['cite', p, range, '--json']);
    assert.equal(r.status, 0, `${p} ${range}: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), want, `${p} ${range}`);
  }
  const outside = brain(sb, ['cite', '/etc/passwd', '1-2']);
  assert.equal(outside.status, 2);
  assert.match(outside.stderr, /is not a file of the floor/);
});

test('show of a long session goes through the pager on a terminal, not through a pipe', () => {
  const sb = box('pager', true);
  assert.equal(brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
  const marker = path.join(sb.dir, 'paged.txt');
  const env = { ...sb.env, PAGER: `tee ${marker} >/dev/null` };
  const cli = path.join(REPO, 'dist', 'cli.js');
  // script(1) gives the command a terminal of 40 rows.
  const onTty = (args: string) =>
    spawnSync('script', ['-qec', `stty rows 40 cols 120; ${JSON.stringify(process.execPath)} ${cli} ${args}`, '/dev/null'], { env, encoding: 'utf8', timeout: 60_000 });
  const long = onTty('show large-session');
  assert.equal(long.status, 0, long.stdout + long.stderr);
  assert.ok(fs.existsSync(marker), 'the pager ran');
  assert.match(fs.readFileSync(marker, 'utf8'), /^# /);
  fs.rmSync(marker);
  // Short enough for the screen: printed as is.
  assert.equal(onTty('show large-session --turns 1').status, 0);
  assert.equal(fs.existsSync(marker), false, 'no pager for a page that fits');
  // Through a pipe: never.
  const piped = brain(sb, ['show', 'large-session'], { env: { PAGER: `tee ${marker} >/dev/null` } });
  assert.equal(piped.status, 0);
  assert.equal(fs.existsSync(marker), false, 'no pager into a pipe');
  assert.match(piped.stdout, /^# /);
});

test('init --dry-run names every file init would change, and changes none', () => {
  const sb = box('dry-run');
  fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(sb.home, '.codex'), { recursive: true });
  const snapshot = () => {
    const out = new Map<string, string>();
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isSymbolicLink()) out.set(p, `link to ${fs.readlinkSync(p)}`);
        else if (e.isDirectory()) walk(p);
        else out.set(p, fs.readFileSync(p, 'utf8'));
      }
    };
    walk(sb.dir);
    return out;
  };
  const before = snapshot();
  const store = path.join(sb.dir, 'store');
  const dry = brain(sb, ['init', '--store', store, '--dry-run']);
  assert.equal(dry.status, 0, dry.stdout + dry.stderr);
  assert.deepEqual([...snapshot().entries()], [...before.entries()], 'nothing written');
  assert.equal(fs.existsSync(store), false, 'no store folder made');
  assert.match(dry.stdout, /dry run: nothing was changed/);
  assert.match(dry.stdout, /timer: would write .*brain-tick/);
  // The real run (without the timer, which would start systemd units) changes only files the
  // dry run named.
  const real = brain(sb, ['init', '--store', store, '--no-timer']);
  assert.ok(real.status === 0 || real.status === 1, real.stdout + real.stderr);
  const after = snapshot();
  const changed = [...after.keys()].filter((f) => before.get(f) !== after.get(f) && !f.startsWith(path.join(sb.brain, 'state')) && !f.includes(`${path.sep}.brain${path.sep}.`));
  assert.ok(changed.length >= 2, `init changed: ${changed.join(', ')}`);
  for (const f of changed) {
    const named = dry.stdout.includes(f) || (f.startsWith(sb.brain) && dry.stdout.includes(path.join(sb.brain, 'config.toml')) && f.endsWith('config.toml'));
    assert.ok(named, `${f} changed by init but not named by --dry-run:\n${dry.stdout}`);
  }
  assert.ok(dry.stdout.includes(store), 'the store folder it would create');
});

test('several words find the sessions holding all of them; quotes find a phrase; the total does not depend on --limit', () => {
  const sb = box('words', true);
  assert.equal(brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
  const json = (args: string[]) => {
    const r = brain(sb, ['search', ...args, '--json']);
    return { status: r.status, j: r.stdout ? JSON.parse(r.stdout) : null, err: r.stderr };
  };
  // "add another hello bob console log": the words, not the phrase "add bob".
  const words = json(['add', 'bob']);
  assert.equal(words.status, 0, words.err);
  assert.ok(words.j.hits.some((h: any) => h.session === 'git-ai-gemini-session-simple'), words.j.header);
  assert.match(words.j.header, /with all of "add", "bob"/);
  assert.equal(json(['add bob']).status, 1, 'as one phrase: not said');
  assert.equal(json(['"add bob"']).status, 1, 'quotes the shell kept: a phrase');
  // Every hit holds each word.
  const many = json(['test', 'file']);
  for (const h of many.j.hits) {
    const shown = JSON.parse(brain(sb, ['show', h.session, '--machine', h.machine, '--agent', h.agent, '--json', '--full']).stdout);
    const text = JSON.stringify(shown.turns).toLowerCase();
    assert.ok(text.includes('test') && text.includes('file'), `${h.session} holds both words`);
  }
  // The total is the same whatever --limit lists.
  const totals = new Set([1, 3, 50].map((n) => json(['test', 'file', '--limit', String(n)]).j.total));
  assert.equal(totals.size, 1, `totals: ${[...totals].join(', ')}`);
});

test('a search with a store that holds no other machine says where it looked, never "scan (null)"', () => {
  const sb = box('store-header', true);
  const store = path.join(sb.dir, 'store');
  assert.equal(brain(sb, ['init', '--store', store, '--no-hooks', '--no-timer']).status, 0);
  assert.equal(brain(sb, ['record', '--no-caches'], { env: { BRAIN_QUIET_SECONDS: '0' } }).status, 0);
  const r = brain(sb, ['search', 'HBO shows', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const { header } = JSON.parse(r.stdout) as { header: string };
  assert.match(header, /this machine: turn index · store .*: scan · /, header);
  assert.doesNotMatch(header, /null|undefined/, header);
});
