// Secret guard bench: throughput of scanning new bytes (goal ≥ 50 MB/s), measured three ways.
//   1. the generated corpus's floor, every byte new (`brain secrets --rescan`): mostly prose and
//      code, few lines the prefilter picks;
//   2. a floor of the real fixtures copied many times with fake keys planted in every copy: real
//      transcript text, where far more lines carry key-like words, and secretlint runs on hits;
//   3. one appended line after a capture: the scan reads only that line, not the floor.
// The scan's own timer (inside the process, after start-up) gives MB/s; wall time and peak RSS of
// the whole command are printed beside it.
import { rng } from './corpus.mjs';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const mbps = (bytes, ms) => bytes / 1048576 / (ms / 1000);
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;


/** Fake keys in real formats, built by concatenation from a seeded generator. */
function fakeKeys(r) {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (set, n) => Array.from({ length: n }, () => set[Math.floor(r() * set.length)]).join('');
  return [
    'AK' + 'IA' + pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16),
    'gh' + 'p_' + pick(A, 36),
    'sk-' + 'ant-api03-' + pick(A + '_-', 93) + 'A' + 'A',
    'AI' + 'za' + pick(A + '_-', 35),
    'h' + 'f_' + pick(A.slice(0, 52), 34),
    'xo' + 'xb-' + pick('0123456789', 12) + '-' + pick('0123456789', 13) + '-' + pick(A, 24),
  ];
}

async function scan(measure, CLI, env, args) {
  const m = await measure(process.execPath, [CLI, 'secrets', '--json', ...args], env);
  if (m.code !== 0 && m.code !== 1) throw new Error(`brain secrets failed (${m.code}): ${m.err}`);
  const j = JSON.parse(m.out);
  return { wall: m.ms, rss: m.rss, scan: j.scan, summary: j.summary };
}

function line(label, s) {
  const sc = s.scan;
  console.log(
    `${label.padEnd(26)} ${mb(sc.bytes)} in ${fmt(sc.ms)} → ${mbps(sc.bytes, sc.ms).toFixed(0)} MB/s (cpu ${mbps(sc.bytes, sc.cpu_ms).toFixed(0)} MB/s; goal ≥ 50)  ` +
      `candidate lines ${sc.candidate_lines}, findings ${s.summary.count}; command wall ${fmt(s.wall)}, peak RSS ${mb(s.rss)}`,
  );
}

export async function run({ root, brainHome, env, outRoot, measure, CLI }) {
  const out = {};

  // 1. The generated corpus. The floor section leaves its floor in brainHome; record it if absent.
  if (!fs.existsSync(path.join(brainHome, 'manifest', 'manifest.jsonl'))) {
    const rec = await measure(process.execPath, [CLI, 'record', '--no-caches'], env);
    if (rec.code !== 0) throw new Error(`brain record failed: ${rec.err}`);
  }
  const corpus = await scan(measure, CLI, env, ['--rescan']);
  line('generated corpus (all new)', corpus);
  out.corpus = { bytes: corpus.scan.bytes, ms: corpus.scan.ms, cpu_ms: corpus.scan.cpu_ms, mb_s: mbps(corpus.scan.bytes, corpus.scan.ms), candidate_lines: corpus.scan.candidate_lines, findings: corpus.summary.count, wall_ms: corpus.wall, rss: corpus.rss };

  // 2. Real transcripts: the fixtures copied COPIES times, each copy with keys planted in it.
  const COPIES = 24;
  const base = path.join(outRoot, 'secrets-fixtures');
  fs.rmSync(base, { recursive: true, force: true });
  const home = path.join(base, 'home');
  const fx = path.join(root, 'test', 'fixtures');
  const r = rng(5);
  let planted = 0;
  for (let i = 0; i < COPIES; i++) {
    fs.cpSync(path.join(fx, 'claude', 'projects'), path.join(home, '.claude', 'projects', `copy-${i}`), { recursive: true });
    fs.cpSync(path.join(fx, 'pi', 'agent', 'sessions'), path.join(home, '.pi', 'agent', 'sessions', `copy-${i}`), { recursive: true });
    fs.cpSync(path.join(fx, 'codex', 'sessions'), path.join(home, '.codex', 'sessions', `copy-${i}`), { recursive: true });
    const keys = fakeKeys(r);
    const lines = keys.map((k, n) => JSON.stringify({ type: 'user', message: { role: 'user', content: `key ${n}: ${k}` }, timestamp: '2026-01-05T10:00:00.000Z' }));
    fs.writeFileSync(path.join(home, '.claude', 'projects', `copy-${i}`, 'planted.jsonl'), `${lines.join('\n')}\n`);
    planted += keys.length;
  }
  const fxEnv = { ...env, HOME: home, BRAIN_HOME: path.join(base, 'brain') };
  const rec = await measure(process.execPath, [CLI, 'record', '--no-caches'], fxEnv);
  if (rec.code !== 0) throw new Error(`brain record failed: ${rec.err}`);
  const real = await scan(measure, CLI, fxEnv, []);
  line(`fixtures ×${COPIES} + planted`, real);
  if (real.summary.count !== planted) console.log(`  ! expected ${planted} planted findings, got ${real.summary.count}`);
  out.fixtures = { copies: COPIES, bytes: real.scan.bytes, ms: real.scan.ms, cpu_ms: real.scan.cpu_ms, mb_s: mbps(real.scan.bytes, real.scan.ms), candidate_lines: real.scan.candidate_lines, planted, findings: real.summary.count, wall_ms: real.wall, rss: real.rss };

  // 3. One appended line: only its bytes are scanned.
  const target = path.join(home, '.claude', 'projects', 'copy-0', 'planted.jsonl');
  const extra = `${JSON.stringify({ type: 'user', message: { role: 'user', content: `one more ${fakeKeys(rng(9))[1]}` } })}\n`;
  fs.appendFileSync(target, extra);
  spawnSync(process.execPath, [CLI, 'record', '--no-caches'], { env: fxEnv });
  const inc = await scan(measure, CLI, fxEnv, []);
  console.log(`${'one appended line'.padEnd(26)} ${inc.scan.bytes} B scanned (line is ${Buffer.byteLength(extra)} B) in ${fmt(inc.scan.ms)}, +${inc.summary.count - real.summary.count} finding; command wall ${fmt(inc.wall)}`);
  out.append = { bytes: inc.scan.bytes, line_bytes: Buffer.byteLength(extra), ms: inc.scan.ms, wall_ms: inc.wall };
  fs.rmSync(base, { recursive: true, force: true });
  return out;
}
