// Origins that are SQLite databases (floor/dbcapture.ts): real database files written by
// better-sqlite3 (and by a second process where the test is about another writer), recorded by
// the real capture into a sandbox BRAIN_HOME through a toy agent that declares `databases`.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { BUILTIN, defineAgent, useRegistry } from '../../../src/core/agents';
import { colsOf, readRowLine, rowsLakeName, sessionFromRows, type DbTable } from '../../../src/core/agents/kit/sqlite';
import { capture } from '../../../src/core/floor/capture';
import { startWatch } from '../../../src/core/floor/watch';
import { verifyFloor } from '../../../src/core/floor/verify';
import { sandbox, type Sandbox } from '../../helpers/env';
import { toyDialect } from '../agents/toy/dialect';
import { manifestLines } from '../cache/helpers';

const TABLES: DbTable[] = [
  { name: 'session', key: ['id'], session: 'id' },
  { name: 'message', key: ['id'], session: 'session_id', changed: 'time_updated' },
];

function dbAgent(file: string, tables = TABLES) {
  return defineAgent({
    lane: 'dbtoy',
    agent: 'dbtoy-agent',
    label: 'DB Toy',
    aliases: [],
    env: [],
    roots: () => [],
    databases: () => [{ file, lakePrefix: '', tables }],
    sessionOf: sessionFromRows,
    dialect: toyDialect,
    views: path.join(__dirname, '..', 'agents', 'toy', 'views.sql'),
  });
}

