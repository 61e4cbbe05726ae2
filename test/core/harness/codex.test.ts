// `brain init` registering brain mcp with Codex: a [mcp_servers.brain] table appended to copies of
// real config.toml files — one with comments, profiles, project tables and other MCP servers, one
// that does not parse, one whose mcp_servers is an inline table, one with a "brain" of someone
// else's — and the real codex CLI reading the result. Idempotent; only brain's table is touched.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { CODEX_BEGIN, CODEX_END } from '../../../src/core/agents/codex/harness';
import { REPO, sandbox, type Sandbox } from '../../helpers/env';
import { BIN, HARNESS_FIXTURES, doctor, init, pathWith, stamp } from './helpers';

const BRAIN = path.join(REPO, 'bin', 'brain');

function codexSandbox(fixture: string | null, name: string): { sb: Sandbox; file: string } {
  const sb = sandbox({ name });
  sb.env.PATH = pathWith(true);
  const dir = path.join(sb.home, '.codex');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.toml');
  if (fixture) fs.copyFileSync(path.join(HARNESS_FIXTURES, fixture), file);
  return { sb, file };
}

/** What the real Codex makes of the file: `codex mcp list --json`. */
function codexServers(sb: Sandbox): { name: string; transport: { command: string; args: string[]; env: Record<string, string> | null } }[] {
  const r = spawnSync(path.join(BIN, 'codex'), ['mcp', 'list', '--json'], { env: { ...sb.env, CODEX_HOME: path.join(sb.home, '.codex') }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `codex mcp list: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test('appends brain\'s table to a commented config.toml, byte for byte after the original, and Codex reads it', () => {
  const { sb, file } = codexSandbox('codex-config.toml', 'codex-append');
  try {
    const original = fs.readFileSync(file, 'utf8');
    assert.ok(!original.endsWith('\n'), 'the fixture ends without a newline');
    const r = init(sb);
    assert.equal(r.step('mcp codex').status, 'changed', JSON.stringify(r.results));
    const now = fs.readFileSync(file, 'utf8');
    assert.ok(now.startsWith(original), 'everything that was there is still there, unchanged and in order');
    const added = now.slice(original.length);
    assert.equal(
      added,
      ['', '', CODEX_BEGIN, '[mcp_servers.brain]', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(BRAIN)}, "mcp"]`, `env = { BRAIN_HOME = ${JSON.stringify(sb.brain)}, BRAIN_MACHINE = "testbox" }`, CODEX_END, ''].join('\n'),
    );
    // The comments are still there, and the document is the old one plus brain's table.
    assert.match(now, /# Trusted checkouts\.\n/);
    const plain = (t: string) => JSON.parse(JSON.stringify(parse(t))) as Record<string, any>;
    const before = plain(original);
    const after = plain(now);
    const { brain: ours, ...others } = after.mcp_servers;
    assert.deepEqual({ ...after, mcp_servers: others }, before);
    assert.deepEqual(ours, { command: process.execPath, args: [BRAIN, 'mcp'], env: { BRAIN_HOME: sb.brain, BRAIN_MACHINE: 'testbox' } });
    // The real Codex sees its own servers and brain's.
    const servers = codexServers(sb);
    assert.deepEqual(servers.map((s) => s.name).sort(), ['brain', 'context7', 'github']);
    const b = servers.find((s) => s.name === 'brain')!;
    assert.equal(b.transport.command, process.execPath);
    assert.deepEqual(b.transport.args, [BRAIN, 'mcp']);
    assert.deepEqual(b.transport.env, { BRAIN_HOME: sb.brain, BRAIN_MACHINE: 'testbox' });
    assert.equal(doctor(sb)('mcp codex').level, 'ok');

    // Again: nothing to do, the file is not even rewritten.
    const stamped = stamp(file);
    assert.equal(init(sb).step('mcp codex').status, 'unchanged');
    assert.equal(stamp(file), stamped);

    // Another install of brain: only the text between the markers changes.
    const moved = init(sb, { BRAIN_BIN: `${process.execPath} /opt/brain-2/bin/brain` });
    assert.equal(moved.step('mcp codex').status, 'changed');
    const third = fs.readFileSync(file, 'utf8');
    assert.ok(third.startsWith(original));
    assert.equal(third.split(CODEX_BEGIN).length, 2, 'one table, not two');
    assert.deepEqual((parse(third) as any).mcp_servers.brain.args, ['/opt/brain-2/bin/brain', 'mcp']);
    assert.equal(doctor(sb)('mcp codex').level, 'warn', 'doctor (run by this brain) sees the other install');
    assert.equal(init(sb).step('mcp codex').status, 'changed');
    assert.equal(fs.readFileSync(file, 'utf8'), now, 'back to the same bytes');
  } finally {
    sb.cleanup();
  }
});

