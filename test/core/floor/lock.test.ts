// One writer: the floor lock is a kernel lock that dies with its holder, with SQLite's lock and with
// the flock(1) fallback used when better-sqlite3 cannot load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { CLI, brain, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

const holder = (locks: string, noSqlite: boolean) => `
process.env.BRAIN_NO_SQLITE = ${noSqlite ? "'1'" : "''"};
require('tsx/cjs');
const { tryLock } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/core/floor/lock.ts'))});
// The holder keeps no reference to its lock and collects garbage before it says "held": a lock must
// not die with its JavaScript object, only with its process.
tryLock(${JSON.stringify(locks)}, 'floor').then((l) => { const ok = !!l; l = null; global.gc(); setTimeout(() => { global.gc(); console.log(ok ? 'held' : 'busy'); }, 50); setInterval(() => {}, 1000); });
`;

for (const noSqlite of [false, true]) {
  const kind = noSqlite ? 'flock(1) fallback' : 'SQLite lock';
  test(`${kind}: a held lock makes record wait (exit 75 with --wait 0), and dies with its holder`, async () => {
    const sb = sandbox({ fixtures: true, name: noSqlite ? 'flock' : 'sqlock' });
    const env = { ...sb.env, ...(noSqlite ? { BRAIN_NO_SQLITE: '1' } : {}) };
    let h: ChildProcess | undefined;
    try {
      assert.equal(brain(sb, ['record'], { env }).status, 0);
      h = spawn(process.execPath, ['--expose-gc', '-e', holder(path.join(sb.brain, 'locks'), noSqlite)], { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
      const child = h;
      const exited = new Promise((r) => child.on('exit', r));
      const first = await new Promise<string>((r) => child.stdout?.once('data', (d) => r(String(d).trim())));
      assert.equal(first, 'held');
      const busy = brain(sb, ['record', '--wait', '0'], { env });
      assert.equal(busy.status, 75, busy.stderr);
      assert.match(busy.stderr, /another brain process is writing/);
      h.kill('SIGKILL');
      await exited;
      const after = brain(sb, ['record', '--wait', '5'], { env });
      assert.equal(after.status, 0, `the lock died with its holder: ${after.stderr}`);
    } finally {
      // A failed assertion must not leave the holder running (the test file would never end).
      h?.kill('SIGKILL');
      sb.cleanup();
    }
  });
}

test('eight concurrent records with the flock(1) fallback capture exactly once', async () => {
  const sb = sandbox({ fixtures: true, name: 'flock8' });
  const env = { ...sb.env, BRAIN_NO_SQLITE: '1' };
  try {
    const codes = await Promise.all(
      Array.from({ length: 8 }, () => new Promise<number | null>((res) => spawn(process.execPath, [CLI, 'record'], { env, stdio: 'ignore' }).on('exit', res))),
    );
    assert.deepEqual(codes, Array(8).fill(0));
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl'));
    assert.equal(new Set(m.lines.map((l) => l.lake_path)).size, m.lines.length);
    assert.equal(brain(sb, ['verify'], { env }).status, 0);
  } finally {
    sb.cleanup();
  }
});
