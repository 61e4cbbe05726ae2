// What both store transports (local.ts, ssh.ts; the interface in transport.ts) share: the push (one
// rsync run behind the store-side step that puts the floor in <store>/<machine>/), ssh options,
// rsync flags and how their failures read (the ssh command itself: sshcmd.ts).
//
// The rsync: -a --append-verify, never --delete. --append-verify only appends to a store file that
// is shorter than ours and then checks the whole file; the store-side script (script.ts) runs first
// in the same connection. One ssh connection per sync: the remote mkdir and checks ride rsync's own
// connection through --rsync-path. BatchMode blocks password and passphrase prompts; ConnectTimeout
// bounds the connect and the banner exchange (a host that accepts and never answers); rsync's
// --timeout and ssh's ServerAlive bound a connection that hangs later; a hard deadline backs them up.
import { childProcess } from '../lazy';
import type { Config } from '../config';
import type { Env } from '../home';
import { parseChecks, storeScript, type Owner, type ParsedCheck, type ScriptItem } from './script';
import { setting } from '../settings';
import { sshBase, sshOptions } from './sshcmd';

export interface TransferStats {
  sent: number;
  received: number;
  literal: number;
  matched: number;
  files: number;
}

export interface RsyncRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  checks: Map<string, ParsedCheck>;
  /** Guarded folders of new files that exist at the store. */
  dirs: string[];
  /** The store-side step stopped before rsync ran: ask again with what it reported. */
  again: boolean;
  /** This floor took <machine>/ over in this run ('new', 'matched', 'adopted'). */
  owned?: string;
  /** Files rsync re-sent after "failed verification" (their store copy differed from ours). */
  failedVerification: string[];
  /** Files rsync wrote (itemized as sent). */
  transferred: string[];
  stats?: TransferStats;
  /** Set when the run failed: a short label for the status bar and a message naming the cause. */
  failure?: { label: string; message: string; hint: string };
  timedOut: boolean;
  /** The signal that stopped this sync (the whole rsync process group was stopped with it). */
  interrupted?: NodeJS.Signals;
  /** Failed runs a retry replaced, oldest first: their store-side checks ran and count. */
  earlier?: RsyncRun[];
}

export function storeLabel(cfg: Config): string {
  const s = cfg.store!;
  return s.host ? `${s.host}:${s.path}` : s.path;
}