test('a config.toml that does not parse is left exactly as it is, and init and doctor say so', () => {
  const { sb, file } = codexSandbox('codex-config-broken.toml', 'codex-broken');
  try {
    const stamped = stamp(file);
    const r = init(sb);
    const s = r.step('mcp codex');
    assert.equal(s.status, 'failed');
    assert.match(s.detail, /not valid TOML/);
    assert.match(s.fix ?? '', /fix .*config\.toml/);
    assert.equal(r.code, 1);
    assert.equal(stamp(file), stamped);
    assert.equal(doctor(sb)('mcp codex').level, 'fail');
  } finally {
    sb.cleanup();
  }
});

test('an inline mcp_servers table cannot take a [mcp_servers.brain] header: refused, untouched', () => {
  const { sb, file } = codexSandbox('codex-config-inline.toml', 'codex-inline');
  try {
    const stamped = stamp(file);
    const s = init(sb).step('mcp codex');
    assert.equal(s.status, 'failed');
    assert.match(s.detail, /would not parse|without changing/);
    assert.equal(stamp(file), stamped);
  } finally {
    sb.cleanup();
  }
});

test('a [mcp_servers.brain] that brain did not write is someone else\'s: left alone', () => {
  const { sb, file } = codexSandbox('codex-config.toml', 'codex-foreign');
  try {
    fs.appendFileSync(file, '\n\n[mcp_servers.brain]\ncommand = "uvx"\nargs = ["my-brain-notes-server"]\n');
    const stamped = stamp(file);
    const s = init(sb).step('mcp codex');
    assert.equal(s.status, 'failed');
    assert.match(s.detail, /brain did not write/);
    assert.equal(stamp(file), stamped);
  } finally {
    sb.cleanup();
  }
});

test('no config.toml yet: created private with only brain\'s table; through a symlink, the link and mode stay', () => {
  const { sb, file } = codexSandbox(null, 'codex-new');
  try {
    assert.equal(init(sb).step('mcp codex').status, 'changed');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(fs.readFileSync(file, 'utf8').startsWith(CODEX_BEGIN));
    assert.deepEqual(
      codexServers(sb).map((s) => s.name),
      ['brain'],
    );
  } finally {
    sb.cleanup();
  }
  const { sb: sb2, file: link } = codexSandbox(null, 'codex-link');
  try {
    const real = path.join(sb2.home, 'dotfiles', 'codex.toml');
    fs.mkdirSync(path.dirname(real), { recursive: true });
    fs.copyFileSync(path.join(HARNESS_FIXTURES, 'codex-config.toml'), real);
    fs.chmodSync(real, 0o644);
    fs.symlinkSync(real, link);
    assert.equal(init(sb2).step('mcp codex').status, 'changed');
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the dotfiles link is kept');
    assert.equal(fs.statSync(real).mode & 0o777, 0o644);
    assert.match(fs.readFileSync(real, 'utf8'), /\[mcp_servers\.brain\]/);
  } finally {
    sb2.cleanup();
  }
});

test('a CRLF config.toml gets a CRLF table', () => {
  const { sb, file } = codexSandbox(null, 'codex-crlf');
  try {
    const text = fs.readFileSync(path.join(HARNESS_FIXTURES, 'codex-config.toml'), 'utf8').replace(/\n/g, '\r\n') + '\r\n';
    fs.writeFileSync(file, text);
    assert.equal(init(sb).step('mcp codex').status, 'changed');
    const now = fs.readFileSync(file, 'utf8');
    assert.ok(now.startsWith(text));
    assert.ok(!/[^\r]\n/.test(now), 'every line ends in CRLF');
    assert.equal(init(sb).step('mcp codex').status, 'unchanged');
  } finally {
    sb.cleanup();
  }
});

test('no Codex on this machine: nothing is created', () => {
  const sb = sandbox({ name: 'codex-none' });
  try {
    sb.env.PATH = pathWith(false);
    assert.equal(init(sb).step('mcp codex').status, 'skipped');
    assert.equal(fs.existsSync(path.join(sb.home, '.codex')), false);
    assert.equal(doctor(sb)('mcp codex').level, 'info');
  } finally {
    sb.cleanup();
  }
});

test('paths with quotes, backslashes, spaces and non-ASCII are written as TOML strings that read back exactly', async () => {
  const { planCodex } = await import('../../../src/core/agents/codex/harness');
  const { applyMcp } = await import('../../../src/core/harness/mcp-register');
  const { sb, file } = codexSandbox('codex-config.toml', 'codex-quote');
  try {
    const spec = { command: '/opt/nöde "v20"/bin/node', args: ['C:\\Users\\dév\\brain\\bin\\brain', 'mcp'], env: { BRAIN_HOME: "/home/o'neil/.brain\ttab" } };
    const env = { HOME: sb.home, PATH: pathWith(true) };
    const plan = planCodex(spec, env);
    assert.equal(plan.action, 'add', plan.detail);
    applyMcp(plan, env, spec);
    assert.deepEqual(JSON.parse(JSON.stringify((parse(fs.readFileSync(file, 'utf8')) as any).mcp_servers.brain)), spec);
    assert.equal(planCodex(spec, env).action, 'ok');
  } finally {
    sb.cleanup();
  }
});
