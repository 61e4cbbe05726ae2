// Remote section of `npm run bench` (bench/run.mjs calls run()); alone:
//   node bench/run.mjs --only remote [--size 1G]
// Measures `brain search` over an ssh store holding two machines (the corpus floor, hard-linked
// twice into the store as "alpha" and "beta") from a third machine with an empty floor, end to end
// (ssh to a real sshd on 127.0.0.1, the store side sent as `node -`, its answer back), against the
// same search run locally on the store host (`brain search --store DIR`). Once with this machine's
// node as the store host's (no node:sqlite before 22.13: both sides scan), and once with the e2e
// setup's Node 24 first on the store host's PATH (the store's turn index, built on the first search).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { build } from 'esbuild';

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run({ root, info, brainHome, env, outRoot, measure, CLI }) {
  const node = process.execPath;
  if (!fs.existsSync(path.join(brainHome, 'manifest', 'manifest.jsonl'))) {
    console.log('(no floor yet: capturing it first)');
    const r = await measure(node, [CLI, 'record', '--no-caches'], env);
    if (r.code !== 0) throw new Error(`brain record failed: ${r.err}`);
  }
  if (!fs.existsSync(path.join(root, 'dist', 'remote.js'))) throw new Error('dist/remote.js is not built: node scripts/build.mjs');
  const store = path.join(outRoot, 'remote-store');
  fs.rmSync(store, { recursive: true, force: true });
  for (const m of ['alpha', 'beta']) {
    fs.mkdirSync(path.join(store, m), { recursive: true, mode: 0o700 });
    for (const d of ['lake', 'manifest', 'meta']) {
      if (fs.existsSync(path.join(brainHome, d))) spawnSync('cp', ['-al', path.join(brainHome, d), path.join(store, m, d)]);
    }
  }
  const sshdJs = path.join(outRoot, 'sshd.cjs');
  await build({ entryPoints: [path.join(root, 'test', 'helpers', 'sshd.ts')], outfile: sshdJs, bundle: true, platform: 'node', format: 'cjs', logLevel: 'warning' });
  const { startSshd } = createRequire(import.meta.url)(sshdJs);
  const sshd = await startSshd(outRoot);
  const here = path.join(outRoot, 'remote-here');
  fs.rmSync(here, { recursive: true, force: true });
  fs.mkdirSync(here, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(here, 'config.toml'), `machine = "here"\nrsync_path = "/usr/bin/rsync"\n[store]\npath = ${JSON.stringify(store)}\nhost = ${JSON.stringify(sshd.host)}\n`, { mode: 0o600 });
  const henv = { ...env, BRAIN_HOME: here, BRAIN_MACHINE: 'here' };
  const variants = [{ label: `store host node ${process.version}`, ssh: sshd.sshCommand, index: false }];
  const setup = await import(path.join(root, 'scripts', 'setup', '50-e2e.mjs'));
  const node24 = setup.runtime().node;
  if (fs.existsSync(node24)) {
    const wrap = path.join(outRoot, 'ssh-node24');
    fs.writeFileSync(wrap, `#!/bin/sh\nfor a; do shift; case "$a" in "node - "*) a="PATH=${path.dirname(node24)}:\\$PATH $a";; esac; set -- "$@" "$a"; done\nexec ${sshd.sshCommand} "$@"\n`, { mode: 0o755 });
    variants.push({ label: 'store host Node 24 (node:sqlite)', ssh: wrap, index: true });
  } else console.log(`(${node24} is missing: the store-side turn index is not measured; node scripts/setup/50-e2e.mjs installs it)`);
  const terms = [
    ['rare (said)', info.planted?.rare_turn ?? 'quixotic-zebra-lantern'],
    ['rare (tool only)', info.planted?.rare_tool ?? 'obsidian-walrus-ledger'],
  ];
  const res = {};
  try {
    // What any ssh store pays per search whatever it holds: one connection (a ControlMaster makes
    // it near nothing); the ratio is also given without it.
    const conn = [];
    for (let i = 0; i < 3; i++) conn.push((await measure(sshd.sshCommand.split(' ')[0], [...sshd.sshCommand.split(' ').slice(1), '-o', 'BatchMode=yes', sshd.host, 'true'], env)).ms);
    const sshMs = median(conn);
    console.log(`ssh ${sshd.host} true (the connection alone): ${fmt(sshMs)}`);
    res.ssh_true_ms = sshMs;
    for (const v of variants) {
      console.log(`${v.label}:`);
      const venv = { ...henv, BRAIN_SSH_COMMAND: v.ssh };
      if (v.index) {
        fs.rmSync(path.join(store, 'turns.sqlite'), { force: true });
        const first = await measure(node, [CLI, 'search', terms[0][1], '--json'], venv);
        const j = JSON.parse(first.out);
        console.log(`  first search (builds the store's turn index on the store host): ${fmt(first.ms)} (${j.store?.source})`);
        res[`${v.label} first`] = first.ms;
      }
      for (const [label, term] of terms) {
        const far = [];
        const local = [];
        let j;
        for (let i = 0; i < 3; i++) {
          const r = await measure(node, [CLI, 'search', term, '--json'], venv);
          if (r.code !== 0 && r.code !== 1) throw new Error(`brain search over ssh failed: ${r.err}`);
          j = JSON.parse(r.out);
          far.push(r.ms);
          const l = await measure(node, [CLI, 'search', term, '--store', store, '--json', ...(v.index ? [] : ['--scan'])], env);
          local.push(l.ms);
        }
        const ratio = median(far) / median(local);
        const net = (median(far) - sshMs) / median(local);
        console.log(`  ${label.padEnd(17)} ${JSON.stringify(term).padEnd(26)} over ssh ${fmt(median(far)).padStart(9)}  on the store host ${fmt(median(local)).padStart(9)}  ratio ${ratio.toFixed(2)} (${net.toFixed(2)} without the connection)  (${j.total} sessions, store ${j.store?.source ?? 'not searched'})`);
        res[`${v.label} ${label}`] = { ssh_ms: median(far), local_ms: median(local), ratio, ratio_without_connection: net, total: j.total, source: j.store?.source };
      }
    }
  } finally {
    await sshd.stop();
  }
  return res;
}
