// The ssh command line both the sync (rsync.ts) and the store's readers (ssh.ts, remote/) run: which
// ssh, its options, and the ssh_mux_only check. Apart from rsync.ts so ssh.ts can use it without a
// cycle through the push.
import { childProcess } from '../lazy';
import type { Config } from '../config';
import type { Env } from '../home';
import { setting } from '../settings';

/** The ssh command rsync runs: BRAIN_SSH_COMMAND (tests point it at their own -F config) or ssh. */
export function sshBase(env: Env): string[] {
  return setting(env, 'BRAIN_SSH_COMMAND');
}

export function sshOptions(cfg: Config, env: Env): string[] {
  const connect = setting(env, 'BRAIN_CONNECT_TIMEOUT') ?? 20;
  const o = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connect}`, '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=4'];
  if (cfg.store?.ssh_mux_only) {
    // Only the existing master may carry this sync: every auth method off, so a master that died
    // between `ssh -O check` and rsync fails instead of prompting, and no new master is made.
    o.push(
      '-o', 'ControlMaster=no',
      '-o', 'PasswordAuthentication=no',
      '-o', 'PubkeyAuthentication=no',
      '-o', 'KbdInteractiveAuthentication=no',
      '-o', 'GSSAPIAuthentication=no',
      '-o', 'HostbasedAuthentication=no',
    );
  }
  return o;
}

/** `ssh -O check HOST`: asks a running ControlMaster, never opens a connection. */
export function muxCheck(cfg: Config, env: Env): Promise<boolean> {
  const base = sshBase(env);
  return new Promise((resolve) => {
    const child = childProcess().spawn(base[0], [...base.slice(1), '-O', 'check', cfg.store!.host!], { stdio: 'ignore', env: env as NodeJS.ProcessEnv });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
