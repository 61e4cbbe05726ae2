// Bad input: the floor stays byte-exact, nothing escapes BRAIN_HOME, each problem is counted and
// reported, and capture of the other files goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, listFiles, sandbox, CLI } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

const b = (s: string) => Buffer.from(s, 'utf8');

test('odd bytes inside lines are kept exactly: invalid UTF-8, BOM, CRLF, NUL, blank lines, a 64 MiB line', () => {
  const sb = sandbox({ name: 'bytes' });
  try {
    const dir = path.join(sb.home, '.claude', 'projects', 'odd');
    fs.mkdirSync(dir, { recursive: true });
    const files: Record<string, Buffer> = {
      'invalid-utf8.jsonl': Buffer.concat([b('{"a":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), b('"}\n{"ok":1}\n')]),
      'bom.jsonl': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"type":"user"}\n')]),
      'crlf.jsonl': b('{"a":1}\r\n{"b":2}\r\n'),
      'nul.jsonl': Buffer.concat([b('{"a":"'), Buffer.from([0, 0, 0]), b('"}\n'), Buffer.from([0, 0]), b('\n')]),
      'blank.jsonl': b('\n\n{"a":1}\n\n\n'),
      'huge.jsonl': Buffer.concat([b('{"big":"'), Buffer.alloc(64 * 1024 * 1024, 0x78), b('"}\n{"after":1}\n')]),
    };
    for (const [n, data] of Object.entries(files)) fs.writeFileSync(path.join(dir, n), data);
    const r = brain(sb, ['record', '--json']);
    assert.equal(r.status, 0, r.stderr);
    for (const [n, data] of Object.entries(files)) {
      assert.ok(fs.readFileSync(path.join(sb.brain, 'lake', 'cc', 'odd', n)).equals(data), `${n} byte-exact`);
    }
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    const line = (n: string) => m.find((x) => x.lake_path.endsWith('/' + n))!;
    assert.equal(line('blank.jsonl').line_to, 5);
    assert.equal(line('crlf.jsonl').line_to, 2);
    assert.equal(line('huge.jsonl').line_to, 2);
    assert.equal(line('huge.jsonl').byte_to, files['huge.jsonl'].length);
    assert.equal(brain(sb, ['verify']).status, 0);
  } finally {
    sb.cleanup();
  }
});

test('an unterminated last line waits in the spool, then is captured (flagged) when the file goes quiet or vanishes', () => {
  const sb = sandbox({ name: 'unterminated' });
  try {
    const dir = path.join(sb.home, '.pi', 'agent', 'sessions', '--proj--');
    fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, 'a.jsonl');
    const g = path.join(dir, 'b.jsonl');
    fs.writeFileSync(f, '{"line":1}\n{"torn":');
    fs.writeFileSync(g, '{"line":1}\n{"half');
    let r = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.equal(r.lanes.pi.pending, 2, 'two tails wait');
    const lake = path.join(sb.brain, 'lake', 'pi', '--proj--', 'a.jsonl');
    assert.equal(fs.readFileSync(lake, 'utf8'), '{"line":1}\n', 'only the complete line is on the floor');
    assert.ok(listFiles(path.join(sb.brain, 'spool', 'pi', 'pending')).some((n) => n.endsWith('.bytes')), 'the tail waits in the spool');
    // The line completes: no flag, one more line.
    fs.appendFileSync(f, '2}\n');
    r = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.equal(fs.readFileSync(lake, 'utf8'), '{"line":1}\n{"torn":2}\n');
    // b.jsonl vanishes with its tail waiting: the tail is captured from the spool, flagged.
    fs.rmSync(g);
    r = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.ok(r.warnings.some((w: any) => w.code === 'vanished-captured'), 'vanished tail reported');
    assert.equal(fs.readFileSync(path.join(sb.brain, 'lake', 'pi', '--proj--', 'b.jsonl'), 'utf8'), '{"line":1}\n{"half');
    // A quiet file: with BRAIN_QUIET_SECONDS=0 the waiting tail is captured now.
    fs.writeFileSync(path.join(dir, 'c.jsonl'), '{"x":1}\n{"no newline":true');
    r = JSON.parse(brain(sb, ['record', '--json'], { env: { BRAIN_QUIET_SECONDS: '0' } }).stdout);
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    const c = m.find((x) => x.lake_path.endsWith('c.jsonl'))!;
    assert.equal(c.unterminated, true);
    assert.equal(c.source, 'quiet');
    assert.ok(m.find((x) => x.lake_path.endsWith('b.jsonl') && x.source === 'vanished')?.unterminated);
    // It later continues the flagged line: a new generation keeps line numbers honest.
    fs.appendFileSync(path.join(dir, 'c.jsonl'), ',"more":1}\n');
    r = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.equal(r.lanes.pi.generations, 1);
    assert.equal(fs.readFileSync(path.join(sb.brain, 'lake', 'pi', '--proj--', 'c.g2.jsonl'), 'utf8'), '{"x":1}\n{"no newline":true,"more":1}\n');
    const v = brain(sb, ['verify']);
    assert.equal(v.status, 0, v.stdout);
  } finally {
    sb.cleanup();
  }
});

test('a file truncated mid-line opens a generation and its torn last line is never claimed as a line', () => {
  const sb = sandbox({ name: 'midline' });
  try {
    const dir = path.join(sb.home, '.codex', 'sessions', '2026', '01', '01');
    fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, 'rollout-x.jsonl');
    fs.writeFileSync(f, '{"a":1}\n{"b":2}\n{"c":3}\n');
    brain(sb, ['record']);
    fs.truncateSync(f, 12); // '{"a":1}\n{"b"'
    const r = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.equal(r.lanes.codex.generations, 1);
    assert.equal(fs.readFileSync(path.join(sb.brain, 'lake/codex/sessions/2026/01/01/rollout-x.jsonl'), 'utf8'), '{"a":1}\n{"b":2}\n{"c":3}\n');
    assert.equal(fs.readFileSync(path.join(sb.brain, 'lake/codex/sessions/2026/01/01/rollout-x.g2.jsonl'), 'utf8'), '{"a":1}\n');
    assert.equal(brain(sb, ['verify']).status, 0);
  } finally {
    sb.cleanup();
  }
});

