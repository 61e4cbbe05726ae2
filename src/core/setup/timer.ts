// The timer that runs `brain tick` every 5 minutes, outside every sandbox: a systemd user unit on
// Linux, a launchd agent on macOS. The command is pinned at install (node and brain by absolute
// path) because a timer brings its own PATH, and so are the folder variables that point brain at
// non-default agent homes. Writing is idempotent: a file whose content is already right is left alone.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { homeDir, type Env } from '../home';
import { writeFileAtomic } from '../floor/durable';
import { registry } from '../agents';
import { setting } from '../settings';

export const UNIT = 'brain-tick';
export const LAUNCHD_LABEL = 'dev.agent-brain.tick';
export const PERIOD_SEC = 300;

/** Variables the tick needs to see the same folders the installing shell saw (the agents' own
 * come from the registry). */
const PINNED_ENV = ['BRAIN_HOME', ...registry().envVars(), 'BRAIN_SSH_COMMAND'];

export type Platform = 'linux' | 'darwin' | 'other';

export function currentPlatform(): Platform {
  const p = os.platform();
  return p === 'linux' ? 'linux' : p === 'darwin' ? 'darwin' : 'other';
}

export interface TimerFile {
  path: string;
  content: string;
}

export interface TimerPlan {
  platform: Platform;
  files: TimerFile[];
}

function pinnedEnv(env: Env): [string, string][] {
  return PINNED_ENV.filter((k) => env[k]).map((k) => [k, env[k]!]);
}

function systemdQuote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function systemdDir(env: Env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(homeDir(env), '.config'), 'systemd', 'user');
}

export function launchdFile(env: Env): string {
  return path.join(homeDir(env), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

/** The unit files (or plist) for `brainCmd` (argv: node, brain script). */
export function timerPlan(brainCmd: string[], env: Env, platform: Platform = currentPlatform()): TimerPlan {
  const cmd = [...brainCmd, 'tick'];
  const vars = pinnedEnv(env);
  if (platform === 'darwin') {
    const logDir = path.join(setting(env, 'BRAIN_HOME'), 'sync');
    const content = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
      '<plist version="1.0">',
      '<dict>',
      '  <key>Label</key>',
      `  <string>${LAUNCHD_LABEL}</string>`,
      '  <key>ProgramArguments</key>',
      '  <array>',
      ...cmd.map((a) => `    <string>${xml(a)}</string>`),
      '  </array>',
      '  <key>StartInterval</key>',
      `  <integer>${PERIOD_SEC}</integer>`,
      '  <key>RunAtLoad</key>',
      '  <true/>',
      '  <key>ProcessType</key>',
      '  <string>Background</string>',
      '  <key>LowPriorityIO</key>',
      '  <true/>',
      ...(vars.length
        ? ['  <key>EnvironmentVariables</key>', '  <dict>', ...vars.flatMap(([k, v]) => [`    <key>${xml(k)}</key>`, `    <string>${xml(v)}</string>`]), '  </dict>']
        : []),
      '  <key>StandardOutPath</key>',
      `  <string>${xml(path.join(logDir, 'tick.log'))}</string>`,
      '  <key>StandardErrorPath</key>',
      `  <string>${xml(path.join(logDir, 'tick.log'))}</string>`,
      '</dict>',
      '</plist>',
      '',
    ].join('\n');
    return { platform, files: [{ path: launchdFile(env), content }] };
  }
  if (platform === 'linux') {
    const dir = systemdDir(env);
    const service = [
      '# Written by `brain init` / `brain timer install` (Agent Brain). `brain timer remove` removes it.',
      '[Unit]',
      'Description=Agent Brain: record agent sessions and back them up (brain tick)',
      '',
      '[Service]',
      'Type=oneshot',
      `ExecStart=${cmd.map(systemdQuote).join(' ')}`,
      ...vars.map(([k, v]) => `Environment=${systemdQuote(`${k}=${v}`)}`),
      'Nice=10',
      'IOSchedulingClass=idle',
      '',
    ].join('\n');
    const timer = [
      '# Written by `brain init` / `brain timer install` (Agent Brain). `brain timer remove` removes it.',
      '[Unit]',
      'Description=Agent Brain: brain tick every 5 minutes',
      '',
      '[Timer]',
      'OnBootSec=2min',
      `OnUnitActiveSec=${PERIOD_SEC / 60}min`,
      'AccuracySec=30s',
      '',
      '[Install]',
      'WantedBy=timers.target',
      '',
    ].join('\n');
    return {
      platform,
      files: [
        { path: path.join(dir, `${UNIT}.service`), content: service },
        { path: path.join(dir, `${UNIT}.timer`), content: timer },
      ],
    };
  }
  return { platform, files: [] };
}

export interface TimerResult {
  written: string[];
  unchanged: string[];
  removed: string[];
  /** The service manager took it (enabled and started / stopped). */
  activated: boolean;
  /** What the user must still do, when the service manager could not be reached from here. */
  note?: string;
}

function run(cmd: string, args: string[], env: Env): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env as NodeJS.ProcessEnv, timeout: 20_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim() };
}

/** Can this process talk to the user's service manager? (Not in a container or over plain su.) */
export function systemdUserAvailable(env: Env): { ok: boolean; why: string } {
  const r = run('systemctl', ['--user', 'show-environment'], env);
  return { ok: r.ok, why: r.out.split('\n')[0] || 'systemctl --user failed' };
}

