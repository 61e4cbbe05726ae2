// verify while passes run: a batch that starts or commits between verify's reads of the journals,
// the manifest and a lake file's size must not be reported as bytes nothing claims.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, sandbox } from '../../helpers/env';
import { verifyFloor } from '../../../src/core/floor/verify';

const line = (i: number, f: number) => JSON.stringify({ type: 'user', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: `turn ${i} of file ${f} ${'x'.repeat(200)}` } }) + '\n';

test('brain verify run again and again while passes record growing sessions reports no problem', async () => {
  const sb = sandbox({ name: 'verify-race' });
  try {
    const files = Array.from({ length: 120 }, (_, f) => path.join(sb.home, '.claude', 'projects', `p${f % 6}`, `s${f}.jsonl`));
    for (const [f, file] of files.entries()) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, line(0, f));
    }
    let stop = false;
    let passes = 0;
    const recorder = (async () => {
      let i = 1;
      while (!stop) {
        for (const [f, file] of files.entries()) if ((f + i) % 3 === 0) fs.appendFileSync(file, line(i, f));
        i++;
        await new Promise<void>((resolve, reject) => {
          const c = spawn(process.execPath, [CLI, 'record', '--no-caches'], { env: sb.env, stdio: 'ignore' });
          c.on('error', reject);
          c.on('exit', (code) => (code === 0 || code === 75 ? resolve() : reject(new Error(`brain record exited ${code}`))));
        });
        passes++;
      }
    })();
    const seen: string[] = [];
    const until = Date.now() + 12_000;
    let runs = 0;
    while (Date.now() < until || passes < 8) {
      const v = verifyFloor(sb.brain);
      runs++;
      for (const p of v.problems) seen.push(`${p.kind} ${p.path}: ${p.message}`);
      await new Promise((r) => setImmediate(r));
    }
    stop = true;
    await recorder;
    assert.ok(passes >= 8 && runs >= 8, `${passes} passes, ${runs} verifies`);
    assert.deepEqual(seen, [], `verify reported ${seen.length} problem(s) over ${runs} runs during ${passes} passes`);
    const after = verifyFloor(sb.brain);
    assert.deepEqual(after.problems, []);
    assert.deepEqual(after.pending, [], 'nothing left pending once the passes ended');
  } finally {
    sb.cleanup();
  }
});