test('odd names: invalid UTF-8, over-long, NFC/NFD twins, newline, leading dots; none escapes BRAIN_HOME', () => {
  const sb = sandbox({ name: 'names' });
  try {
    const dir = path.join(sb.home, '.claude', 'projects', 'names');
    fs.mkdirSync(dir, { recursive: true });
    const raw: Buffer[] = [
      Buffer.concat([b('bad-'), Buffer.from([0xff, 0xfe]), b('.jsonl')]),
      b('x'.repeat(245) + '.jsonl'),
      b('caf\u00e9.jsonl'),
      b('cafe\u0301.jsonl'),
      b('line\nbreak.jsonl'),
      b('..dots.jsonl'),
      b('%2e%2e.jsonl'),
    ];
    for (const [i, name] of raw.entries()) fs.writeFileSync(Buffer.concat([b(dir + '/'), name]), `{"i":${i}}\n`);
    const outside = listFiles(sb.dir).filter((f) => !f.startsWith('home/.brain/'));
    const r = brain(sb, ['record', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.lanes.cc.new_files, raw.length, 'every file captured');
    assert.ok(rep.warnings.filter((w: any) => w.code === 'name-escaped').length >= 2, 'escaped names reported');
    assert.deepEqual(listFiles(sb.dir).filter((f) => !f.startsWith('home/.brain/')), outside, 'nothing written outside BRAIN_HOME');
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    assert.equal(new Set(m.map((x) => x.lake_path)).size, raw.length, 'distinct lake files (NFC and NFD kept apart)');
    for (const x of m) {
      assert.ok(path.resolve(sb.brain, x.lake_path).startsWith(path.join(sb.brain, 'lake') + '/'));
      assert.ok(Buffer.byteLength(path.basename(x.lake_path)) <= 255);
    }
    assert.equal(brain(sb, ['verify']).status, 0);
  } finally {
    sb.cleanup();
  }
});

test('origin_path of a name that is not UTF-8 escapes its bytes and keeps the slashes between folders', () => {
  const sb = sandbox({ name: 'origin-path' });
  try {
    const dir = Buffer.concat([b(path.join(sb.home, '.pi', 'agent', 'sessions', 'proj-')), Buffer.from([0xe9]), b('/sub')]);
    fs.mkdirSync(dir, { recursive: true });
    const file = Buffer.concat([dir, b('/s-'), Buffer.from([0xff]), b('%.jsonl')]);
    fs.writeFileSync(file, '{"type":"session","id":"s"}\n');
    const r = brain(sb, ['record', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    assert.equal(m.length, 1);
    assert.equal(m[0].origin_path, `${path.join(sb.home, '.pi', 'agent', 'sessions')}/proj-%E9/sub/s-%FF%25.jsonl`);
    assert.match(m[0].lake_path, /^lake\/pi\/proj-%E9~[0-9a-f]{8}\/sub\/s-%FF%25\.jsonl~[0-9a-f]{8}$/);
    const v = brain(sb, ['verify', '--deep']);
    assert.equal(v.status, 0, v.stdout);
    // --deep finds the origin by its raw bytes, and sees it differ once it changes.
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, 'X', 2);
    fs.closeSync(fd);
    const d = brain(sb, ['verify', '--deep']);
    assert.equal(d.status, 1, d.stdout);
    assert.match(d.stdout, /origin: .*differs from the lake/);
  } finally {
    sb.cleanup();
  }
});

test('symlinks in agent folders are not followed; symlinks in the spool are moved aside, never written through', () => {
  const sb = sandbox({ fixtures: true, name: 'symlinks' });
  try {
    const proj = path.join(sb.home, '.claude', 'projects');
    const secret = path.join(sb.dir, 'outside-secret.jsonl');
    fs.writeFileSync(secret, '{"secret":true}\n');
    fs.symlinkSync(secret, path.join(proj, 'sample-project', 'link.jsonl'));
    fs.symlinkSync(proj, path.join(proj, 'sample-project', 'loop'));
    fs.mkdirSync(path.join(sb.brain, 'spool', 'cc'), { recursive: true, mode: 0o700 });
    fs.chmodSync(sb.brain, 0o700);
    fs.chmodSync(path.join(sb.brain, 'spool'), 0o700);
    fs.chmodSync(path.join(sb.brain, 'spool', 'cc'), 0o700);
    const victim = path.join(sb.dir, 'victim.json');
    fs.writeFileSync(victim, 'untouched');
    fs.symlinkSync(victim, path.join(sb.brain, 'spool', 'cc', '00000000000001-0000001-000000.json'));
    const r = brain(sb, ['record', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.ok(rep.warnings.filter((w: any) => w.code === 'symlink-skipped').length >= 2);
    assert.ok(rep.warnings.some((w: any) => w.code === 'spool-rejected'));
    assert.equal(fs.readFileSync(victim, 'utf8'), 'untouched');
    assert.ok(!fs.existsSync(path.join(sb.brain, 'lake', 'cc', 'sample-project', 'link.jsonl')));
    assert.ok(rep.lanes.cc.new_files > 10, 'the other files were captured');
    assert.equal(brain(sb, ['verify']).status, 0);
  } finally {
    sb.cleanup();
  }
});

test('a FIFO and a socket named like sessions are skipped with a warning; the rest is captured', () => {
  const sb = sandbox({ fixtures: true, name: 'fifo' });
  try {
    const dir = path.join(sb.home, '.claude', 'projects', 'p');
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, 's.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const sock = path.join(dir, 'sock.jsonl');
    const py = spawnSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', sock]);
    assert.equal(py.status, 0, `a unix socket: ${py.stderr}`);
    // A plain open(2) of the FIFO waits for a writer for ever: the bound here is the test's.
    const r = brain(sb, ['record', '--json'], { timeout: 60_000 });
    assert.equal(r.error, undefined, 'brain record finished');
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    const skipped = rep.warnings.filter((w: any) => w.code === 'not-a-file').map((w: any) => w.path).sort();
    assert.deepEqual(skipped, [fifo, sock].sort());
    assert.match(rep.warnings.find((w: any) => w.path === fifo).message, /FIFO/);
    assert.ok(rep.lanes.cc.warnings >= 2, 'counted');
    assert.ok(rep.lanes.cc.new_files > 10, 'the other files were captured');
    assert.ok(!fs.existsSync(path.join(sb.brain, 'lake', 'cc', 'p', 's.jsonl')));
    assert.equal(brain(sb, ['verify', '--deep']).status, 0);
  } finally {
    sb.cleanup();
  }
});

test('an unreadable file is reported and the rest is captured', () => {
  const sb = sandbox({ fixtures: true, name: 'unreadable' });
  try {
    const bad = path.join(sb.home, '.codex', 'sessions', '2025', '01', '01', 'locked.jsonl');
    fs.writeFileSync(bad, '{"x":1}\n');
    fs.chmodSync(bad, 0o000);
    // Root reads anything: run the capture as an unprivileged user when we are root.
    let args = [CLI, 'record', '--json'];
    let cmd = process.execPath;
    if (process.getuid?.() === 0) {
      spawnSync('chown', ['-R', '65534:65534', sb.dir]);
      spawnSync('chmod', ['o+x', path.dirname(sb.dir), path.join(path.dirname(sb.dir), '..')]);
      cmd = 'setpriv';
      args = ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args];
    }
    const r = spawnSync(cmd, args, { env: sb.env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.ok(rep.warnings.some((w: any) => w.code === 'unreadable' && w.path.endsWith('locked.jsonl')), 'unreadable reported');
    assert.ok(rep.lanes.codex.new_files >= 9, 'other codex files captured');
  } finally {
    spawnSync('chmod', ['-R', 'u+rwX', sb.dir]);
    sb.cleanup();
  }
});

test('a lake file replaced by a symlink is never appended to (or cut) through it: record refuses, naming it', () => {
  const sb = sandbox({ fixtures: true, name: 'lake-symlink' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    const lakePath = 'lake/cc/-misc-git-ai/claude-code-with-plan.jsonl';
    const lake = path.join(sb.brain, lakePath);
    const victim = path.join(sb.dir, 'victim.jsonl');
    fs.copyFileSync(lake, victim);
    const before = fs.readFileSync(victim);
    fs.rmSync(lake);
    fs.symlinkSync(victim, lake);
    fs.appendFileSync(path.join(sb.home, '.claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl'), '{"type":"summary","summary":"more"}\n');
    const r = brain(sb, ['record']);
    assert.equal(r.status, 3, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(`lake_path ${JSON.stringify(lakePath)} is a symlink: refused`), r.stderr);
    assert.deepEqual(fs.readFileSync(victim), before, 'the file the symlink points at is untouched');
    // Nothing claims the new bytes (the origin is read again once the lake is mended); verify names the symlink.
    const claims = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.lake_path === lakePath);
    assert.equal(Math.max(...claims.map((l) => l.byte_to)), before.length);
    const v = brain(sb, ['verify']);
    assert.equal(v.status, 1);
    assert.match(v.stdout, /unsafe-path: lake\/cc\/-misc-git-ai\/claude-code-with-plan\.jsonl: .*is a symlink/);
  } finally {
    sb.cleanup();
  }
});
