// A real sshd on 127.0.0.1 for store tests: a free port, a temporary host key, key-only auth with
// its own authorized_keys, and an ssh client config (-F) with its own known_hosts, so nothing reads
// or writes the real ~/.ssh. Tests run as root here, hence StrictModes no and a temp
// AuthorizedKeysFile. Also a "hung" server that accepts TCP and never speaks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  dir: string;
  port: number;
  /** Host alias in `sshConfig`. */
  host: string;
  sshConfig: string;
  /** Value for BRAIN_SSH_COMMAND: the ssh client with -F pointing at our config. */
  sshCommand: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  running(): boolean;
}

function need(bin: string, pkg: string): void {
  const ok = bin.startsWith('/') ? fs.existsSync(bin) : spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
  if (!ok) throw new Error(`${bin} is missing: install it with \`apt-get install -y ${pkg}\` (or run node scripts/setup/10-apt.mjs)`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address() as net.AddressInfo;
      s.close(() => resolve(a.port));
    });
  });
}

function keygen(file: string, comment: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

/** Waits until the port answers with an SSH banner. */
function waitBanner(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = net.connect(port, '127.0.0.1');
      let done = false;
      const retry = (why: string) => {
        if (done) return;
        done = true;
        sock.destroy();
        if (Date.now() > until) reject(new Error(`sshd on port ${port} did not answer: ${why}`));
        else setTimeout(attempt, 50);
      };
      sock.setTimeout(2000, () => retry('timeout'));
      sock.on('error', (e) => retry(e.message));
      sock.on('data', (d) => {
        if (done) return;
        if (d.toString().startsWith('SSH-')) {
          done = true;
          sock.destroy();
          resolve();
        } else retry('no banner');
      });
    };
    attempt();
  });
}

/** Starts sshd in `base` (a fresh folder is made inside it). */
export async function startSshd(base: string, opts: { host?: string; extraClient?: string[] } = {}): Promise<Sshd> {
  need(SSHD, 'openssh-server');
  need('ssh', 'openssh-client');
  need('ssh-keygen', 'openssh-client');
  const dir = fs.mkdtempSync(path.join(base, 'sshd-'));
  fs.chmodSync(dir, 0o700);
  // sshd refuses to start without its privilege separation folder.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'client_ed25519');
  keygen(hostKey, 'brain-test-host');
  keygen(clientKey, 'brain-test-client');
  fs.copyFileSync(`${clientKey}.pub`, path.join(dir, 'authorized_keys'));
  const port = await freePort();
  const cfg = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    cfg,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PrintMotd no',
      'LogLevel ERROR',
      'MaxStartups 50:30:100',
      'MaxSessions 50',
      '',
    ].join('\n'),
  );
  const host = opts.host ?? 'brainstore';
  const pub = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  fs.writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${pub}\n`);
  const sshConfig = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    sshConfig,
    [
      `Host ${host}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      '  User root',
      `  IdentityFile ${clientKey}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(dir, 'known_hosts')}`,
      '  StrictHostKeyChecking yes',
      ...(opts.extraClient ?? []).map((l) => `  ${l}`),
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let exited = true;
  const s: Sshd = {
    dir,
    port,
    host,
    sshConfig,
    sshCommand: `ssh -F ${sshConfig}`,
    running: () => !exited,
    async start() {
      if (!exited) return;
      child = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
      exited = false;
      let err = '';
      child.stderr!.on('data', (d) => (err += d.toString()));
      child.on('exit', () => (exited = true));
      try {
        await waitBanner(port, 10_000);
      } catch (e) {
        throw new Error(`${(e as Error).message}\n${err}`);
      }
    },
    async stop() {
      if (!child || exited) return;
      const c = child;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
      });
    },
  };
  await s.start();
  return s;
}

/** A TCP server that accepts connections and never says a word: a hung store host. */
export async function startHungServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}
