// Store section of `npm run bench` (bench/run.mjs calls run()); alone, on a generated floor:
//   node scripts/build.mjs && node bench/store.mjs [--sessions 2000] [--runs 15]
// or as part of the suite on the corpus floor:
//   node bench/run.mjs --only floor,store [--size 1G]
// Measures:
//   1. `brain tick` with nothing changed: inside the interval (one stat), and after the interval (the
//      capture pass plus the floor walk). Goal <= 100 ms, and no ssh process started: the store is an
//      ssh store whose ssh command is a logging wrapper, and the log must stay empty.
//   2. A sync after one appended line to a 50 MB session: bytes on the wire from rsync's --stats
//      (Total bytes sent, Literal data) must be O(appended bytes), not O(file); against a real sshd
//      when /usr/sbin/sshd exists (else a local folder store), plus the time it takes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';

const here = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(here, '..');
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sha = (b) => createHash('sha256').update(b).digest('hex');

function timeRun(cmd, argv, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('exit', (code) => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code, out, err }));
  });
}

/** Manifest lines for bytes appended at `byteFrom` (line numbers from `lineFrom`), one chunk. */
function manifestLine(lakePath, bytes, byteFrom, lineFrom) {
  let n = 0;
  for (const b of bytes) if (b === 10) n++;
  return (
    JSON.stringify({
      v: 1, lane: 'pi', agent: 'pi', session: path.basename(lakePath, '.jsonl'), gen: 1,
      byte_from: byteFrom, byte_to: byteFrom + bytes.length, line_from: lineFrom, line_to: lineFrom + n - 1,
      chunk_sha256: sha(bytes), captured_at: new Date().toISOString(), event_ts_first: null,
      machine_id: 'bench', origin_path: lakePath, source: 'record', lake_path: lakePath,
    }) + '\n'
  );
}

/** A floor of `sessions` small session files plus one 50 MB session, written as the capture would. */
function makeFloor(home, sessions) {
  fs.mkdirSync(path.join(home, 'manifest'), { recursive: true, mode: 0o700 });
  const mf = path.join(home, 'manifest', 'manifest.jsonl');
  const lines = [];
  for (let i = 0; i < sessions; i++) {
    const lp = `lake/pi/--bench-${i % 40}--/s-${i}.jsonl`;
    const bytes = Buffer.from(Array.from({ length: 20 }, (_, k) => JSON.stringify({ i, k, text: 'hello '.repeat(20) }) + '\n').join(''));
    fs.mkdirSync(path.dirname(path.join(home, lp)), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, lp), bytes, { mode: 0o600 });
    lines.push(manifestLine(lp, bytes, 0, 1));
  }
  const big = 'lake/pi/--bench-big--/big.jsonl';
  fs.mkdirSync(path.dirname(path.join(home, big)), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(path.join(home, big), 'w', 0o600);
  let size = 0;
  let line = 1;
  while (size < 50 << 20) {
    const chunk = Buffer.from(Array.from({ length: 500 }, (_, k) => JSON.stringify({ n: line + k, text: 'y'.repeat(180) }) + '\n').join(''));
    fs.writeSync(fd, chunk);
    lines.push(manifestLine(big, chunk, size, line));
    size += chunk.length;
    line += 500;
  }
  fs.closeSync(fd);
  fs.writeFileSync(mf, lines.join(''), { mode: 0o600 });
  return { big, bigLines: line - 1 };
}

function appendLine(home, lp, lineNo) {
  const abs = path.join(home, lp);
  const at = fs.statSync(abs).size;
  const bytes = Buffer.from(JSON.stringify({ n: lineNo, text: 'one more line, appended by the bench' }) + '\n');
  fs.appendFileSync(abs, bytes);
  fs.appendFileSync(path.join(home, 'manifest', 'manifest.jsonl'), manifestLine(lp, bytes, at, lineNo));
  return bytes.length;
}

