// One very large session (npm run bench -- --only huge [--huge-mb 512]): a Claude Code transcript of
// the fixture's lines many times over, each with a uuid of its own, recorded by `brain record` into
// a fresh floor (capture, secret scan, turn index). Wall time, CPU time (user + system, from
// /usr/bin/time) and peak RSS; the index is read in pieces, so wall should follow CPU and memory
// should not follow the session's size.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;

function generate(file, bytes, src) {
  const lines = fs.readFileSync(src, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let i = 0;
  try {
    while (written < bytes) {
      let chunk = '';
      for (const j of lines) {
        if (j.uuid) j.uuid = `${j.uuid.slice(0, 24)}${String(i++).padStart(12, '0')}`;
        chunk += `${JSON.stringify(j)}\n`;
      }
      fs.writeSync(fd, chunk);
      written += Buffer.byteLength(chunk);
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

export async function run({ root, outRoot, measure, CLI }) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--huge-mb');
  const want = Number(i >= 0 ? args[i + 1] : 512) * 1048576;
  const dir = path.join(outRoot, `huge-${want >> 20}`);
  const home = path.join(dir, 'home');
  const session = path.join(home, '.claude', 'projects', '-huge', 'huge.jsonl');
  let bytes = fs.existsSync(session) ? fs.statSync(session).size : 0;
  if (bytes < want) bytes = generate(session, want, path.join(root, 'test', 'fixtures', 'claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl'));
  const brainHome = path.join(dir, 'brain');
  fs.rmSync(brainHome, { recursive: true, force: true });
  const env = { ...process.env, HOME: home, BRAIN_HOME: brainHome, BRAIN_MACHINE: 'bench', TZ: 'UTC', BRAIN_QUIET_SECONDS: '0' };
  const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const cpuFile = path.join(dir, 'cpu.txt');
  const [cmd, argv] = timeBin ? [timeBin, ['-o', cpuFile, '-f', '%U %S %M', process.execPath, CLI, 'record', '--json']] : [process.execPath, [CLI, 'record', '--json']];
  const r = await measure(cmd, argv, env);
  if (r.code !== 0) throw new Error(`brain record exited ${r.code}: ${r.err}`);
  // /usr/bin/time's own numbers: brain's CPU (user + system) and peak RSS, not the wrapper's.
  const t = timeBin ? fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number) : null;
  const cpu = t ? (t[0] + t[1]) * 1000 : null;
  if (t) r.rss = t[2] * 1024;
  const steps = JSON.parse(r.out).caches ?? [];
  const index = steps.find((s) => s.step === 'index');
  console.log(`one session of ${mb(bytes)}: brain record ${fmt(r.ms)} wall${cpu !== null ? `, ${fmt(cpu)} CPU` : ''}, peak RSS ${mb(r.rss)}`);
  for (const s of steps) console.log(`  ${s.step}: ${fmt(s.ms)} — ${s.detail}`);
  const found = spawnSync(process.execPath, [CLI, 'search', 'user authentication', '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const hits = found.status === 0 ? JSON.parse(found.stdout).hits.length : 0;
  console.log(`  search afterwards: ${hits} session(s) found`);
  return { bytes, wall_ms: r.ms, cpu_ms: cpu, rss: r.rss, index_ms: index?.ms ?? null, found: hits };
}
