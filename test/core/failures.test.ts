// The failure log beside state.json: a sync or capture failure is kept after the next run works, so
// a backup that fails every other run shows in status and doctor; bounded; bursts are one entry.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { FAILURE_LOG_MAX, failureLogPath, noteFailure, readFailures, recentFailures } from '../../src/core/floor/failures';
import { brain, sandbox } from '../helpers/env';
import { RSYNC, setRsyncPath, setupStore } from '../store/harness';

describe('failure log', () => {
  it('keeps only the last entries, counts a burst once, and leaves out what is older than a day', () => {
    const sb = sandbox({ name: 'failures' });
    try {
      fs.mkdirSync(sb.brain, { recursive: true });
      const t0 = Date.UTC(2026, 0, 1);
      for (let i = 0; i < FAILURE_LOG_MAX + 5; i++) noteFailure(sb.brain, { kind: 'sync', label: `label ${i}`, message: `m${i}` }, t0 + i * 120_000);
      const all = readFailures(sb.brain);
      assert.equal(all.length, FAILURE_LOG_MAX);
      assert.equal(all[0].label, 'label 5', 'the oldest went first');
      assert.equal(fs.readFileSync(failureLogPath(sb.brain), 'utf8').trim().split('\n').length, FAILURE_LOG_MAX);
      const t1 = t0 + 3 * 86_400_000;
      for (let i = 0; i < 50; i++) noteFailure(sb.brain, { kind: 'capture', label: 'disk full', message: 'full' }, t1 + i * 1000);
      noteFailure(sb.brain, { kind: 'sync', label: 'store unreachable', message: 'down' }, t1 + 60_000);
      const r = recentFailures(sb.brain, t1 + 120_000)!;
      assert.equal(r.count, 51);
      assert.equal(r.summary, '51 failures in the last 24 h: capture disk full ×50, sync store unreachable');
      assert.equal(readFailures(sb.brain).filter((e) => e.label.startsWith('label')).length, FAILURE_LOG_MAX - 2, 'a burst is one entry');
    } finally {
      sb.cleanup();
    }
  });

  it('shows a sync that fails every other run in status and doctor, though the last one worked', async () => {
    const s = await setupStore('failures-flap');
    try {
      for (const bin of ['/nonexistent/rsync', RSYNC, '/nonexistent/rsync', RSYNC]) {
        setRsyncPath(s.sb.brain, bin);
        const r = brain(s.sb, ['sync', '--now'], { env: s.env });
        assert.equal(r.status, bin === RSYNC ? 0 : 1, r.stdout + r.stderr);
      }
      const st = brain(s.sb, ['status', '--local'], { env: s.env });
      assert.equal(st.status, 0, 'the last sync worked: no warning');
      assert.match(st.stdout, /failures: 2 failures in the last 24 h: sync rsync missing ×2/);
      const j = JSON.parse(brain(s.sb, ['status', '--local', '--json'], { env: s.env }).stdout);
      assert.equal(j.failures.count, 2);
      const d = JSON.parse(brain(s.sb, ['doctor', '--json'], { env: s.env }).stdout);
      const c = d.checks.find((x: { name: string }) => x.name === 'failures');
      assert.equal(c.level, 'warn');
      assert.match(c.detail, /2 failures in the last 24 h/);
    } finally {
      await s.cleanup();
    }
  });

  it('keeps a capture failure after the next pass works', () => {
    const sb = sandbox({ name: 'failures-capture', fixtures: true });
    try {
      fs.mkdirSync(sb.brain, { recursive: true });
      // A file where the lake folder should be: every write into the lake fails.
      fs.writeFileSync(path.join(sb.brain, 'lake'), 'not a folder');
      const bad = brain(sb, ['record']);
      assert.notEqual(bad.status, 0, bad.stdout + bad.stderr);
      fs.rmSync(path.join(sb.brain, 'lake'));
      assert.equal(brain(sb, ['record']).status, 0);
      const st = brain(sb, ['status', '--local']);
      assert.doesNotMatch(st.stdout, /recording failing/, 'the last pass worked');
      assert.match(st.stdout, /failures: 1 failure in the last 24 h: capture /);
    } finally {
      sb.cleanup();
    }
  });
});