function writeConfig(home, text) {
  fs.writeFileSync(path.join(home, 'config.toml'), text, { mode: 0o600 });
}

export async function run(ctx = {}) {
  const CLI = ctx.CLI ?? path.join(ROOT, 'dist', 'cli.js');
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} missing: run node scripts/build.mjs first`);
  const node = process.execPath;
  const runs = ctx.runs ?? 15;
  const work = fs.mkdtempSync(path.join(ctx.outRoot ?? os.tmpdir(), 'bench-store-'));
  const results = {};
  try {
    // The floor: the suite's captured corpus when there is one (its HOME holds the agents' folders,
    // so the tick's capture pass walks real origins), else a generated one.
    let home;
    let envBase;
    let big;
    let bigLines;
    if (ctx.brainHome && fs.existsSync(path.join(ctx.brainHome, 'manifest', 'manifest.jsonl'))) {
      home = path.join(work, 'brain');
      spawnSync('cp', ['-a', ctx.brainHome, home]);
      envBase = { ...ctx.env, BRAIN_HOME: home };
      const g = makeFloorBig(home);
      big = g.big;
      bigLines = g.bigLines;
    } else {
      const fakeHome = path.join(work, 'home');
      fs.mkdirSync(fakeHome, { recursive: true });
      home = path.join(work, 'brain');
      fs.mkdirSync(home, { recursive: true, mode: 0o700 });
      const g = makeFloor(home, ctx.sessions ?? 2000);
      big = g.big;
      bigLines = g.bigLines;
      envBase = { PATH: process.env.PATH, HOME: fakeHome, BRAIN_HOME: home, BRAIN_MACHINE: 'bench', TZ: 'UTC', LANG: 'C.UTF-8' };
    }
    let files = 0;
    let bytes = 0;
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else {
          files++;
          bytes += fs.statSync(p).size;
        }
      }
    };
    walk(path.join(home, 'lake'));
    console.log(`floor: ${files} lake files, ${(bytes / 1048576).toFixed(0)} MB (one 50 MB session)`);

    // --- the sync after one appended line to a 50 MB session -------------------------------------
    const store = path.join(work, 'store');
    fs.mkdirSync(store);
    let sshd;
    let env = { ...envBase };
    if (fs.existsSync('/usr/sbin/sshd') && process.getuid?.() === 0) {
      const helper = path.join(work, 'sshd.cjs');
      await build({ entryPoints: [path.join(ROOT, 'test', 'helpers', 'sshd.ts')], outfile: helper, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
      const { startSshd } = await import(helper);
      sshd = await startSshd(work);
      env.BRAIN_SSH_COMMAND = sshd.sshCommand;
      writeConfig(home, `rsync_path = "/usr/bin/rsync"\n[store]\npath = "${store}"\nhost = "${sshd.host}"\n`);
    } else {
      writeConfig(home, `rsync_path = "/usr/bin/rsync"\n[store]\npath = "${store}"\n`);
    }
    const transport = sshd ? 'ssh (real sshd on 127.0.0.1)' : 'local folder';
    const first = await timeRun(node, [CLI, 'sync', '--now', '--json'], env);
    if (first.code !== 0) throw new Error(`first sync failed: ${first.out}${first.err}`);
    const s0 = JSON.parse(first.out).state;
    console.log(`first sync (${transport}): ${fmt(first.ms)}, ${(s0.stats.sent / 1048576).toFixed(1)} MB sent`);
    const appended = appendLine(home, big, bigLines + 1);
    const second = await timeRun(node, [CLI, 'sync', '--json'], env);
    if (second.code !== 0) throw new Error(`sync failed: ${second.out}${second.err}`);
    const s1 = JSON.parse(second.out).state;
    const manifestLineBytes = fs.readFileSync(path.join(home, 'manifest', 'manifest.jsonl'), 'utf8').split('\n').filter(Boolean).pop().length + 1;
    console.log(
      `sync after one appended line (${appended} B + a ${manifestLineBytes} B manifest line) to a 50 MB session: ` +
        `${fmt(second.ms)}; rsync --stats: literal data ${s1.stats.literal} B, total bytes sent ${s1.stats.sent} B, received ${s1.stats.received} B ` +
        `(${s1.stats.files} files written; goal O(appended): literal <= appended + manifest line + version file)`,
    );
    results.append_sync = { transport, ms: second.ms, appended, manifest_line: manifestLineBytes, ...s1.stats };

    // --- a no-change tick: no ssh process -------------------------------------------------------
    // The store becomes an ssh store whose ssh logs every start and fails: a tick that opened a
    // connection would leave a line.
    const sshLog = path.join(work, 'ssh-started.log');
    const fakeSsh = path.join(work, 'ssh-logging');
    fs.writeFileSync(fakeSsh, `#!/bin/sh\necho "ssh $*" >> ${JSON.stringify(sshLog)}\nexit 255\n`, { mode: 0o755 });
    writeConfig(home, `rsync_path = "/usr/bin/rsync"\n[store]\npath = "/srv/brain"\nhost = "bench-store"\n`);
    const tickEnv = { ...envBase, BRAIN_SSH_COMMAND: fakeSsh };
    const lastTick = path.join(home, 'sync', 'last-tick');
    const inside = [];
    const walked = [];
    for (let i = 0; i < runs; i++) {
      fs.rmSync(lastTick, { force: true });
      const w = await timeRun(node, [CLI, 'tick', '--json'], tickEnv);
      if (w.code !== 0 || !/"kind":"unchanged"/.test(w.out)) throw new Error(`tick after the interval: ${w.code} ${w.out}${w.err}`);
      walked.push(w.ms);
      const r = await timeRun(node, [CLI, 'tick', '--json'], tickEnv);
      if (!/"kind":"not-due"/.test(r.out)) throw new Error(`tick inside the interval: ${r.out}${r.err}`);
      inside.push(r.ms);
    }
    const nodeAlone = [];
    for (let i = 0; i < runs; i++) nodeAlone.push((await timeRun(node, ['-e', '0'], tickEnv)).ms);
    const sshStarted = fs.existsSync(sshLog) ? fs.readFileSync(sshLog, 'utf8').split('\n').filter(Boolean).length : 0;
    console.log(`brain tick, nothing changed, inside the interval: ${fmt(median(inside))} median (node -e 0: ${fmt(median(nodeAlone))}; goal <= 100 ms)`);
    console.log(`brain tick, nothing changed, interval passed (capture pass + walk of ${files} lake files): ${fmt(median(walked))} median (goal <= 100 ms)`);
    console.log(`ssh processes started by ${runs * 2} no-change ticks: ${sshStarted} (goal 0)`);
    results.tick = { inside_ms: median(inside), walked_ms: median(walked), node_ms: median(nodeAlone), ssh_started: sshStarted, lake_files: files };
    await sshd?.stop();
    return results;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** On a copied corpus floor: add the 50 MB session (the corpus may not have one that big). */
function makeFloorBig(home) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-big-'));
  try {
    const g = makeFloor(tmp, 0);
    const src = path.join(tmp, g.big);
    fs.mkdirSync(path.dirname(path.join(home, g.big)), { recursive: true, mode: 0o700 });
    fs.copyFileSync(src, path.join(home, g.big));
    fs.appendFileSync(path.join(home, 'manifest', 'manifest.jsonl'), fs.readFileSync(path.join(tmp, 'manifest', 'manifest.jsonl')));
    return g;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = process.argv.slice(2);
  const get = (k, d) => (a.includes(k) ? Number(a[a.indexOf(k) + 1]) : d);
  run({ sessions: get('--sessions', 2000), runs: get('--runs', 15) }).then(
    (r) => console.log(JSON.stringify(r)),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
