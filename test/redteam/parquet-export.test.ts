// Red team: `brain export --parquet DIR` carried every secret of the floor in clear, in files
// readable by every user of the machine (0644). The export is read from the cache, which stores
// its text masked: read back with DuckDB, no planted key nor any 10-character piece of one is in
// it; and every file it writes is 0600, every folder 0700.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { brain, listFiles, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';

let sb: Sandbox;
let pf: PlantedFloor;
let out: string;
before(() => {
  sb = sandbox({ fixtures: true, name: 'rt-parquet' });
  pf = plantSessions(sb);
  record(sb);
  out = path.join(sb.dir, 'export');
  const r = brain(sb, ['export', '--parquet', out], { timeout: 300_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
after(() => sb?.cleanup());

test('the export holds no planted key in clear', async () => {
  const files = listFiles(out).filter((f) => f.endsWith('.parquet'));
  assert.ok(files.length > 0, 'parquet files written');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const texts: string[] = [];
    for (const t of ['messages', 'tool_calls', 'sessions', 'files', 'usage']) {
      if (!fs.existsSync(path.join(out, t))) continue;
      const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${path.join(out, t).replace(/'/g, "''")}/**/*.parquet', hive_partitioning = true)`);
      for (const row of r.getRowsJson()) texts.push(JSON.stringify(row));
    }
    assert.ok(texts.length > 10, `${texts.length} rows read back`);
    assertMasked(pf, texts.join('\n'), 'the Parquet export');
  } finally {
    c.closeSync();
    db.closeSync();
  }
});

test('every file the export writes is 0600 and every folder 0700', () => {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const mode = fs.statSync(p).mode & 0o777;
      if (e.isDirectory()) {
        assert.equal(mode, 0o700, `${p} is ${mode.toString(8)}`);
        walk(p);
      } else assert.equal(mode, 0o600, `${p} is ${mode.toString(8)}`);
    }
  };
  walk(out);
});
