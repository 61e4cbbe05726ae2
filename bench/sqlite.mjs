// Cost of recording an agent's SQLite database (src/core/floor/dbcapture.ts): a pass over an
// unchanged database, and over one where 100 rows changed, on a generated OpenCode-shaped database
// (session, message, part; WAL mode) of the bench's size, recorded by the real capture through the
// real OpenCode agent. Baselines from the same run: reading the database's header (what a pass over
// an unchanged database should cost) and `sha256sum` of the whole file (a scan).
//   node bench/sqlite.mjs [--size 1G]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('tsx/cjs');
const Database = require('better-sqlite3');
const { capture } = require('../src/core/floor/capture.ts');

const PART = 4000;
const SESSIONS = 100;

function ms(t0) {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function build(file, size) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT NOT NULL, title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
           CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
           CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
           CREATE INDEX part_session_idx ON part (session_id);`);
  const n = Math.ceil(size / (PART + 200));
  let t = 1_750_000_000_000;
  const words = 'the quick brown fox jumps over a lazy dog while agents write code and tests '.split(' ');
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const text = () => {
    let s = '';
    while (s.length < PART) s += `${words[rnd() % words.length]} `;
    return s;
  };
  const ins = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const ses = `ses_${String(i % SESSIONS).padStart(4, '0')}`;
      if (i < SESSIONS) db.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?)').run(ses, `/w/p${i}`, `session ${i}`, t, t);
      const msg = `msg_${String(i).padStart(9, '0')}`;
      db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(msg, ses, t, t, JSON.stringify({ role: i % 2 ? 'assistant' : 'user', time: { created: t } }));
      db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${String(i).padStart(9, '0')}`, msg, ses, t, t, JSON.stringify({ type: 'text', text: text() }));
      t++;
    }
  });
  for (let i = 0; i < n; i += 10_000) ins(i, Math.min(n, i + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return n;
}

export async function run(opts = {}) {
  const size = opts.size ?? 1 << 30;
  const outRoot = opts.outRoot ?? path.join(path.dirname(new URL(import.meta.url).pathname), 'out');
  const dir = path.join(outRoot, `sqlite-${size}`);
  const home = path.join(dir, 'home');
  const file = path.join(home, '.local', 'share', 'opencode', 'opencode.db');
  const brain = path.join(dir, 'brain');
  const env = { HOME: home, BRAIN_HOME: brain, BRAIN_MACHINE: 'bench', XDG_DATA_HOME: path.join(home, '.local', 'share'), TZ: 'UTC' };
  const fmt = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
  fs.rmSync(brain, { recursive: true, force: true });
  let rows;
  if (!fs.existsSync(`${file}.ok`)) {
    fs.rmSync(dir, { recursive: true, force: true });
    const t0 = process.hrtime.bigint();
    rows = build(file, size);
    fs.writeFileSync(`${file}.ok`, String(rows));
    console.log(`database: ${rows} parts in ${SESSIONS} sessions, ${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MB (built in ${fmt(ms(t0))})`);
  } else {
    rows = Number(fs.readFileSync(`${file}.ok`, 'utf8'));
    console.log(`database: ${rows} parts, ${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MB (reused)`);
  }
  // Baselines: the header (100 bytes of the file and a stat of the -wal), and a scan of the file.
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < 100; i++) {
    const fd = fs.openSync(file, 'r');
    fs.readSync(fd, Buffer.alloc(100), 0, 100, 0);
    fs.closeSync(fd);
    try {
      fs.statSync(`${file}-wal`);
    } catch {}
  }
  const headerMs = ms(t0) / 100;
  t0 = process.hrtime.bigint();
  const sum = spawnSync('sha256sum', [file]);
  if (sum.error) throw new Error('sha256sum is missing: apt-get install -y coreutils');
  const shaMs = ms(t0);
  const pass = async () => {
    const t = process.hrtime.bigint();
    const r = await capture({ home: brain, env, quietMs: 0, lockWaitMs: 10_000 });
    return { ms: ms(t), r };
  };
  const first = await pass();
  const lakeBytes = first.r.lanes.opencode.bytes;
  // The `changed` window settles on the second pass (it reads from the value the pass before last saw).
  const second = await pass();
  const unchanged = [];
  for (let i = 0; i < 5; i++) unchanged.push((await pass()).ms);
  unchanged.sort((a, b) => a - b);
  const unchangedMs = unchanged[2];
  // 100 rows changed in place (new text, newer time_updated), by a writer like the agent.
  const w = new Database(file);
  const upd = w.prepare('UPDATE part SET data = ?, time_updated = ? WHERE id = ?');
  const now = Date.now() + 10 ** 9;
  w.transaction(() => {
    for (let i = 0; i < 100; i++) upd.run(JSON.stringify({ type: 'text', text: `edited ${i}` }), now + i, `prt_${String(Math.floor((i * rows) / 100)).padStart(9, '0')}`);
  })();
  w.close();
  const changed = await pass();
  const changedLines = changed.r.lanes.opencode.lines;
  const r = {
    db_bytes: fs.statSync(file).size,
    rows,
    header_ms: headerMs,
    sha256sum_ms: shaMs,
    first_pass_ms: first.ms,
    first_pass_lake_bytes: lakeBytes,
    second_pass_ms: second.ms,
    unchanged_pass_ms: unchangedMs,
    changed_100_pass_ms: changed.ms,
    changed_100_lines: changedLines,
  };
  console.log(`baselines: header read ${fmt(headerMs)}, sha256sum of the file ${fmt(shaMs)}`);
  console.log(`first pass (every row recorded): ${fmt(first.ms)} (${(first.ms / shaMs).toFixed(1)}× sha256sum), ${(lakeBytes / 2 ** 20).toFixed(0)} MB of row records; second pass (window settling, appends ${second.r.lanes.opencode.lines} lines): ${fmt(second.ms)}`);
  console.log(`pass over the unchanged database: ${fmt(unchangedMs)} median of 5 (${(unchangedMs / headerMs).toFixed(0)}× the header read, ${(unchangedMs / shaMs).toFixed(4)}× sha256sum)`);
  console.log(`pass after 100 rows changed: ${fmt(changed.ms)}, ${changedLines} lines appended (${(changed.ms / shaMs).toFixed(2)}× sha256sum, ${(changed.ms / headerMs).toFixed(0)}× the header read)`);
  return r;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = process.argv.slice(2);
  const s = a.includes('--size') ? a[a.indexOf('--size') + 1] : '1G';
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/i.exec(s);
  const size = m ? Number(m[1]) * { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 }[m[2].toUpperCase()] : 2 ** 30;
  await run({ size });
}
