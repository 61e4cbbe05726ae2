// System packages the tests use for real: rsync, an sshd, Chromium, ripgrep, strace, tmux, and libkrb5-dev for
// code-server's native modules. Installed with apt when running as root; otherwise the command is
// printed and the run fails (no test is ever skipped for a missing tool).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const need = [
  { bin: 'rsync', pkg: 'rsync' },
  { bin: 'sshd', pkg: 'openssh-server', paths: ['/usr/sbin/sshd'] },
  { bin: 'ssh', pkg: 'openssh-client' },
  { bin: 'chromium', pkg: 'chromium', paths: ['/usr/bin/chromium'] },
  { bin: 'rg', pkg: 'ripgrep' },
  { bin: 'strace', pkg: 'strace' },
  { bin: 'git', pkg: 'git' },
  { bin: 'sha256sum', pkg: 'coreutils' },
  // The live Cline CLI test types its second turn into Cline's terminal UI.
  { bin: 'tmux', pkg: 'tmux' },
  { pkg: 'libkrb5-dev', file: '/usr/include/gssapi/gssapi.h' },
];

const have = (n) =>
  n.file ? existsSync(n.file) : (n.paths ?? []).some(existsSync) || spawnSync('sh', ['-c', `command -v ${n.bin}`]).status === 0;

const missing = need.filter((n) => !have(n)).map((n) => n.pkg);
if (missing.length === 0) process.exit(0);
const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) {
  console.error(`Missing system packages: ${missing.join(', ')}.\nInstall them with:\n  sudo ${cmd}`);
  process.exit(1);
}
console.log(`installing ${missing.join(' ')}`);
const r = spawnSync('sh', ['-c', `DEBIAN_FRONTEND=noninteractive ${cmd}`], { stdio: 'inherit' });
process.exit(r.status ?? 1);
