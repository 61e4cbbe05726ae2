// A `brain sync` stopped by a signal stops its rsync (and ssh, and the store side) with it, and so
// does one killed outright: nothing keeps writing to the store after brain is gone.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readState } from '../../../src/core/store/state';
import { runSync } from '../../../src/core/store/sync';
import { CLI } from '../../helpers/env';
import { bigSession, fixtureFiles, type FloorFileSpec } from './floor';
import { processesMentioning, setupStore, untilNoProcesses } from './harness';

const LP = 'lake/pi/big/session.jsonl';

async function startSlowSync(transport: 'local' | 'ssh', name: string) {
  const specs: FloorFileSpec[] = [...fixtureFiles(2), { lane: 'pi', rel: 'big/session.jsonl', bytes: bigSession(16 << 20) }];
  const s = await setupStore(name, { ssh: transport === 'ssh', specs });
  // 16 MB at 400 KB/s: about 40 s, far longer than anything below waits.
  const child = spawn(process.execPath, [CLI, 'sync', '--now'], { env: { ...s.env, BRAIN_RSYNC_ARGS: '--bwlimit=400' }, stdio: 'ignore', detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const target = path.join(s.mine, LP);
  for (let i = 0; i < 400 && !(fs.existsSync(target) && fs.statSync(target).size > 256 << 10); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fs.existsSync(target) && fs.statSync(target).size > 256 << 10, 'the transfer is under way');
  assert.ok(processesMentioning(s.store).length > 0, 'rsync runs');
  return { s, child, exited };
}

/** Stops whatever a failed assertion left running: only the processes this test started. */
function reap(needle: string): void {
  for (const p of processesMentioning(needle)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

for (const transport of ['local', 'ssh'] as const) {
  describe(`brain sync stopped mid-transfer (${transport})`, () => {
    it('SIGTERM to brain alone stops rsync too, records the interruption, and the next sync resumes', async () => {
      const { s, child, exited } = await startSlowSync(transport, `int-term-${transport}`);
      try {
        // To brain only, not its group: as `kill PID`, a timer stopping, or the editor closing it.
        process.kill(child.pid!, 'SIGTERM');
        const ex = await exited;
        assert.deepEqual(await untilNoProcesses(s.store), [], 'no rsync or ssh left running');
        assert.equal(ex.code, 143, `exit status 128 + SIGTERM (${JSON.stringify(ex)})`);
        const st = readState(s.sb.brain)!;
        assert.equal(st.status, 'failed');
        assert.equal(st.warning, 'backup failing: sync interrupted');
        const o = await runSync(s.sb.brain, { env: s.env });
        assert.ok(o.kind === 'done' && o.state.status === 'ok', JSON.stringify(o));
        assert.ok(fs.readFileSync(path.join(s.mine, LP)).equals(fs.readFileSync(path.join(s.sb.brain, LP))));
      } finally {
        reap(s.store);
        await s.cleanup();
      }
    });
  });
}

describe('brain sync killed outright (kill -9)', () => {
  it('its rsync stops within seconds, though no handler ran', async () => {
    const { s, child, exited } = await startSlowSync('ssh', 'int-kill');
    try {
      process.kill(child.pid!, 'SIGKILL');
      await exited;
      assert.deepEqual(await untilNoProcesses(s.store), [], 'no rsync or ssh left running');
    } finally {
      reap(s.store);
      await s.cleanup();
    }
  });
});
