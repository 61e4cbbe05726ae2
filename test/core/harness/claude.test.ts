// `brain init` registering brain mcp with Claude Code through the real `claude mcp add --scope
// user`, on a copy of a real ~/.claude.json (written by Claude Code 2.1.197 itself, with other
// servers, a project and its own bookkeeping), then Claude Code itself connecting to the server
// (`claude mcp list` starts it). Idempotent; only the "brain" entry is brain's; a broken file is
// never handed to claude (which would "repair" it by rewriting); without claude on PATH, init
// prints the exact command.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDenyProxy } from '../../agents/harness';
import { REPO, sandbox, type Sandbox } from '../../helpers/env';
import { BIN, HARNESS_FIXTURES, doctor, init, pathWith, stamp } from './helpers';

const BRAIN = path.join(REPO, 'bin', 'brain');

/** Waits until no process has `needle` in its environment (read from /proc; this test runs as root). */
async function untilNoProcessWith(needle: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  const running = () =>
    fs.readdirSync('/proc').filter((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
      } catch {
        return false;
      }
    });
  while (running().length > 0) {
    if (Date.now() > end) assert.fail(`processes with ${needle} still running: ${running().join(' ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function ccSandbox(name: string, fixture: string | null, agents = true): { sb: Sandbox; file: string } {
  const sb = sandbox({ name });
  sb.env.PATH = pathWith(agents);
  fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
  const file = path.join(sb.home, '.claude.json');
  if (fixture) fs.copyFileSync(path.join(HARNESS_FIXTURES, fixture), file);
  return { sb, file };
}

function claude(sb: Sandbox, args: string[]) {
  const r = spawnSync(path.join(BIN, 'claude'), args, { env: { ...sb.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, encoding: 'utf8', timeout: 120_000, cwd: sb.home });
  assert.equal(r.status, 0, `claude ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const read = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));

test('registers brain mcp in the user scope beside the other servers; Claude Code connects to it; a second init changes nothing', () => {
  const { sb, file } = ccSandbox('cc-register', 'claude.json');
  try {
    const original = read(file);
    const r = init(sb);
    assert.equal(r.step('mcp cc').status, 'changed', JSON.stringify(r.results));
    const now = read(file);
    assert.deepEqual(now.mcpServers.brain, { type: 'stdio', command: process.execPath, args: [BRAIN, 'mcp'], env: { BRAIN_HOME: sb.brain, BRAIN_MACHINE: 'testbox' } });
    assert.deepEqual(now.mcpServers.context7, original.mcpServers.context7);
    assert.deepEqual(now.mcpServers.sentry, original.mcpServers.sentry);
    for (const k of Object.keys(original)) if (k !== 'mcpServers') assert.deepEqual(now[k], original[k], `${k} is kept`);

    // Claude Code starts the registered server and speaks MCP with it.
    assert.match(claude(sb, ['mcp', 'list']), /^brain: .*bin\/brain mcp - ✔ Connected$/m);
    assert.equal(doctor(sb)('mcp cc').level, 'ok');

    const stamped = stamp(file);
    assert.equal(init(sb).step('mcp cc').status, 'unchanged');
    assert.equal(stamp(file), stamped, 'claude was not even run');
  } finally {
    sb.cleanup();
  }
});

test('registering makes no connection (claude mcp add on a first start would reach api.anthropic.com)', async () => {
  const { sb, file } = ccSandbox('cc-offline', null);
  const proxy = await startDenyProxy();
  try {
    const r = init(sb, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, https_proxy: proxy.url, http_proxy: proxy.url });
    assert.equal(r.step('mcp cc').status, 'changed', JSON.stringify(r.results));
    assert.equal(read(file).mcpServers.brain.command, process.execPath);
    // What it would send goes out from processes that outlive it: once none of the processes run
    // with this sandbox's HOME is left, whatever they sent has reached the proxy.
    await untilNoProcessWith(`HOME=${sb.home}`, 30_000);
    assert.deepEqual(proxy.attempts, []);
  } finally {
    await proxy.close();
    sb.cleanup();
  }
});

