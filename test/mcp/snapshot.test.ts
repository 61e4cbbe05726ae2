// brain mcp searches a private copy of the turn index, never the file itself: the same answers
// as `brain search`, and a scan (saying why) whenever the file is not the whole, current index.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSqlite } from '../../src/core/sqlite';
import { brain, type Sandbox } from '../helpers/env';
import { capturedFloor, startMcp, type Mcp } from './helpers';

let sb: Sandbox;
let mcp: Mcp;

before(async () => {
  sb = capturedFloor('mcp-snapshot');
  mcp = await startMcp(sb.env);
});

after(async () => {
  await mcp?.close();
  sb?.cleanup();
});

const strip = (j: any) => ({ total: j.total, hits: j.hits.map((h: any) => ({ session: h.session, tier: h.tier, n: h.matching_turns, snippets: h.snippets })) });

test('the same answers as brain search, from the index', async () => {
  for (const term of ['GitHub Action', 'does it only run on main', 'TodoWrite', 'zzzqqqxxx']) {
    const cli = brain(sb, ['search', term, '--json', '--limit', '50']);
    const want = JSON.parse(cli.stdout);
    assert.equal(want.source, 'index');
    const got = await mcp.call('search', { term, limit: 50 });
    assert.equal(got.isError, false, got.text);
    assert.equal(got.json.source, 'index', got.json.header);
    assert.deepEqual(strip(got.json), strip(want), term);
  }
});

test('an index behind the floor is not used: the scan answers, and says why', async () => {
  const f = path.join(sb.home, '.pi', 'agent', 'sessions', '--snap--', 'snap-1.jsonl');
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, `${JSON.stringify({ type: 'session', version: 3, id: 'snap-1', timestamp: '2026-01-01T00:00:00Z', cwd: '/snap' })}\n${JSON.stringify({ type: 'message', id: 'a', timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: [{ type: 'text', text: 'the quillwort decision' }] } })}\n`);
  assert.equal(brain(sb, ['record', '--no-caches']).status, 0);
  const r = await mcp.call('search', { term: 'quillwort' });
  assert.equal(r.json.source, 'scan');
  assert.match(r.json.fallback, /behind the floor/);
  assert.equal(r.json.hits[0]?.session, 'snap-1', 'the new session is found all the same');
  // Once the recorder has brought the index up (any search or capture does), the index answers.
  assert.equal(brain(sb, ['search', 'quillwort']).status, 0);
  const again = await mcp.call('search', { term: 'quillwort' });
  assert.equal(again.json.source, 'index', again.json.header);
  assert.equal(again.json.hits[0]?.session, 'snap-1');
});

test('writes not yet merged into the file (a recorder holds it open): the scan answers', async () => {
  const Database = loadSqlite();
  assert.ok(Database, 'better-sqlite3 loads');
  const db = new Database(path.join(sb.brain, 'turns.sqlite'));
  try {
    db.pragma('wal_autocheckpoint = 0');
    db.exec(`INSERT INTO meta (k, v) VALUES ('test-unmerged', '1') ON CONFLICT (k) DO UPDATE SET v = '2'`);
    assert.ok(fs.statSync(path.join(sb.brain, 'turns.sqlite-wal')).size > 0);
    const r = await mcp.call('search', { term: 'GitHub Action' });
    assert.equal(r.json.source, 'scan');
    assert.match(r.json.fallback, /not yet merged/);
    assert.ok(r.json.hits.length > 0);
  } finally {
    db.close();
  }
  // The last connection closing merges the WAL: the file is whole again.
  const r = await mcp.call('search', { term: 'GitHub Action' });
  assert.equal(r.json.source, 'index', r.json.header);
});

test('the copy is a file of its own, removed once open: nothing of it stays in the temporary folder', async () => {
  const tmp = path.join(sb.dir, 'tmp-copy');
  // What a server killed between making its copy and removing it would leave.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  fs.mkdirSync(path.join(tmp, `brain-index-${dead}-x1Yz9Q`), { recursive: true });
  fs.writeFileSync(path.join(tmp, `brain-index-${dead}-x1Yz9Q`, 'turns.sqlite'), 'a copy');
  const m = await startMcp({ ...sb.env, TMPDIR: tmp });
  try {
    const r = await m.call('search', { term: 'GitHub Action' });
    assert.equal(r.json.source, 'index', r.json.header);
    assert.deepEqual(fs.readdirSync(tmp), [], 'no copy is left in TMPDIR, nor a dead server\'s');
    const open = fs.readdirSync(`/proc/${m.pid}/fd`).map((fd) => {
      try {
        return fs.readlinkSync(`/proc/${m.pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
    // The server reads its removed copy, and holds no descriptor of the floor's index file.
    assert.ok(open.some((l) => l.startsWith(tmp) && l.endsWith('/turns.sqlite (deleted)')), open.join('\n'));
    assert.ok(!open.some((l) => l.startsWith(path.join(sb.brain, 'turns.sqlite'))), open.join('\n'));
  } finally {
    await m.close();
  }
});

test('no temporary folder to copy into: the copy is made in memory, and the index still answers', async () => {
  const m = await startMcp({ ...sb.env, TMPDIR: path.join(sb.dir, 'no-such-folder') });
  try {
    const r = await m.call('search', { term: 'GitHub Action' });
    assert.equal(r.json.source, 'index', r.json.header);
    assert.ok(r.json.hits.length > 0);
    assert.equal(fs.existsSync(path.join(sb.dir, 'no-such-folder')), false);
  } finally {
    await m.close();
  }
});