function makeDb(file: string, wal = true): Database.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, directory TEXT);
           CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, data TEXT, blob BLOB, n INTEGER, r REAL, time_updated INTEGER NOT NULL)`);
  return db;
}

let clock = 1_700_000_000_000;
function putMsg(db: Database.Database, id: string, session: string, text: string, extra: { blob?: Buffer; n?: bigint | number; r?: number } = {}): void {
  db.prepare('INSERT INTO message (id, session_id, data, blob, n, r, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated').run(
    id,
    session,
    JSON.stringify({ text }),
    extra.blob ?? null,
    extra.n ?? null,
    extra.r ?? null,
    clock++,
  );
}

async function pass(sb: Sandbox, extra: { dbBusyMs?: number } = {}) {
  return capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000, ...extra });
}

function lake(sb: Sandbox, session: string): string {
  const f = path.join(sb.brain, 'lake', 'dbtoy', rowsLakeName('', session));
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
}

function floorBytes(sb: Sandbox): string {
  const dir = path.join(sb.brain, 'lake', 'dbtoy');
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir)
    .sort()
    .map((n) => `${n}\n${fs.readFileSync(path.join(dir, n), 'utf8')}`)
    .join('');
}

/** The latest version of each row in the lake (tombstones remove), as table/key -> columns. */
function current(sb: Sandbox): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const dir = path.join(sb.brain, 'lake', 'dbtoy');
  for (const n of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    for (const line of fs.readFileSync(path.join(dir, n), 'utf8').split('\n')) {
      if (!line) continue;
      const r = readRowLine(line);
      assert.ok(r, line);
      const k = `${r.table}/${JSON.stringify(r.key)}`;
      if (r.op === 'row') out.set(k, colsOf(r.cols));
      else out.delete(k);
    }
  }
  return out;
}

function withAgent<T>(file: string, fn: () => Promise<T>, tables?: DbTable[]): Promise<T> {
  const restore = useRegistry(BUILTIN.with(dbAgent(file, tables)));
  return fn().finally(restore);
}

test('rows are recorded per session with every value typed; an unchanged database appends nothing, across a restart too', async () => {
  const sb = sandbox({ name: 'db-basic' });
  const file = path.join(sb.home, 'agent', 'agent.db');
  const db = makeDb(file);
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses_1', 'first', '/w/one');
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses/2', 'second', null);
  putMsg(db, 'msg_1', 'ses_1', 'hello amber-otter', { blob: Buffer.from([0, 255, 1]), n: 9007199254740993n, r: 1.5 });
  putMsg(db, 'msg_2', 'ses_1', 'reply', { n: 7 });
  putMsg(db, 'msg_3', 'ses/2', 'other session');
  // Text whose bytes are not UTF-8 is kept as its bytes.
  db.prepare("UPDATE message SET data = CAST(X'41FF42' AS TEXT) WHERE id = 'msg_3'").run();
  try {
    await withAgent(file, async () => {
      const r1 = await pass(sb);
      assert.equal(r1.lanes.dbtoy.chunks, 2, JSON.stringify(r1));
      const one = lake(sb, 'ses_1').split('\n').filter(Boolean);
      assert.equal(one.length, 3);
      assert.equal(one[0], '{"op":"row","table":"session","key":["ses_1"],"cols":[["id","text","ses_1"],["title","text","first"],["directory","text","/w/one"]]}');
      const m1 = readRowLine(one[1]);
      assert.ok(m1 && m1.op === 'row');
      assert.deepEqual(m1.cols.slice(3, 6), [
        ['blob', 'blob', Buffer.from([0, 255, 1]).toString('base64')],
        ['n', 'integer', '9007199254740993'],
        ['r', 'real', 1.5],
      ]);
      assert.ok(fs.existsSync(path.join(sb.brain, 'lake', 'dbtoy', 'ses%2F2.rows.jsonl')));
      assert.equal(sessionFromRows('ses%2F2.rows.jsonl'), 'ses/2');
      const two = lake(sb, 'ses/2');
      assert.match(two, /\["data","text-b64","Qf9C"\]/);

      // The manifest claims exactly these bytes; sed + sha256sum checks a line range.
      const m = manifestLines(sb.brain).filter((x) => x.lane === 'dbtoy');
      assert.equal(m.length, 2);
      for (const x of m) {
        const text = fs.readFileSync(path.join(sb.brain, String(x.lake_path)));
        assert.equal(createHash('sha256').update(text.subarray(Number(x.byte_from), Number(x.byte_to))).digest('hex'), x.chunk_sha256);
        assert.equal(x.origin_path, `${file}#${x.session === 'ses_1' ? 'ses_1' : 'ses%2F2'}`);
        assert.equal(x.agent, 'dbtoy-agent');
      }
      assert.deepEqual(m.map((x) => x.session).sort(), ['ses/2', 'ses_1']);

      const before = floorBytes(sb);
      const r2 = await pass(sb);
      assert.equal(r2.lanes.dbtoy.chunks, 0);
      assert.equal(floorBytes(sb), before);
      // A restart that lost its state (the state file is a cache): rebuilt from the lake, no duplicate.
      fs.rmSync(path.join(sb.brain, 'offsets', 'dbtoy', '.rows-state.json'));
      fs.rmSync(path.join(sb.brain, 'offsets', 'dbtoy', '.rows-head.json'));
      db.prepare("UPDATE session SET title = 'first' WHERE id = 'ses_1'").run(); // a write that changes nothing
      const r3 = await pass(sb);
      assert.equal(r3.lanes.dbtoy.chunks, 0, JSON.stringify(r3.events));
      assert.ok(r3.events.some((e) => e.code === 'db-state-rebuilt'));
      assert.equal(floorBytes(sb), before);
      const v = verifyFloor(sb.brain, { deep: true });
      assert.deepEqual(v.problems, []);
    });
  } finally {
    db.close();
    sb.cleanup();
  }
});

test('a row edited in place gets a new version and the old stays; a deleted row gets a tombstone', async () => {
  const sb = sandbox({ name: 'db-edit' });
  const file = path.join(sb.home, 'agent.db');
  const db = makeDb(file);
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses_1', 't', '/w');
  putMsg(db, 'msg_1', 'ses_1', 'the violet-harbor plan');
  putMsg(db, 'msg_2', 'ses_1', 'the crimson-dune plan');
  try {
    await withAgent(file, async () => {
      // Three passes: the `changed` window needs two to be in place, so the third reads only changes.
      await pass(sb);
      putMsg(db, 'msg_1', 'ses_1', 'the violet-harbor plan, revised');
      await pass(sb);
      const afterEdit = lake(sb, 'ses_1');
      assert.ok(afterEdit.includes('the violet-harbor plan\\"'), afterEdit);
      assert.match(afterEdit, /the violet-harbor plan, revised/);
      db.prepare("DELETE FROM message WHERE id = 'msg_2'").run();
      putMsg(db, 'msg_1', 'ses_1', 'the violet-harbor plan, final');
      await pass(sb);
      const lines = lake(sb, 'ses_1').split('\n').filter(Boolean);
      assert.equal(lines.filter((l) => l.includes('"key":["msg_1"]')).length, 3);
      assert.equal(lines[lines.length - 1], '{"op":"del","table":"message","key":["msg_2"]}');
      assert.ok(lines.some((l) => l.includes('crimson-dune')), 'the deleted row\'s text stays on the floor');
      const cur = current(sb);
      assert.equal(cur.has('message/["msg_2"]'), false);
      assert.equal(JSON.parse(String(cur.get('message/["msg_1"]')?.data)).text, 'the violet-harbor plan, final');
      const before = floorBytes(sb);
      await pass(sb);
      assert.equal(floorBytes(sb), before);
    });
  } finally {
    db.close();
    sb.cleanup();
  }
});

