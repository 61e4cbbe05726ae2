// Two machines' floors synced to one store: "alpha" records the fixtures' HOME, "beta" a HOME
// holding one Claude transcript that alone says PHRASE (the fixture session's bytes with its
// prompt's words changed). Each records with `brain record` and syncs with `brain sync --now`.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, brain, sandbox, type Sandbox } from '../../helpers/env';
import { startSshd, type Sshd } from '../../helpers/sshd';
import { localStoreConfig, sshStoreConfig, writeConfig } from '../store/floor';
import { requireRsync } from '../store/harness';

export const PHRASE = 'quokka lighthouse';
export const BETA_SESSION = 'b37a0000-0000-4000-8000-00000000beta';

export interface TwoMachines {
  a: Sandbox;
  b: Sandbox;
  store: string;
  sshd?: Sshd;
  /** Runs brain as machine A (alpha). */
  runA(args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof brain>;
  runB(args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof brain>;
  cleanup(): Promise<void>;
}

/** A BRAIN_SSH_COMMAND that runs the store side's `node - …` with `prefix` before it (e.g. a PATH
 * without node, or with another node first), as a store host set up that way would. */
export function sshWith(t: TwoMachines, prefix: string): string {
  const wrap = path.join(t.a.dir, `ssh-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(wrap, `#!/bin/sh\nfor a; do shift; case "$a" in "node - "*) a="${prefix.replace(/[$"\\`]/g, '\\$&')} $a";; esac; set -- "$@" "$a"; done\nexec ${t.sshd!.sshCommand} "$@"\n`, { mode: 0o755 });
  return wrap;
}

export async function twoMachines(name: string, opts: { ssh: boolean; storeExtra?: string }): Promise<TwoMachines> {
  requireRsync();
  const a = sandbox({ fixtures: true, name: `${name}-a` });
  const b = sandbox({ name: `${name}-b` });
  const store = path.join(a.dir, 'store');
  fs.mkdirSync(store);
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl'), 'utf8');
  assert.ok(src.includes('green and yellow'));
  const proj = path.join(b.home, '.claude', 'projects', '-srv-beta-work');
  fs.mkdirSync(proj, { recursive: true });
  fs.writeFileSync(path.join(proj, `${BETA_SESSION}.jsonl`), src.replaceAll('green and yellow', PHRASE));
  let sshd: Sshd | undefined;
  const extra: NodeJS.ProcessEnv = { BRAIN_QUIET_SECONDS: '0' };
  if (opts.ssh) {
    sshd = await startSshd(a.dir);
    extra.BRAIN_SSH_COMMAND = sshd.sshCommand;
  }
  const cfg = opts.ssh ? sshStoreConfig(sshd!.host, store, '', opts.storeExtra ?? '') : localStoreConfig(store);
  for (const [sb, m] of [[a, 'alpha'], [b, 'beta']] as const) {
    writeConfig(sb.brain, cfg.replace('rsync_path', `machine = "${m}"\nrsync_path`));
    sb.env.BRAIN_MACHINE = m;
    Object.assign(sb.env, extra);
  }
  const run = (sb: Sandbox) => (args: string[], env: NodeJS.ProcessEnv = {}) => brain(sb, args, { env });
  const t: TwoMachines = {
    a,
    b,
    store,
    sshd,
    runA: run(a),
    runB: run(b),
    async cleanup() {
      await sshd?.stop();
      a.cleanup();
      b.cleanup();
    },
  };
  for (const r of [t.runA, t.runB]) {
    const rec = r(['record']);
    assert.equal(rec.status, 0, rec.stderr);
    const s = r(['sync', '--now']);
    assert.equal(s.status, 0, `${s.stdout}\n${s.stderr}`);
  }
  assert.ok(fs.existsSync(path.join(store, 'alpha', 'lake')) && fs.existsSync(path.join(store, 'beta', 'lake')), 'both machines synced');
  return t;
}