/** Escapes rsync filter wildcards so an exclude line matches exactly one path. */
export function excludeLine(rel: string): string {
  return '/' + rel.replace(/[\\*?[]/g, (c) => `\\${c}`);
}

export interface PushOptions {
  cfg: Config;
  env: Env;
  /** Absolute source paths (each copied by its last component into the machine's folder). */
  sources: string[];
  excludeFrom: string;
  /** Store-side checks and guards (script.ts), most important first. */
  items: ScriptItem[];
  stamp: string;
  /** Who this floor is: the store-side step refuses a <machine>/ recorded for another. */
  owner?: Owner;
  /** Extra rsync arguments (tests: --bwlimit to make a transfer slow enough to interrupt). */
  extra?: string[];
  /** About how many bytes this push has to write (for naming a full disk). */
  toSend?: number;
}

/** BRAIN_RSYNC_ARGS: extra rsync arguments (e.g. --bwlimit=2m). Anything that could delete or
 * rewrite at the store is refused: the store is append-only whatever the environment says. */
export function extraRsyncArgs(env: Env): string[] {
  const args = setting(env, 'BRAIN_RSYNC_ARGS');
  const bad = args.find((a) => /^--(del|delete|remove-source|inplace|whole-file|checksum|ignore-times|backup|existing|ignore-existing|temp-dir|partial-dir)|^-[a-zA-Z]*[cIWb]/.test(a));
  if (bad) throw new Error(`BRAIN_RSYNC_ARGS: ${bad} is not allowed (the store is append-only)`);
  return args;
}

export function pushCommand(o: PushOptions): { cmd: string; args: string[] } {
  const { cfg, env } = o;
  const store = cfg.store!;
  const io = setting(env, 'BRAIN_IO_TIMEOUT');
  const script = storeScript(store, cfg.machine, o.items, o.stamp, o.owner);
  const rsyncArgs = [
    '-a',
    '--append-verify',
    '--itemize-changes',
    '--stats',
    '--no-human-readable',
    `--timeout=${io}`,
    `--exclude-from=${o.excludeFrom}`,
    ...extraRsyncArgs(env),
    ...(o.extra ?? []),
  ];
  if (store.host) {
    const ssh = [...sshBase(env), ...sshOptions(cfg, env)].join(' ');
    return {
      cmd: cfg.rsync_path,
      args: [...rsyncArgs, '-e', ssh, `--rsync-path=sh -c '${script}' brain-sync rsync`, ...o.sources, `${store.host}:${store.path}/${cfg.machine}/`],
    };
  }
  return { cmd: 'sh', args: ['-c', script, 'brain-sync', cfg.rsync_path, ...rsyncArgs, ...o.sources, `${store.path}/${cfg.machine}/`] };
}

function parseStats(out: string): TransferStats | undefined {
  const num = (re: RegExp) => {
    const m = re.exec(out);
    return m ? Number(m[1].replace(/,/g, '')) : undefined;
  };
  const sent = num(/Total bytes sent: ([\d,]+)/);
  if (sent === undefined) return undefined;
  return {
    sent,
    received: num(/Total bytes received: ([\d,]+)/) ?? 0,
    literal: num(/Literal data: ([\d,]+)/) ?? 0,
    matched: num(/Matched data: ([\d,]+)/) ?? 0,
    files: num(/Number of regular files transferred: ([\d,]+)/) ?? 0,
  };
}

/** Reads what went wrong from rsync's and ssh's own words. */
export function classifyFailure(
  cfg: Config,
  code: number | null,
  stderr: string,
  timedOut: boolean,
  storeMissing?: string,
  unwritable?: string,
  space?: { freeKiB?: number; toSend?: number },
): RsyncRun['failure'] {
  const where = storeLabel(cfg);
  const host = cfg.store?.host;
  const noSpace = /No space left on device|\(28\)|disk quota exceeded/i;
  if (storeMissing !== undefined) {
    return {
      label: 'store folder missing',
      message: `the store folder ${storeMissing} does not exist${host ? ` on ${host}` : ''}`,
      hint: host ? `create it on the store host (ssh ${host} mkdir -p ${storeMissing}) or fix [store] path` : 'mount the store disk, or fix [store] path in config.toml',
    };
  }
  if (unwritable !== undefined && !noSpace.test(stderr)) {
    return { label: 'store not writable', message: `cannot create ${unwritable}`, hint: 'check the store folder\'s owner and permissions' };
  }
  // rsync exits 11 (file I/O) or 12 (stream) when the receiver dies on a full disk, sometimes
  // before its message makes it back: the free space the store-side step reported then decides.
  const lowSpace = space?.freeKiB !== undefined && space.toSend !== undefined && (code === 11 || code === 12 || code === 23) && space.freeKiB * 1024 < space.toSend + (1 << 20);
  if (noSpace.test(stderr) || lowSpace) {
    return { label: 'store disk full', message: `the store at ${where} is out of space; what was sent so far is kept and the next sync resumes`, hint: 'free space at the store (nothing there may be deleted by brain), then run `brain sync --now`' };
  }
  if (/^brain-id-unwritten$/m.test(stderr)) {
    // A shell's printf may say nothing when its write fails: the free space decides.
    if (noSpace.test(stderr) || (space?.freeKiB !== undefined && space.freeKiB < 64)) {
      return { label: 'store disk full', message: `the store at ${where} is out of space: this floor's id could not be recorded there, so nothing was sent`, hint: 'free space at the store (nothing there may be deleted by brain), then run `brain sync --now`' };
    }
    return { label: 'store not writable', message: `cannot write this floor's id at ${where}/${cfg.machine}/.brain/floor-id: ${firstLine(stderr, /./) || 'no message'}`, hint: "check the store folder's space, owner and permissions, then `brain sync --now`" };
  }
  if (timedOut || /timed out|timeout/i.test(stderr) || code === 30 || code === 35) {
    return { label: 'store timed out', message: `the connection to ${where} timed out`, hint: host ? `check that ${host} answers: ssh ${host} true` : 'check the store disk' };
  }
  if (/Permission denied \(|Too many authentication failures|Host key verification failed|REMOTE HOST IDENTIFICATION/i.test(stderr)) {
    return {
      label: 'store refused login',
      message: `ssh to ${host} was refused: ${firstLine(stderr, /Permission denied|Host key|authentication|REMOTE HOST/i)}`,
      hint: `set up key or agent login that works without a prompt (test: ssh -o BatchMode=yes ${host} true)`,
    };
  }
  if (/Connection refused|No route to host|Could not resolve hostname|Network is unreachable|Connection reset|Connection closed by|kex_exchange|ssh: connect to host/i.test(stderr) || code === 255) {
    return { label: 'store unreachable', message: `cannot reach ${where}: ${firstLine(stderr, /ssh:|Connection|resolve|route|unreachable/i) || `rsync exited ${code}`}`, hint: host ? `check the network and that sshd runs on ${host}; the next sync retries` : 'check the store disk' };
  }
  if (/rsync: command not found|rsync: not found|protocol version mismatch/i.test(stderr)) {
    return { label: 'store has no rsync', message: `rsync is not available at ${where}`, hint: 'install rsync 3 on the store host' };
  }
  return {
    label: 'sync failed',
    message: `rsync to ${where} exited ${code ?? 'by signal'}: ${firstLine(stderr, /rsync|error|failed/i) || stderr.trim().split('\n').pop() || 'no message'}`,
    hint: 'run `brain sync --now` to see it again; `brain doctor` checks the setup',
  };
}

/** <store>/<machine>/ is recorded for another floor (floorid.ts): what to say and what to do. */
export function ownerFailure(cfg: Config, other: string): NonNullable<RsyncRun['failure']> {
  const m = cfg.machine;
  return {
    label: 'machine name taken',
    message: `${storeLabel(cfg)}/${m}/ holds the backup of another floor (${other === 'none' ? 'written before floors had ids, and its manifest does not start like ours' : `floor id ${other.slice(0, 8)}…`}): two machines named "${m}" would mix their sessions there, so nothing was synced`,
    hint: `give this machine a name of its own: machine = "${m}-2" (any unused name) in ${cfg.file}, then \`brain sync --now\`; if it is the same machine set up again (a new BRAIN_HOME), take the folder over with \`brain sync --adopt\``,
  };
}

function firstLine(text: string, re: RegExp): string {
  for (const l of text.split('\n')) if (re.test(l) && !l.startsWith('brain-')) return l.trim();
  return '';
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// What the push runs in: its own process group, with a watchdog that stops the whole group once
// `brain` is gone, however it went (kill -9 included, which no handler sees). $1 is brain's pid, $2
// the rsync binary (checked here: a failed exec would end the shell without saying why), then the
// command. The watchdog's output goes nowhere, so it never holds rsync's pipes open.
const WRAPPER = [
  'B=$1; R=$2; shift 2',
  'case "$R" in */*) [ -f "$R" ] && [ -x "$R" ] ;; *) command -v "$R" >/dev/null 2>&1 ;; esac || { echo "brain-no-rsync $R" >&2; exit 127; }',
  '( while kill -0 "$B" 2>/dev/null; do sleep 1; done; kill -TERM 0 ) </dev/null >/dev/null 2>&1 &',
  'exec "$@"',
].join('\n');

/** Signals a whole process group (rsync, its receiver child, ssh); it may be gone already. */
function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    /* already gone */
  }
}

/** Runs the push. Resolves when rsync has exited (or been killed at the deadline or by a signal).
 *
 * rsync runs in a process group of its own, with ssh and rsync's own children inside it: a signal
 * to `brain` (Ctrl-C, a timer stopping, the editor closing) would otherwise leave them running with
 * nobody to read what they report and nobody to stop them. So INT/TERM/HUP stop the whole group,
 * and so does this process exiting for any other reason. */
export function push(o: PushOptions): Promise<RsyncRun> {
  const { cmd, args } = pushCommand(o);
  const deadline = setting(o.env, 'BRAIN_SYNC_DEADLINE') * 1000;
  const t0 = Date.now();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let interrupted: NodeJS.Signals | undefined;
    let closed = false;
    // LC_ALL=C: the failure patterns above are rsync's and ssh's English messages.
    const child = childProcess().spawn('sh', ['-c', WRAPPER, 'brain-push', String(process.pid), o.cfg.rsync_path, cmd, ...args], {
      env: { ...o.env, LC_ALL: 'C' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stop = () => {
      if (closed || child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => !closed && child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), 5000).unref();
    };
    const onSignal = (sig: NodeJS.Signals) => {
      interrupted ??= sig;
      stop();
    };
    const onExit = () => {
      if (!closed && child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    };
    for (const sig of FORWARDED) process.on(sig, onSignal);
    process.on('exit', onExit);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, deadline);
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      for (const sig of FORWARDED) process.off(sig, onSignal);
      process.off('exit', onExit);
      // rsync's own children (the local receiver, ssh) may outlive it by a moment: the group goes too.
      if (child.pid !== undefined && !spawnError) killGroup(child.pid, 'SIGTERM');
      const parsed = parseChecks(stderr);
      const failedVerification: string[] = [];
      for (const l of stderr.split('\n')) {
        const m = /^WARNING: (.+) failed verification -- update (?:retained|discarded)/.exec(l);
        if (m) failedVerification.push(m[1]);
      }
      const transferred: string[] = [];
      for (const l of stdout.split('\n')) {
        const m = /^[<>]f\S* (.+)$/.exec(l);
        if (m) transferred.push(m[1]);
      }
      const run: RsyncRun = {
        code,
        signal,
        stdout,
        stderr,
        ms: Date.now() - t0,
        checks: parsed.checks,
        dirs: parsed.dirs,
        again: parsed.again,
        owned: parsed.owned,
        failedVerification,
        transferred,
        stats: parseStats(stdout),
        timedOut,
        interrupted,
      };
      if (interrupted) {
        run.failure = { label: 'sync interrupted', message: `the sync was stopped (${interrupted}) before rsync finished; what was sent so far is kept and the next sync resumes`, hint: 'run `brain sync --now` to finish it' };
      } else if (spawnError) {
        run.failure = { label: 'sync failed', message: `cannot start sh: ${spawnError.message}`, hint: 'sync runs rsync through a POSIX sh: put both on PATH (on Windows, MSYS2 or Cygwin provide them; or run brain inside WSL)' };
      } else if (code === 127 && (/^brain-no-rsync /m.test(stderr) || cmd === 'sh')) {
        run.failure = {
          label: 'rsync missing',
          message: `cannot run ${o.cfg.rsync_path}: not found`,
          hint: 'install rsync 3 (apt install rsync / brew install rsync) and set rsync_path in config.toml, or run `brain init` again (it pins the path)',
        };
      } else if (parsed.otherOwner !== undefined) {
        run.failure = ownerFailure(o.cfg, parsed.otherOwner);
      } else if (code !== 0 && !parsed.again) {
        run.failure = classifyFailure(o.cfg, code, stderr, timedOut, parsed.storeMissing, parsed.unwritable, { freeKiB: parsed.freeKiB, toSend: o.toSend });
      }
      resolve(run);
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** Runs a command to its end, collecting its output (LC_ALL=C: failures are read from its English
 * words). A command that cannot start resolves with code null and the reason as stderr. */
export function runCapture(cmd: string, args: string[], env: Env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const c = childProcess().spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, LC_ALL: 'C' } as NodeJS.ProcessEnv });
    c.stdout.on('data', (d) => (stdout += d.toString()));
    c.stderr.on('data', (d) => (stderr += d.toString()));
    c.on('error', (e) => resolve({ code: null, stdout, stderr: e.message }));
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