test('another install of brain is re-registered in place; the other servers stay', () => {
  const { sb, file } = ccSandbox('cc-moved', 'claude.json');
  try {
    init(sb, { BRAIN_BIN: `${process.execPath} /opt/old-brain/bin/brain` });
    assert.deepEqual(read(file).mcpServers.brain.args, ['/opt/old-brain/bin/brain', 'mcp']);
    const d = doctor(sb)('mcp cc');
    assert.equal(d.level, 'warn');
    assert.match(d.fix ?? '', /brain init/);
    const r = init(sb).step('mcp cc');
    assert.equal(r.status, 'changed');
    assert.match(r.detail, /re-registers/);
    const now = read(file);
    assert.deepEqual(now.mcpServers.brain.args, [BRAIN, 'mcp']);
    assert.ok(now.mcpServers.context7 && now.mcpServers.sentry);
  } finally {
    sb.cleanup();
  }
});

test('a "brain" server that does not run brain mcp is someone else\'s: left alone', () => {
  const { sb, file } = ccSandbox('cc-foreign', null);
  try {
    const doc = JSON.parse(fs.readFileSync(path.join(HARNESS_FIXTURES, 'claude.json'), 'utf8'));
    doc.mcpServers.brain = { type: 'stdio', command: 'uvx', args: ['second-brain-notes'], env: {} };
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const stamped = stamp(file);
    const r = init(sb);
    assert.equal(r.step('mcp cc').status, 'failed');
    assert.equal(r.code, 1);
    assert.equal(stamp(file), stamped);
    assert.equal(doctor(sb)('mcp cc').level, 'fail');
  } finally {
    sb.cleanup();
  }
});

test('a ~/.claude.json that does not parse is never given to claude (which would rewrite it)', () => {
  const { sb, file } = ccSandbox('cc-broken', null);
  try {
    // The real file cut short, as a crash in the middle of a write would leave it.
    const whole = fs.readFileSync(path.join(HARNESS_FIXTURES, 'claude.json'));
    fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const stamped = stamp(file);
    const s = init(sb).step('mcp cc');
    assert.equal(s.status, 'failed');
    assert.match(s.detail, /not valid JSON/);
    assert.equal(stamp(file), stamped);
    assert.equal(fs.existsSync(path.join(sb.home, '.claude', 'backups')), false, 'claude did not run on it');
  } finally {
    sb.cleanup();
  }
});

test('without claude on PATH, init prints the exact command, and that command registers what init would', () => {
  const { sb, file } = ccSandbox('cc-print', 'claude.json', false);
  try {
    const stamped = stamp(file);
    const s = init(sb).step('mcp cc');
    assert.equal(s.status, 'note');
    assert.match(s.detail, /claude is not on PATH/);
    assert.equal(s.fix, `claude mcp add --scope user brain -e BRAIN_HOME=${sb.brain} -e BRAIN_MACHINE=testbox -- ${process.execPath} ${BRAIN} mcp`);
    assert.equal(stamp(file), stamped);
    assert.match(doctor(sb)('mcp cc').fix ?? '', /claude mcp add --scope user brain/);
    // The user runs it where claude is.
    const r = spawnSync('sh', ['-c', s.fix!], { env: { ...sb.env, PATH: pathWith(true) }, encoding: 'utf8', cwd: sb.home });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(init(sb).step('mcp cc').status, 'unchanged');
  } finally {
    sb.cleanup();
  }
});

test('CLAUDE_CONFIG_DIR moves the user config; no Claude Code at all: nothing is done', () => {
  const { sb } = ccSandbox('cc-configdir', null);
  try {
    const dir = path.join(sb.home, 'cc-config');
    fs.mkdirSync(dir);
    const env = { CLAUDE_CONFIG_DIR: dir };
    assert.equal(init(sb, env).step('mcp cc').status, 'changed');
    assert.equal(read(path.join(dir, '.claude.json')).mcpServers.brain.command, process.execPath);
    assert.equal(fs.existsSync(path.join(sb.home, '.claude.json')), false);
  } finally {
    sb.cleanup();
  }
  const none = sandbox({ name: 'cc-none' });
  try {
    none.env.PATH = pathWith(false);
    assert.equal(init(none).step('mcp cc').status, 'skipped');
    assert.equal(fs.existsSync(path.join(none.home, '.claude.json')), false);
  } finally {
    none.cleanup();
  }
});
