// DuckDB cache section of `npm run bench` (bench/run.mjs calls run()); alone:
//   node bench/run.mjs --only cache [--size 1G]
// On the floor the floor section captured from the generated corpus, measures: `brain rebuild`
// from nothing (wall time as a ratio to coreutils sha256sum of the lake, peak RSS, cache size
// against the lake, time per step from BRAIN_CACHE_TRACE; and against DuckDB alone holding the lake's
// lines, bench/duckload.mjs), `brain rebuild --update` after one appended line (in a small and in the
// largest session), and `brain sql` / `brain stats` on a current cache.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;

function du(p) {
  const r = spawnSync('du', ['-sbL', p], { encoding: 'utf8' });
  return Number(r.stdout.split(/\s/)[0]) || 0;
}

function sessionFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push({ p, size: fs.statSync(p).size });
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort((a, b) => a.size - b.size);
}

export async function run({ home, brainHome, env, measure, CLI }) {
  const node = process.execPath;
  if (!fs.existsSync(path.join(brainHome, 'manifest', 'manifest.jsonl'))) {
    console.log('(no floor yet: capturing it first)');
    const r = await measure(node, [CLI, 'record'], env);
    if (r.code !== 0) throw new Error(`brain record failed: ${r.err}`);
  }
  const db = path.join(brainHome, 'brain.duckdb');
  fs.rmSync(db, { force: true });
  const lake = du(path.join(brainHome, 'lake'));
  spawnSync('sh', ['-c', `find "${path.join(brainHome, 'lake')}" -type f -exec cat {} + > /dev/null`]);
  // The baseline: coreutils reading and hashing every lake byte once (page cache warm, as for the
  // rebuild), the least any build that checks what it reads must do.
  const shaRuns = [];
  for (let i = 0; i < 3; i++) {
    shaRuns.push((await measure('sh', ['-c', `find "${path.join(brainHome, 'lake')}" -type f -exec sha256sum {} + > /dev/null`])).ms);
  }
  const shaMs = [...shaRuns].sort((a, b) => a - b)[1];
  // The second baseline: DuckDB alone holding every lake line (bench/duckload.mjs), the least a
  // cache that keeps raw_lines can cost, whatever this program does around it.
  const gnuTime = fs.existsSync('/usr/bin/time'); // apt-get install time
  const timed = async (argv, extraEnv) => {
    const cpuFile = path.join(brainHome, '.bench-cpu');
    const r = gnuTime
      ? await measure('/usr/bin/time', ['-f', '%U %S %M', '-o', cpuFile, node, ...argv], { ...env, ...extraEnv })
      : await measure(node, argv, { ...env, ...extraEnv });
    r.cpuMs = NaN;
    if (gnuTime) {
      // measure() polls the wrapper's RSS; GNU time reports the child's peak (KB).
      const [u, sys, kb] = fs.readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
      fs.rmSync(cpuFile, { force: true });
      r.cpuMs = (u + sys) * 1000;
      r.rss = kb * 1024;
    }
    return r;
  };
  const bare = await timed([path.join(path.dirname(new URL(import.meta.url).pathname), 'duckload.mjs'), path.join(brainHome, 'lake'), path.join(brainHome, 'bench-duckload.duckdb')]);
  if (bare.code !== 0) throw new Error(`the bare DuckDB load failed: ${bare.err}`);
  const bareRes = JSON.parse(bare.out);
  // CPU time too: on a shared machine the wall time says more about the neighbours than about us.
  const rb = await timed([CLI, 'rebuild', '--json'], { BRAIN_CACHE_TRACE: '1' });
  if (rb.code !== 0) throw new Error(`brain rebuild failed: ${rb.err}`);
  const cpuMs = rb.cpuMs;
  const res = JSON.parse(rb.out);
  const size = fs.statSync(db).size;
  const steps = {};
  for (const m of rb.err.matchAll(/^cache: (.+?) (\d+) ms/gm)) {
    const k = m[1].replace(/ \d+ files, \d+ bytes/, '').replace(/\(.*\)/, '').trim();
    steps[k] = (steps[k] ?? 0) + Number(m[2]);
  }
  console.log(`sha256sum of lake:  ${fmt(shaMs)} (median of 3)`);
  console.log(`brain rebuild:      ${fmt(rb.ms)} wall, ${fmt(cpuMs)} CPU for ${mb(lake)} of lake (${res.files} files, ${res.manifestLines} manifest lines)`);
  console.log(`  time:             ratio ${(rb.ms / shaMs).toFixed(2)} to sha256sum (goal ≤ 3.0)`);
  console.log(`  peak RSS:         ${mb(rb.rss)} (goal ≤ 500 MB)`);
  console.log(
    `  DuckDB alone:     ${fmt(bare.ms)} wall, ${fmt(bare.cpuMs)} CPU, ${mb(bare.rss)} peak RSS, ${mb(bareRes.bytes)} to hold the lake's ${bareRes.lines} lines (bench/duckload.mjs): ratio ${(bare.ms / shaMs).toFixed(2)} to sha256sum; the rebuild is ${(rb.ms / bare.ms).toFixed(2)}× it`,
  );
  console.log(`  brain.duckdb:     ${mb(size)}, ${((100 * size) / lake).toFixed(1)}% of the lake (goal ≤ 30%)`);
  console.log(`  steps: ${Object.entries(steps).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`);

  // One appended line, then record + update: small session and the largest one.
  const files = sessionFiles(path.join(home, '.claude', 'projects'));
  const update = async (f) => {
    fs.appendFileSync(f.p, JSON.stringify({ type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: 'bench append' } }) + '\n');
    // Capture only: `brain record` would hand the update to a follower in the background.
    const rec = await measure(node, [CLI, 'record', '--no-caches'], env);
    if (rec.code !== 0) throw new Error(rec.err);
    const u = await measure(node, [CLI, 'rebuild', '--update', '--json'], env);
    if (u.code !== 0) throw new Error(u.err);
    return u;
  };
  const small = files.length ? await update(files[Math.floor(files.length / 2)]) : null;
  const big = files.length ? await update(files[files.length - 1]) : null;
  if (small && big) {
    console.log(`update, one line:   median-size session (${mb(files[Math.floor(files.length / 2)].size)}) ${fmt(small.ms)}, largest (${mb(files[files.length - 1].size)}) ${fmt(big.ms)} (whole process; the file's derived rows are re-derived)`);
  }
  const q = await measure(node, [CLI, 'sql', '--json', 'SELECT agent, count(DISTINCT turn_id) FROM derived.messages GROUP BY agent'], env);
  const st = await measure(node, [CLI, 'stats', '--json'], env);
  const n0 = await measure(node, ['-e', '0'], env);
  console.log(`brain sql (current cache): ${fmt(q.ms)}; brain stats: ${fmt(st.ms)} (node -e 0: ${fmt(n0.ms)})`);
  return {
    lake_bytes: lake,
    sha256sum_ms: shaMs,
    rebuild_ratio: rb.ms / shaMs,
    cache_ratio: size / lake,
    rebuild_ms: rb.ms,
    rebuild_cpu_ms: cpuMs,
    rebuild_rss: rb.rss,
    duckdb_alone_ms: bare.ms,
    duckdb_alone_cpu_ms: bare.cpuMs,
    duckdb_alone_rss: bare.rss,
    duckdb_alone_bytes: bareRes.bytes,
    cache_bytes: size,
    steps,
    update_small_ms: small?.ms,
    update_largest_ms: big?.ms,
    sql_ms: q.ms,
    stats_ms: st.ms,
  };
}