test('a WAL checkpointed between passes and a database replaced by a new file lose and repeat nothing', async () => {
  const sb = sandbox({ name: 'db-wal' });
  const file = path.join(sb.home, 'agent.db');
  let db = makeDb(file);
  db.pragma('wal_autocheckpoint = 0');
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses_1', 't', '/w');
  for (let i = 0; i < 20; i++) putMsg(db, `m${i}`, 'ses_1', `text ${i}`);
  try {
    await withAgent(file, async () => {
      await pass(sb);
      assert.ok(fs.statSync(`${file}-wal`).size > 0);
      putMsg(db, 'm20', 'ses_1', 'after the first pass');
      db.pragma('wal_checkpoint(TRUNCATE)');
      putMsg(db, 'm21', 'ses_1', 'after the checkpoint');
      await pass(sb);
      await pass(sb);
      const cur = current(sb);
      assert.equal([...cur.keys()].filter((k) => k.startsWith('message/')).length, 22);
      const before = floorBytes(sb);
      // Replaced: a new file with one row changed, one gone and one new, renamed over the old.
      db.close();
      const tmp = `${file}.new`;
      fs.copyFileSync(file, tmp);
      const n = new Database(tmp);
      n.prepare("UPDATE message SET data = '{\"text\":\"replaced\"}' WHERE id = 'm3'").run();
      n.prepare("DELETE FROM message WHERE id = 'm4'").run();
      n.close();
      for (const s of ['-wal', '-shm']) fs.rmSync(`${file}${s}`, { force: true });
      fs.renameSync(tmp, file);
      db = new Database(file);
      const r = await pass(sb);
      assert.ok(r.events.some((e) => e.code === 'db-replaced'), JSON.stringify(r.events));
      const added = floorBytes(sb).slice(before.length);
      assert.ok(floorBytes(sb).startsWith(before.slice(0, 20)));
      const after = current(sb);
      assert.equal(JSON.parse(String(after.get('message/["m3"]')?.data)).text, 'replaced');
      assert.equal(after.has('message/["m4"]'), false);
      assert.ok(added.length > 0);
      assert.equal(lake(sb, 'ses_1').split('\n').filter((l) => l.includes('"key":["m5"]')).length, 1, 'an unchanged row is not written again');
    });
  } finally {
    db.close();
    sb.cleanup();
  }
});

