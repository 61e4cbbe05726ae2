// Files an agent rewrites whole (Copilot's and Gemini's legacy .json) keep each distinct version as
// a generation, but at most one per rewrite-quiet period while they keep changing, and always the last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, FIXTURES, sandbox, listFiles } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';

test('a .json rewritten 500 times becomes a handful of generations, the last version always captured', async () => {
  const sb = sandbox({ name: 'coalesce' });
  const dir = path.join(sb.home, '.config', 'Code', 'User', 'workspaceStorage', 'ws1', 'chatSessions');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'session-1.json');
  const session = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'copilot/workspaceStorage/fixtures/chatSessions/git-ai-copilot_session_simple.json'), 'utf8'));
  const version = (i: number) => JSON.stringify({ ...session, lastMessageDate: 1700000000000 + i, requests: [...session.requests, ...Array.from({ length: i % 7 }, () => session.requests[0])] }, null, 2);
  fs.writeFileSync(file, version(0));
  const env = { ...sb.env, BRAIN_REWRITE_QUIET_SECONDS: '1' };
  const child = spawn(process.execPath, [CLI, 'watch', '--quiet'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise((res) => child.on('exit', res));
  try {
    const until = async (fn: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end && !fn()) await new Promise((r) => setTimeout(r, 50));
      return fn();
    };
    assert.ok(await until(() => out.includes('watching'), 15000));
    const t0 = Date.now();
    for (let i = 1; i <= 500; i++) {
      // Rewritten whole, the way the editor does it: a temp file renamed over the session.
      fs.writeFileSync(file + '.tmp', version(i));
      fs.renameSync(file + '.tmp', file);
      await new Promise((r) => setTimeout(r, 8));
    }
    const spanS = (Date.now() - t0) / 1000;
    const lakeDir = path.join(sb.brain, 'lake', 'copilot', 'code', 'workspaceStorage', 'ws1', 'chatSessions');
    const last = () => {
      const gens = listFiles(lakeDir);
      const newest = gens.sort((a, b) => Number(/\.g(\d+)\./.exec(b)?.[1] ?? 1) - Number(/\.g(\d+)\./.exec(a)?.[1] ?? 1))[0];
      return newest ? fs.readFileSync(path.join(lakeDir, newest), 'utf8') : '';
    };
    const manifestPath = path.join(sb.brain, 'manifest', 'manifest.jsonl');
    const claimed = () => readManifest(manifestPath).lines.filter((l) => l.lane === 'copilot');
    // The lake is written before the manifest claims it: wait for both, the last version and its claim.
    const settled = () => last() === version(500) && claimed().length === listFiles(lakeDir).length;
    assert.ok(await until(settled, 10000), 'the last version is captured and claimed once the file is quiet');
    const gens = listFiles(lakeDir);
    assert.ok(gens.length >= 2, `more than one version kept (${gens.length})`);
    assert.ok(gens.length <= Math.ceil(spanS) + 3, `${gens.length} generations for 500 rewrites over ${spanS.toFixed(1)} s`);
    const lakeBytes = gens.reduce((n, g) => n + fs.statSync(path.join(lakeDir, g)).size, 0);
    assert.ok(lakeBytes < 500 * fs.statSync(file).size / 20, 'far less than 500 full copies');
    // Each generation is one whole, distinct version (a JSON document), claimed by the manifest.
    const m = claimed();
    assert.equal(m.length, gens.length);
    assert.deepEqual(new Set(m.map((l) => path.basename(l.lake_path))), new Set(gens), 'every generation claimed by the manifest');
    const seen = new Set<string>();
    for (const g of gens) {
      const text = fs.readFileSync(path.join(lakeDir, g), 'utf8');
      JSON.parse(text);
      assert.ok(!seen.has(text), 'distinct versions');
      seen.add(text);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    sb.cleanup();
  }
});
