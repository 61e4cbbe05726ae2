// Storage cost of a file rewritten whole (Copilot's / Gemini's legacy .json), on a generated long
// session: each turn the editor rewrites the file a few times while the reply streams, turns are
// minutes apart. The clock is simulated (file mtimes and the capture pass's clock), so a session of
// hours runs in seconds; the capture code is the real one.
//   node bench/coalesce.mjs [--turns 200] [--rewrites 5]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('tsx/cjs');
const { capture } = require('../src/core/floor/capture.ts');

export async function run(opts = {}) {
  const turns = opts.turns ?? 200;
  const rewrites = opts.rewrites ?? 5;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-coalesce-'));
  const home = path.join(dir, 'home');
  const brain = path.join(home, '.brain');
  const file = path.join(home, '.config', 'Code', 'User', 'workspaceStorage', 'ws', 'chatSessions', 'long.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const env = { HOME: home, BRAIN_HOME: brain, BRAIN_MACHINE: 'bench', BRAIN_REWRITE_QUIET_SECONDS: '30', BRAIN_QUIET_SECONDS: '600' };
  const session = { version: 3, sessionId: 'long', requests: [] };
  let t = Date.UTC(2026, 0, 1);
  let written = 0;
  for (let k = 0; k < turns; k++) {
    session.requests.push({ requestId: `r${k}`, message: { text: `question ${k} `.repeat(20) }, response: [] });
    for (let w = 0; w < rewrites; w++) {
      session.requests[k].response.push({ value: `part ${w} of answer ${k} `.repeat(40) });
      const text = JSON.stringify(session, null, 2);
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
      fs.utimesSync(file, t / 1000, t / 1000);
      written += text.length;
      await capture({ home: brain, env, only: new Set([file]), now: t + 300 });
      t += 2_000; // the reply streams: one rewrite every 2 s
    }
    t += 31_000; // the watcher's quiet timer fires after the last rewrite
    await capture({ home: brain, env, only: new Set([file]), now: t });
    t += 90_000; // the next question comes later
  }
  const lakeDir = path.join(brain, 'lake', 'copilot', 'code', 'workspaceStorage', 'ws', 'chatSessions');
  const gens = fs.readdirSync(lakeDir);
  const lakeBytes = gens.reduce((n, g) => n + fs.statSync(path.join(lakeDir, g)).size, 0);
  const finalSize = fs.statSync(file).size;
  fs.rmSync(dir, { recursive: true, force: true });
  const r = { turns, rewrites: turns * rewrites, generations: gens.length, final_bytes: finalSize, lake_bytes: lakeBytes, every_version_bytes: written };
  console.log(`long rewritten session: ${turns} turns, ${r.rewrites} rewrites, final file ${(finalSize / 1048576).toFixed(1)} MB`);
  console.log(`  kept ${gens.length} generations = ${(lakeBytes / 1048576).toFixed(1)} MB on the floor (${(lakeBytes / finalSize).toFixed(0)}× the final file); every version would be ${(written / 1048576).toFixed(1)} MB (${(written / finalSize).toFixed(0)}×)`);
  return r;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = process.argv.slice(2);
  const get = (k, d) => (a.includes(k) ? Number(a[a.indexOf(k) + 1]) : d);
  await run({ turns: get('--turns', 200), rewrites: get('--rewrites', 5) });
}
