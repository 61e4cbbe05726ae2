// Store test setups: a sandbox with a hand-built floor and a store, local or behind a real sshd,
// plus an rsync wrapper that counts its runs (to prove how many syncs touched the store).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../../helpers/env';
import { startSshd, type Sshd } from '../../helpers/sshd';
import { fixtureFiles, localStoreConfig, makeFloor, sshStoreConfig, writeConfig, type FloorFileSpec } from './floor';

export interface StoreSetup {
  sb: Sandbox;
  store: string;
  /** <store>/<machine>/ */
  mine: string;
  env: NodeJS.ProcessEnv;
  lakePaths: string[];
  sshd?: Sshd;
  cleanup(): Promise<void>;
}

export const RSYNC = '/usr/bin/rsync';

export function requireRsync(): void {
  if (!fs.existsSync(RSYNC)) throw new Error('rsync is missing: install it with `apt-get install -y rsync` (or node scripts/setup/10-apt.mjs)');
}

export async function setupStore(name: string, opts: { ssh?: boolean; specs?: FloorFileSpec[]; configExtra?: string; storeExtra?: string; store?: string } = {}): Promise<StoreSetup> {
  requireRsync();
  const sb = sandbox({ name });
  const store = opts.store ?? path.join(sb.dir, 'store');
  fs.mkdirSync(store, { recursive: true });
  const lakePaths = makeFloor(sb.brain, opts.specs ?? fixtureFiles());
  const env: NodeJS.ProcessEnv = { ...sb.env, BRAIN_SCRUB_BYTES: String(1 << 30) };
  let sshd: Sshd | undefined;
  if (opts.ssh) {
    sshd = await startSshd(sb.dir);
    env.BRAIN_SSH_COMMAND = sshd.sshCommand;
    writeConfig(sb.brain, sshStoreConfig(sshd.host, store, opts.configExtra ?? '', opts.storeExtra ?? ''));
  } else {
    writeConfig(sb.brain, localStoreConfig(store, opts.configExtra ?? ''));
  }
  return {
    sb,
    store,
    mine: path.join(store, 'testbox'),
    env,
    lakePaths,
    sshd,
    async cleanup() {
      await sshd?.stop();
      sb.cleanup();
    },
  };
}

/** An rsync that logs each run to a file and then runs the real one. */
export function countingRsync(dir: string): { path: string; runs(): number; log: string } {
  const log = path.join(dir, 'rsync-runs.log');
  const p = path.join(dir, 'rsync-counting');
  // One line per run (the arguments hold the store-side script, which has newlines).
  fs.writeFileSync(p, `#!/bin/sh\necho "run $$" >> ${JSON.stringify(log)}\nexec ${RSYNC} "$@"\n`, { mode: 0o755 });
  return {
    path: p,
    log,
    runs: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0),
  };
}

/** Points the config's rsync_path at another binary. */
export function setRsyncPath(home: string, bin: string): void {
  const f = path.join(home, 'config.toml');
  fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/rsync_path = ".*"/, `rsync_path = ${JSON.stringify(bin)}`));
}

export function bytesOf(file: string): Buffer {
  return fs.readFileSync(file);
}

/** Live processes whose command line mentions `needle` (a sandbox path): rsync, ssh, the store side. */
export function processesMentioning(needle: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    let cmd: string;
    let st: string;
    try {
      cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue;
    }
    // A zombie has exited already (it waits for its parent to read its status).
    if (/^\d+ \(.*\) Z /.test(st)) continue;
    if (cmd.includes(needle)) out.push({ pid: Number(d), cmd });
  }
  return out;
}

/** Polls (bounded) until no process mentions `needle`; returns those left. */
export async function untilNoProcesses(needle: string, ms = 15_000): Promise<{ pid: number; cmd: string }[]> {
  const until = Date.now() + ms;
  let left = processesMentioning(needle);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesMentioning(needle);
  }
  return left;
}
