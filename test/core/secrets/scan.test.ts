import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { tryLock } from '../../../src/core/floor/lock';
import { readCache } from '../../../src/core/secrets/cache';
import { rescanAll, scanNewChunks, scanPending, secretsSummary } from '../../../src/core/secrets';
import { brain, sandbox, type Sandbox } from '../../helpers/env';
import { assertAllFound, assertMasked, floorSnapshot, guardOutputs, manifest, plantedFloor, record, type PlantedFloor } from './floor';
import { plantedKeys } from './plant';

const boxes: Sandbox[] = [];
after(() => {
  for (const b of boxes) b.cleanup();
});

function floor(name: string): PlantedFloor {
  const pf = plantedFloor(name);
  boxes.push(pf.sb);
  return pf;
}

describe('secret scan over the floor', () => {
  it('scanNewChunks scans exactly the applied chunks; scanPending then has nothing left to do', async () => {
    const pf = floor('sec-new');
    const before = floorSnapshot(pf.sb);
    const lines = manifest(pf.sb);
    const r = await scanNewChunks(pf.sb.brain, lines);
    assert.equal(r.ran, true);
    assert.equal(r.chunks, lines.length);
    assert.equal(r.bytes, lines.reduce((a, m) => a + m.byte_to - m.byte_from, 0));
    assertAllFound(pf, readCache(pf.sb.brain).cache.findings);
    const again = await scanPending(pf.sb.brain);
    assert.equal(again.bytes, 0, 'chunks scanned right after capture are not read again');
    assert.equal(again.total, r.total);
    assert.deepEqual(floorSnapshot(pf.sb), before, 'the floor changed');
    for (const o of guardOutputs(pf.sb)) assertMasked(pf, o.text, o.file);
  });

  it('scanPending catches up from the manifest and reads only what was appended since', async () => {
    const pf = floor('sec-pending');
    const first = await scanPending(pf.sb.brain);
    assert.equal(first.chunks, 3);
    assertAllFound(pf, readCache(pf.sb.brain).cache.findings);

    // One more line with a new key, appended to the Claude Code session.
    const extra = plantedKeys(99).find((k) => k.name === 'github-classic')!;
    const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: `and this one ${extra.secret}` }, timestamp: '2026-01-05T11:00:00.000Z' })}\n`;
    fs.appendFileSync(pf.files[0].origin, line);
    record(pf.sb);
    const before = floorSnapshot(pf.sb);
    const second = await scanPending(pf.sb.brain);
    assert.equal(second.chunks, 1);
    assert.equal(second.bytes, Buffer.byteLength(line), 'only the appended bytes are scanned');
    assert.equal(second.added.length, 1);
    const f = second.added[0];
    assert.equal(f.kind, 'github');
    assert.equal(f.citation.line_from, pf.files[0].lines.length + 1);
    assert.equal(f.preview, `${extra.secret.slice(0, 4)}…${extra.secret.slice(-2)}`);
    assert.deepEqual(floorSnapshot(pf.sb), before);

    const none = await scanPending(pf.sb.brain);
    assert.equal(none.bytes, 0);
  });

  it('rescanAll and a deleted cache rebuild the same findings; first-seen times survive a rescan', async () => {
    const pf = floor('sec-rescan');
    await scanPending(pf.sb.brain);
    const a = readCache(pf.sb.brain).cache.findings;
    const r = await rescanAll(pf.sb.brain);
    assert.equal(r.chunks, 3);
    const b = readCache(pf.sb.brain).cache.findings;
    assert.deepEqual(
      b.map((f) => [f.id, f.first_seen]).sort(),
      a.map((f) => [f.id, f.first_seen]).sort(),
    );
    const salt = readCache(pf.sb.brain).cache.salt;
    fs.rmSync(path.join(pf.sb.brain, 'secrets.json'));
    await scanPending(pf.sb.brain);
    const c = readCache(pf.sb.brain).cache;
    assert.notEqual(c.salt, salt, 'a new cache gets a new salt');
    assert.equal(c.findings.length, a.length);
    assertAllFound(pf, c.findings);
  });

  it('two scans at once record each finding once', async () => {
    const pf = floor('sec-race');
    const [x, y] = await Promise.all([scanPending(pf.sb.brain), scanPending(pf.sb.brain)]);
    assert.equal(x.chunks + y.chunks, 3, 'the second waits for the first and finds nothing new');
    const ids = readCache(pf.sb.brain).cache.findings.map((f) => f.id);
    assert.equal(new Set(ids).size, ids.length);
    assertAllFound(pf, readCache(pf.sb.brain).cache.findings);
  });

  it('with waitMs 0 a scan does not wait for one already running', async () => {
    const pf = floor('sec-busy');
    const held = await tryLock(path.join(pf.sb.brain, 'locks'), 'secrets');
    assert.ok(held);
    try {
      const r = await scanPending(pf.sb.brain, { waitMs: 0 });
      assert.equal(r.ran, false);
      assert.equal(fs.existsSync(path.join(pf.sb.brain, 'secrets.json')), false);
    } finally {
      held.release();
    }
    assert.equal((await scanPending(pf.sb.brain, { waitMs: 0 })).chunks, 3);
  });

  it('secretsSummary counts findings, credentials and sessions and names the newest', async () => {
    const pf = floor('sec-summary');
    const empty = secretsSummary(pf.sb.brain);
    assert.equal(empty.count, 0);
    assert.equal(empty.last_scan, null);
    assert.ok(empty.pending_bytes > 0);
    await scanPending(pf.sb.brain);
    const s = secretsSummary(pf.sb.brain);
    const expected = pf.files.reduce((a, f) => a + f.lines.reduce((b, l) => b + l.keys.length, 0), 0);
    assert.equal(s.count, expected);
    assert.equal(s.secrets, pf.keys.length);
    assert.equal(s.sessions, 3);
    assert.equal(s.pending_bytes, 0);
    assert.ok(s.newest && s.newest.preview.includes('…'));
    assert.match(s.newest.rotate, /\w/);
    assertMasked(pf, JSON.stringify(s), 'the summary');
  });

  it('a private key pasted into a plain-text transcript and captured in two parts is found once, whole', async () => {
    const sb = sandbox({ name: 'sec-split-pem' });
    boxes.push(sb);
    const key = plantedKeys(5).find((k) => k.name === 'openssh-private-key')!;
    const lines = key.secret.split('\n');
    const half = Math.floor(lines.length / 2);
    const origin = path.join(sb.home, '.cursor', 'projects', 'work', 'agent-transcripts', 'split-key.txt');
    fs.mkdirSync(path.dirname(origin), { recursive: true });
    const head = 'user:\n<user_query>\nwhy does ssh reject this key?\n';
    fs.writeFileSync(origin, head + lines.slice(0, half).join('\n') + '\n');
    record(sb);
    const first = await scanPending(sb.brain);
    assert.equal(first.added.length, 0, 'half a key is not a finding yet');
    fs.appendFileSync(origin, lines.slice(half).join('\n') + '</user_query>\n\nassistant:\nThat key is truncated.\n');
    record(sb);
    const chunks = manifest(sb);
    assert.equal(chunks.length, 2, 'the transcript was captured in two chunks');
    const second = await scanPending(sb.brain);
    assert.equal(second.bytes, chunks[1].byte_to - chunks[1].byte_from, 'bytes count the new chunk only');
    assert.equal(second.added.length, 1, JSON.stringify(second.added.map((f) => f.rule)));
    const f = second.added[0];
    assert.equal(f.kind, 'private-key');
    assert.equal(f.citation.line_from, 4, 'cited from the BEGIN line');
    assert.equal(f.citation.line_to, 3 + lines.length - 1, 'to the END line');
    // The citation checks by hand: its bytes are the lines it names.
    const lake = fs.readFileSync(path.join(sb.brain, f.citation.lake_path));
    assert.match(lake.subarray(f.citation.byte_from, f.citation.byte_to).toString('latin1'), /-----BEGIN OPENSSH PRIVATE KEY-----[\s\S]*-----END OPENSSH PRIVATE KEY-----/);
    assert.equal((await rescanAll(sb.brain)).total, 1, 'a rescan of the whole file finds the same one key');
  });

  it('a damaged copy of a floor is reported as scan errors, not thrown, and not repaired', async () => {
    const pf = floor('sec-damaged');
    const copy = sandbox({ name: 'sec-damaged-copy' });
    boxes.push(copy);
    fs.cpSync(pf.sb.brain, copy.brain, { recursive: true });
    const lake = path.join(copy.brain, manifest(pf.sb)[0].lake_path);
    fs.truncateSync(lake, 100);
    const r = await scanPending(copy.brain);
    assert.equal(r.errors, 1);
    assert.equal(fs.statSync(lake).size, 100);
    assert.equal(secretsSummary(copy.brain).errors, 1);
    const v = brain(copy, ['verify']);
    assert.equal(v.status, 1, 'verify names the damage the scan met');
  });
});

describe('secret scan and symlinks', () => {
  it('a lake file replaced by a symlink is not read through: its chunks are errors, its keys are not found', async () => {
    const pf = floor('sec-symlink');
    const lakePath = manifest(pf.sb).find((m) => m.lane === 'cc')!.lake_path;
    const lake = path.join(pf.sb.brain, lakePath);
    const outside = path.join(pf.sb.dir, 'outside.jsonl');
    fs.renameSync(lake, outside);
    fs.symlinkSync(outside, lake);
    const r = await rescanAll(pf.sb.brain);
    assert.equal(r.ran, true);
    const { cache } = readCache(pf.sb.brain);
    assert.ok(cache.errors.some((e) => e.lake_path === lakePath && /is a symlink: refused/.test(e.message)), JSON.stringify(cache.errors));
    assert.ok(cache.findings.every((f) => f.citation.lake_path !== lakePath), 'nothing found through the symlink');
    assert.ok(cache.findings.length > 0, 'the other files are still scanned');
  });
});
