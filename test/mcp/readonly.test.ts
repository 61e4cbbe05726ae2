// `brain mcp` writes nothing and listens on nothing. The floor (with both caches built) is made
// read-only, and every tool is called, errors included. As root, permissions stop nothing, so the
// server then runs as the unprivileged user `nobody` (setpriv), for whom they do; and either way the
// whole tree — every file's bytes, mode and mtime, every folder's mtime — must be as it was.
// Meanwhile the server's sockets are read from /proc: no inet socket at all, no listening one.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, CLI, type Sandbox } from '../helpers/env';
import { capturedFloor, networkOf, sedSha, snapshot, startMcp, type Entry, type Mcp } from './helpers';

const NOBODY = 65534;
const root = process.getuid?.() === 0;

let sb: Sandbox;
let frozen: Record<string, Entry>;
let mcp: Mcp;

function chmodTree(dir: string, strip: boolean): void {
  const r = spawnSync('chmod', ['-R', strip ? 'a-w' : 'u+w', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

before(async () => {
  sb = capturedFloor('mcp-ro');
  // The turn index too, so that not touching it is part of what is checked.
  const s = brain(sb, ['search', 'GitHub Action']);
  assert.equal(s.status, 0, s.stderr);
  assert.ok(fs.existsSync(path.join(sb.brain, 'turns.sqlite')));
  assert.ok(fs.existsSync(path.join(sb.brain, 'brain.duckdb')));
  if (root) {
    const setpriv = spawnSync('sh', ['-c', 'command -v setpriv'], { encoding: 'utf8' }).stdout.trim();
    assert.ok(setpriv, 'setpriv is needed to run the server as nobody: apt-get install util-linux');
    const own = spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, sb.dir], { encoding: 'utf8' });
    assert.equal(own.status, 0, own.stderr);
    // nobody must reach the sandbox through .test-work (mkdtemp makes it 0700).
    fs.chmodSync(path.dirname(sb.dir), 0o755);
  }
  chmodTree(sb.brain, true);
  frozen = snapshot(sb.brain);
  const cmd = root ? { command: 'setpriv', args: [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, CLI, 'mcp'] } : undefined;
  mcp = await startMcp(sb.env, [], cmd);
});

after(async () => {
  await mcp?.close();
  if (sb) {
    chmodTree(sb.brain, false);
    sb.cleanup();
  }
});

test('the server runs as a user who cannot write the floor', () => {
  const status = fs.readFileSync(`/proc/${mcp.pid}/status`, 'utf8');
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  assert.notEqual(uid, 0, 'not root: the permissions hold');
  if (root) assert.equal(uid, NOBODY);
  // The same user cannot create a file in BRAIN_HOME or write one of its files.
  const probe = ['sh', '-c', 'touch "$1/probe" || exit 0; exit 1', 'sh', sb.brain];
  const as = root ? spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...probe], { encoding: 'utf8' }) : spawnSync(probe[0], probe.slice(1), { encoding: 'utf8' });
  assert.equal(as.status, 0, `the server's user could write ${sb.brain}`);
  assert.equal(fs.existsSync(path.join(sb.brain, 'probe')), false);
});

test('every tool answers from a read-only floor, and nothing in it changes', async () => {
  const s = await mcp.call('search', { term: 'GitHub Action' });
  assert.equal(s.isError, false, s.text);
  // The turn index is read as a private copy (opening the file, even read-only, would write).
  assert.equal(s.json.source, 'index', s.json.header);
  assert.equal(s.json.fallback, null);
  const c = s.json.hits[0].snippets[0].citation;
  assert.equal(sedSha(path.join(sb.brain, c.lake_path), c.line_from, c.line_to), c.sha256);
  assert.equal((await mcp.call('search', { term: 'ab' })).isError, false, 'a short term (scan) too');
  let turns: string | undefined = '1..';
  for (let i = 0; i < 3 && turns; i++) {
    const r = await mcp.call('read_session', { session: 'large-session', turns });
    assert.equal(r.isError, false, r.text);
    turns = r.json.next;
  }
  assert.equal((await mcp.call('cite', { lake_path: c.lake_path, line_from: c.line_from, line_to: c.line_to })).json.sha256, c.sha256);
  assert.equal((await mcp.call('verify_citation', { citation: c })).json.ok, true);
  const q = await mcp.call('sql', { query: 'SELECT count(*) AS n FROM derived.messages' });
  assert.equal(q.isError, false, `${q.text}\n${mcp.stderr()}`);
  assert.ok(q.json.rows[0].n > 0);
  assert.equal((await mcp.call('sql', { query: 'CREATE TABLE t AS SELECT 1' })).isError, true);
  assert.equal((await mcp.call('sql', { query: 'CHECKPOINT' })).isError, true);
  assert.equal((await mcp.call('read_session', { session: 'nope' })).isError, true);
  await assert.rejects(mcp.client.callTool({ name: 'search', arguments: { term: 1 } }));

  // While it runs: no network socket of any kind, nothing listening.
  const net = networkOf(mcp.pid);
  assert.deepEqual(net.inet, [], 'no TCP/UDP/raw socket');
  assert.deepEqual(net.listening, [], 'no listening unix socket');

  assert.deepEqual(snapshot(sb.brain), frozen, 'BRAIN_HOME is exactly as it was: bytes, modes, mtimes');
  assert.equal(mcp.stderr(), '', 'no complaint on stderr');
});

test('after the client leaves, the tree is still unchanged', async () => {
  await mcp.close();
  assert.deepEqual(snapshot(sb.brain), frozen);
});
