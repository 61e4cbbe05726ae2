// brain rebuild through the built CLI: rebuilds from the floor alone, --update adds only what the
// manifest gained, --json; the cache file is private and can be deleted.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../helpers/env';

test('brain rebuild and rebuild --update', () => {
  const sb = sandbox({ fixtures: true, name: 'cli-rebuild' });
  try {
    const env = { BRAIN_QUIET_SECONDS: '0' };
    assert.equal(brain(sb, ['record', '--no-caches'], { env }).status, 0);
    const r = brain(sb, ['rebuild', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.mode, 'rebuild');
    assert.ok(j.manifestLines > 40 && j.files > 40);
    assert.deepEqual(j.problems, []);
    assert.equal(fs.statSync(path.join(sb.brain, 'brain.duckdb')).mode & 0o777, 0o600);
    // The turn index is rebuilt too: a fresh file, every file of the floor read again.
    assert.equal(j.index.ok, true, JSON.stringify(j.index));
    assert.ok(j.index.files > 40 && j.index.turns > 500, JSON.stringify(j.index));
    assert.equal(fs.statSync(path.join(sb.brain, 'turns.sqlite')).mode & 0o777, 0o600);
    const ino = fs.statSync(path.join(sb.brain, 'turns.sqlite')).ino;
    const again1 = JSON.parse(brain(sb, ['rebuild', '--json']).stdout);
    assert.equal(again1.index.turns, j.index.turns, 'a rebuild reads the same turns again');
    assert.notEqual(fs.statSync(path.join(sb.brain, 'turns.sqlite')).ino, ino, 'a new file, not the old one updated');
    const hit = JSON.parse(brain(sb, ['search', 'does it only run on main', '--json']).stdout);
    assert.equal(hit.source, 'index');
    assert.ok(hit.hits.length >= 1);

    const cur = brain(sb, ['rebuild', '--update']);
    assert.equal(cur.status, 0, cur.stderr);
    assert.match(cur.stdout, /is current with the manifest/);
    assert.match(cur.stdout, /Updated .*turns\.sqlite in [\d.]+ s: 0 new entries/);

    const f = path.join(sb.home, '.pi', 'agent', 'sessions', '--tmp-new--', '2026-01-01T00-00-00-000Z_77777777-7777-4777-8777-777777777777.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, '{"type":"session","version":3,"id":"77777777-7777-4777-8777-777777777777","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/new"}\n');
    assert.equal(brain(sb, ['record', '--no-caches'], { env }).status, 0);
    const up = brain(sb, ['rebuild', '--update']);
    assert.equal(up.status, 0, up.stderr);
    assert.match(up.stdout, /^Updated .*brain\.duckdb in [\d.]+ s: 1 manifest lines, 1 files/);

    fs.rmSync(path.join(sb.brain, 'brain.duckdb'));
    const again = brain(sb, ['rebuild']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^Rebuilt /);
    const n = JSON.parse(brain(sb, ['sql', '--json', "SELECT count(*) FROM derived.sessions WHERE project = '/tmp/new'"]).stdout);
    assert.deepEqual(n.rows, [[1]]);
  } finally {
    sb.cleanup();
  }
});