export function installTimer(brainCmd: string[], env: Env, platform: Platform = currentPlatform(), opts: { activate?: boolean } = {}): TimerResult {
  const plan = timerPlan(brainCmd, env, platform);
  const res: TimerResult = { written: [], unchanged: [], removed: [], activated: false };
  if (plan.platform === 'other') {
    res.note = `no timer for ${os.platform()}: run \`brain tick\` every 5 minutes with the system's scheduler`;
    return res;
  }
  for (const f of plan.files) {
    let old: string | null = null;
    try {
      old = fs.readFileSync(f.path, 'utf8');
    } catch {
      /* new */
    }
    if (old === f.content) res.unchanged.push(f.path);
    else {
      writeFileAtomic(f.path, f.content);
      fs.chmodSync(f.path, 0o644);
      res.written.push(f.path);
    }
  }
  if (opts.activate === false) return res;
  const changed = res.written.length > 0;
  if (plan.platform === 'linux') {
    const avail = systemdUserAvailable(env);
    if (!avail.ok) {
      res.note = `systemctl --user is not available here (${avail.why}): the unit files are written; in a login session run \`systemctl --user daemon-reload && systemctl --user enable --now ${UNIT}.timer\` (and \`loginctl enable-linger\` so it runs while you are logged out)`;
      return res;
    }
    if (changed) run('systemctl', ['--user', 'daemon-reload'], env);
    const active = run('systemctl', ['--user', 'is-active', `${UNIT}.timer`], env);
    if (!changed && active.ok) {
      res.activated = true;
      return res;
    }
    const en = run('systemctl', ['--user', 'enable', '--now', `${UNIT}.timer`], env);
    res.activated = en.ok;
    if (!en.ok) res.note = `systemctl --user enable --now ${UNIT}.timer failed: ${en.out}`;
    return res;
  }
  // launchd
  const uid = process.getuid?.() ?? 0;
  const target = `gui/${uid}`;
  const loaded = run('launchctl', ['print', `${target}/${LAUNCHD_LABEL}`], env).ok;
  if (loaded && !changed) {
    res.activated = true;
    return res;
  }
  if (loaded) run('launchctl', ['bootout', `${target}/${LAUNCHD_LABEL}`], env);
  const b = run('launchctl', ['bootstrap', target, plan.files[0].path], env);
  res.activated = b.ok;
  if (!b.ok) res.note = `launchctl bootstrap ${target} ${plan.files[0].path} failed: ${b.out}`;
  return res;
}

export function removeTimer(env: Env, platform: Platform = currentPlatform()): TimerResult {
  const res: TimerResult = { written: [], unchanged: [], removed: [], activated: false };
  if (platform === 'linux') {
    const avail = systemdUserAvailable(env);
    if (avail.ok) run('systemctl', ['--user', 'disable', '--now', `${UNIT}.timer`], env);
    else res.note = `systemctl --user is not available here (${avail.why}): removed the unit files only`;
    for (const f of [`${UNIT}.timer`, `${UNIT}.service`]) {
      const p = path.join(systemdDir(env), f);
      if (fs.existsSync(p)) {
        fs.rmSync(p);
        res.removed.push(p);
      }
    }
    if (avail.ok) run('systemctl', ['--user', 'daemon-reload'], env);
  } else if (platform === 'darwin') {
    const uid = process.getuid?.() ?? 0;
    run('launchctl', ['bootout', `gui/${uid}/${LAUNCHD_LABEL}`], env);
    const p = launchdFile(env);
    if (fs.existsSync(p)) {
      fs.rmSync(p);
      res.removed.push(p);
    }
  }
  return res;
}

export interface TimerStatus {
  installed: boolean;
  /** Files present but different from what install would write now (another brain path, say). */
  outdated: boolean;
  /** null: cannot tell from here. */
  running: boolean | null;
  detail: string;
}

export function timerStatus(brainCmd: string[], env: Env, platform: Platform = currentPlatform()): TimerStatus {
  const plan = timerPlan(brainCmd, env, platform);
  if (plan.platform === 'other') return { installed: false, outdated: false, running: null, detail: `no timer support for ${os.platform()}` };
  const present = plan.files.filter((f) => fs.existsSync(f.path));
  const installed = present.length === plan.files.length;
  const outdated = installed && plan.files.some((f) => fs.readFileSync(f.path, 'utf8') !== f.content);
  let running: boolean | null = null;
  let detail = installed ? `installed (${plan.files.map((f) => f.path).join(', ')})` : `not installed (${plan.files.map((f) => f.path).join(', ')} missing)`;
  if (platform === 'linux') {
    const avail = systemdUserAvailable(env);
    if (avail.ok) {
      running = run('systemctl', ['--user', 'is-active', `${UNIT}.timer`], env).ok;
      detail += running ? ', active' : ', not active';
    } else detail += `; cannot ask systemd (${avail.why})`;
  } else if (platform === 'darwin') {
    const uid = process.getuid?.() ?? 0;
    running = run('launchctl', ['print', `gui/${uid}/${LAUNCHD_LABEL}`], env).ok;
    detail += running ? ', loaded' : ', not loaded';
  }
  return { installed, outdated, running, detail };
}