const WRITER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.pragma('busy_timeout = 5000');
let i = 0;
const until = Date.now() + Number(process.argv[3]);
while (Date.now() < until) {
  const tx = db.transaction(() => {
    db.prepare('INSERT INTO message (id, session_id, data, time_updated) VALUES (?, ?, ?, ?)').run('w' + i, 'ses_' + (i % 3), JSON.stringify({ text: 'written ' + i }), Date.now());
    if (i > 5) db.prepare('UPDATE message SET data = ?, time_updated = ? WHERE id = ?').run(JSON.stringify({ text: 'edited ' + i }), Date.now(), 'w' + (i - 5));
    if (i % 7 === 0 && i > 10) db.prepare('DELETE FROM message WHERE id = ?').run('w' + (i - 9));
  });
  tx();
  i++;
}
db.close();
process.stdout.write(String(i));
`;

test('a database written by another process while passes read it: the record ends equal to the database', async () => {
  const sb = sandbox({ name: 'db-writer' });
  const file = path.join(sb.home, 'agent.db');
  const db = makeDb(file);
  db.close();
  try {
    await withAgent(file, async () => {
      const child = spawn(process.execPath, ['-e', WRITER, require.resolve('better-sqlite3'), file, '2500'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const done = new Promise<number | null>((res) => child.on('exit', res));
      let passes = 0;
      let exited = false;
      void done.then(() => (exited = true));
      while (!exited) {
        const r = await pass(sb, { dbBusyMs: 5000 });
        assert.equal(r.lanes.dbtoy.warnings, 0, JSON.stringify(r.events));
        passes++;
        // Lets the child's exit be seen: a pass alone may never give the event loop a turn.
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(await done, 0);
      assert.ok(Number(out) > 20, `the writer wrote ${out} transactions`);
      assert.ok(passes >= 2, `passes: ${passes}`);
      await pass(sb);
      const check = new Database(file, { readonly: true });
      const rows = check.prepare('SELECT id, session_id, data FROM message ORDER BY id').all() as { id: string; session_id: string; data: string }[];
      check.close();
      const cur = current(sb);
      const recorded = [...cur.entries()].filter(([k]) => k.startsWith('message/')).map(([, c]) => ({ id: c.id, session_id: c.session_id, data: c.data }));
      recorded.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
      assert.deepEqual(recorded, rows);
      // No row version is written twice in a row.
      for (const s of ['ses_0', 'ses_1', 'ses_2']) {
        const last = new Map<string, string>();
        for (const l of lake(sb, s).split('\n').filter(Boolean)) {
          const r = readRowLine(l)!;
          const k = JSON.stringify(r.key);
          assert.notEqual(last.get(k), l, `repeated: ${l}`);
          last.set(k, l);
        }
      }
    });
  } finally {
    sb.cleanup();
  }
});

const LOCKER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('BEGIN EXCLUSIVE');
db.prepare("INSERT INTO message (id, session_id, data, time_updated) VALUES ('locked', 'ses_1', '{}', 1)").run();
process.stdout.write('held\\n');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[3]));
`;

test('a locked database: the pass waits its timeout, says so, and loses nothing', async () => {
  const sb = sandbox({ name: 'db-locked' });
  const file = path.join(sb.home, 'agent.db');
  const db = makeDb(file, false); // a rollback journal: an exclusive lock keeps readers out
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses_1', 't', '/w');
  putMsg(db, 'msg_1', 'ses_1', 'before the lock');
  db.close();
  try {
    await withAgent(file, async () => {
      await pass(sb);
      // A change the next pass must read, then the lock.
      const w = new Database(file);
      putMsg(w, 'msg_2', 'ses_1', 'committed before the lock');
      w.close();
      const child = spawn(process.execPath, ['-e', LOCKER, require.resolve('better-sqlite3'), file, '3000'], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((res) => child.stdout.once('data', () => res()));
      const t0 = Date.now();
      const r = await pass(sb, { dbBusyMs: 400 });
      const took = Date.now() - t0;
      const ev = r.events.find((e) => e.code === 'db-locked');
      assert.ok(ev, JSON.stringify(r.events));
      assert.match(ev.message, /locked by another process for more than 400 ms/);
      assert.ok(took >= 400, `waited ${took} ms`);
      await new Promise((res) => child.on('exit', res));
      const r2 = await pass(sb);
      assert.equal(r2.lanes.dbtoy.warnings, 0);
      assert.ok(current(sb).has('message/["locked"]'));
      assert.ok(current(sb).has('message/["msg_2"]'));
    });
  } finally {
    sb.cleanup();
  }
});

test('brain watch: a commit to the database (its -wal) is recorded by a pass for that database', async () => {
  const sb = sandbox({ name: 'db-watch' });
  const file = path.join(sb.home, 'agentdata', 'agent.db');
  const db = makeDb(file);
  db.prepare('INSERT INTO session VALUES (?, ?, ?)').run('ses_1', 't', '/w');
  const restore = useRegistry(BUILTIN.with(dbAgent(file)));
  const passes: number[] = [];
  const w = startWatch({ home: sb.brain, env: sb.env, debounceMs: 50, onPass: (r) => void passes.push(r.lanes.dbtoy?.chunks ?? 0) });
  try {
    await w.ready;
    // Past the passes the start itself asks for: what follows is the watcher's doing.
    await new Promise((r) => setTimeout(r, 700));
    const before = passes.length;
    putMsg(db, 'msg_w', 'ses_1', 'written while watched: the saffron-kite');
    const until = Date.now() + 15_000;
    while (!lake(sb, 'ses_1').includes('saffron-kite') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    assert.ok(lake(sb, 'ses_1').includes('saffron-kite'), JSON.stringify(passes));
    assert.ok(passes.length > before);
  } finally {
    await w.close();
    restore();
    db.close();
    sb.cleanup();
  }
});
