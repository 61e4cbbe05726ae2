import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { SecretGroup, SecretsSummary } from '../../src/core/secrets';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { assertAllFound, assertMasked, floorSnapshot, guardOutputs, lakePathOf, plantSessions, record } from '../core/secrets/floor';
import { plantedKeys } from '../core/secrets/plant';

const boxes: Sandbox[] = [];
after(() => {
  for (const b of boxes) b.cleanup();
});

interface Out {
  summary: SecretsSummary;
  scan: { ran: boolean; chunks: number; bytes: number };
  secrets: SecretGroup[];
}

describe('brain secrets', () => {
  it('exits 0 with no findings on the real fixtures (false positives: none)', () => {
    const sb = sandbox({ fixtures: true, name: 'cli-sec-fx' });
    boxes.push(sb);
    record(sb);
    const r = brain(sb, ['secrets']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /no secrets found/);
    const j = JSON.parse(brain(sb, ['secrets', '--json']).stdout) as Out;
    assert.equal(j.summary.count, 0);
    assert.ok(j.summary.last_scan);
    assert.equal(j.summary.pending_bytes, 0);
  });

  it('lists planted keys of every kind with checkable citations, masked, store copies, and leaves the floor alone', () => {
    const sb = sandbox({ name: 'cli-sec' });
    boxes.push(sb);
    const pf = plantSessions(sb);
    const store = path.join(sb.dir, 'store');
    const init = brain(sb, ['init', '--store', store, '--machine', 'testbox', '--no-hooks', '--no-timer']);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    record(sb);
    const sync = brain(sb, ['sync', '--now']);
    assert.equal(sync.status, 0, sync.stdout + sync.stderr);
    // Another machine's store folder that happens to hold the same session.
    const ccLake = lakePathOf(sb, pf.files[0].origin);
    fs.mkdirSync(path.dirname(path.join(store, 'otherbox', ccLake)), { recursive: true });
    fs.copyFileSync(path.join(sb.brain, ccLake), path.join(store, 'otherbox', ccLake));
    const before = floorSnapshot(sb);

    const human = brain(sb, ['secrets']);
    assert.equal(human.status, 1, human.stderr);
    assert.match(human.stdout, /Rotate: /);
    assert.match(human.stdout, /store copies: otherbox, testbox/);
    assert.match(human.stdout, /sed -n '\d+p' .* \| sha256sum/);
    const jr = brain(sb, ['secrets', '--json']);
    assert.equal(jr.status, 1);
    const j = JSON.parse(jr.stdout) as Out;
    assert.equal(j.scan.bytes, 0, 'the second run has nothing new to scan');
    const places = j.secrets.flatMap((g) => g.places);
    assertAllFound(pf, places);
    assert.equal(j.summary.secrets, pf.keys.length);
    for (const g of j.secrets) {
      assert.match(g.rotate, /treat the session as exposed/);
      for (const p of g.places) {
        assert.equal(p.lake_file, path.join(sb.brain, p.citation.lake_path));
        assert.equal(p.store_copies.store, 'local');
        assert.deepEqual(p.store_copies.machines, p.citation.lake_path === ccLake ? ['otherbox', 'testbox'] : ['testbox']);
      }
    }

    const rescan = brain(sb, ['secrets', '--rescan', '--json']);
    assert.equal(rescan.status, 1);
    const jr2 = JSON.parse(rescan.stdout) as Out;
    assert.equal(jr2.scan.chunks, 3);
    assert.equal(jr2.summary.count, j.summary.count);

    for (const [where, text] of [
      ['stdout', human.stdout + human.stderr],
      ['--json', jr.stdout + jr.stderr],
      ['--rescan', rescan.stdout + rescan.stderr],
      ...guardOutputs(sb).map((o) => [o.file, o.text]),
    ]) {
      assertMasked(pf, text, where);
    }

    assert.deepEqual(floorSnapshot(sb), before, 'brain secrets changed the floor');
    const v = brain(sb, ['verify']);
    assert.equal(v.status, 0, v.stdout);
    for (const f of pf.files) {
      assert.ok(fs.readFileSync(path.join(sb.brain, lakePathOf(sb, f.origin))).equals(fs.readFileSync(f.origin)), `${f.origin}: lake bytes differ`);
    }
  });

  it('says where an ssh store copy is known from, without contacting the host', () => {
    const sb = sandbox({ name: 'cli-sec-ssh' });
    boxes.push(sb);
    plantSessions(sb);
    record(sb);
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), 'machine = "testbox"\n[store]\nhost = "backup.invalid"\npath = "/srv/brain"\n');
    const r = brain(sb, ['secrets', '--json']);
    assert.equal(r.status, 1, r.stderr);
    const j = JSON.parse(r.stdout) as Out;
    const sc = j.secrets[0].places[0].store_copies;
    assert.equal(sc.store, 'ssh');
    assert.deepEqual(sc.machines, []);
    assert.match(sc.note ?? '', /not contacted/);
  });

  it('cites a PEM block that spans plain-text lines as a line range that sed | sha256sum confirms', () => {
    const sb = sandbox({ name: 'cli-sec-pem' });
    boxes.push(sb);
    const pem = plantedKeys(13).find((k) => k.name === 'openssh-private-key')!;
    const origin = path.join(sb.home, '.claude', 'projects', '-work-txt', 'pasted.jsonl');
    fs.mkdirSync(path.dirname(origin), { recursive: true });
    // Lines that are not JSON are still captured (never dropped) and still scanned.
    fs.writeFileSync(origin, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'key follows' } })}\n${pem.secret}trailing words\n`);
    record(sb);
    const r = brain(sb, ['secrets', '--json']);
    assert.equal(r.status, 1, r.stderr);
    const p = (JSON.parse(r.stdout) as Out).secrets[0].places[0];
    const n = pem.secret.split('\n').length - 1;
    assert.deepEqual([p.citation.line_from, p.citation.line_to], [2, 1 + n]);
    const sh = spawnSync('sh', ['-c', p.check], { encoding: 'utf8' });
    assert.equal(sh.stdout.split(' ')[0], p.citation.sha256);
    assert.match(p.check, new RegExp(`sed -n '2,${1 + n}p'`));
    assertMasked({ sb, keys: [pem], files: [] }, r.stdout, 'stdout');
  });

  it('rejects unknown options with exit 2', () => {
    const sb = sandbox({ name: 'cli-sec-usage' });
    boxes.push(sb);
    assert.equal(brain(sb, ['secrets', '--bogus']).status, 2);
  });
});
