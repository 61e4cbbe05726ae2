// Red team: `brain export --parquet DIR` on a machine with no store wrote its files and then exited
// 3 (ENOENT …/.brain-export/stamps.json.tmp): the work folder that holds the stamps was only ever
// made by fetching other machines' floors. Without a store the export must succeed, twice (the
// second run finds this machine unchanged by its stamp).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../helpers/env';

test('export --parquet without a store: exit 0, files written, stamps kept', () => {
  const sb = sandbox({ fixtures: true, name: 'rt-export' });
  try {
    const r = brain(sb, ['record']);
    assert.equal(r.status, 0, r.stderr);
    const dir = path.join(sb.dir, 'parquet');
    const e = brain(sb, ['export', '--parquet', dir, '--json']);
    assert.equal(e.status, 0, e.stdout + e.stderr);
    const j = JSON.parse(e.stdout);
    assert.equal(j.machines.length, 1);
    assert.equal(j.machines[0].state, 'written');
    assert.ok(fs.existsSync(path.join(dir, 'sessions', 'machine=testbox')), 'sessions written');
    assert.ok(fs.existsSync(path.join(dir, '.brain-export', 'stamps.json')), 'stamps kept');
    const again = brain(sb, ['export', '--parquet', dir, '--json']);
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.equal(JSON.parse(again.stdout).machines[0].state, 'current');
  } finally {
    sb.cleanup();
  }
});
