// Cursor's state.vscdb can be tens of GB; its chats are two key ranges of one table. A pass must
// read those keys through the table's index, not scan the table: measured here as the bytes this
// process reads (/proc/self/io rchar, which counts every read SQLite makes, cached or not) while a
// real capture records a database of 200,000 unrelated keys (about 100 MB) around one chat, against
// the bytes one scan of that table reads.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { capture } from '../../../src/core/floor/capture';
import { sandbox } from '../../helpers/env';
import { buildCursorIde, COMPOSER, CURSOR_BUBBLES } from '../../fixtures/cursor_ide/build';

function rchar(): number {
  const m = /^rchar:\s*(\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
  assert.ok(m, '/proc/self/io has rchar');
  return Number(m[1]);
}

test('Cursor IDE: the session keys among 200,000 unrelated keys are read by index range, the rest never', { skip: process.platform !== 'linux' && 'reads /proc/self/io (Linux)' }, async () => {
  const sb = sandbox({ name: 'cursor-range' });
  try {
    const db = path.join(sb.env.XDG_CONFIG_HOME!, 'Cursor', 'User', 'globalStorage', 'state.vscdb');
    fs.mkdirSync(path.dirname(db), { recursive: true });
    buildCursorIde(db, { unrelated: 200_000, unrelatedBytes: 400 });
    const size = fs.statSync(db).size + (fs.existsSync(`${db}-wal`) ? fs.statSync(`${db}-wal`).size : 0);
    assert.ok(size > 80e6, `the database is ${size} bytes`);

    // What one scan of the table reads, measured the same way: the yardstick.
    const scan = new BetterSqlite3(db, { readonly: true });
    const s0 = rchar();
    const n = (scan.prepare(`SELECT count(*) AS n FROM cursorDiskKV WHERE value LIKE '%"i":7,%'`).get() as { n: number }).n;
    const scanBytes = rchar() - s0;
    scan.close();
    assert.ok(n >= 1);
    assert.ok(scanBytes > size / 2, `a scan read ${scanBytes} of ${size} bytes`);

    const r0 = rchar();
    const rec = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
    const passBytes = rchar() - r0;
    assert.equal(rec.lanes.cursor_ide?.files, 1, JSON.stringify(rec.lanes));
    const lake = fs.readFileSync(path.join(sb.brain, 'lake', 'cursor_ide', `${COMPOSER}.rows.jsonl`), 'utf8').trim().split('\n');
    assert.equal(lake.length, 1 + CURSOR_BUBBLES.length);
    for (const l of lake) assert.match(l, /"key":\["(composerData|bubbleId):98251e54/);
    // The pass reads a small fraction of what a scan reads (the capture's own files included).
    assert.ok(passBytes < scanBytes / 20, `the pass read ${passBytes} bytes, a scan ${scanBytes}`);
  } finally {
    sb.cleanup();
  }
});
