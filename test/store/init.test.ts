// brain init: config from the template, the store folder created once, harness hooks (only brain's
// own entries; unparsable files never rewritten), the timer; a second init changes nothing. Also
// doctor (read-only, each problem with its fix) and the retention guard, through the real CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { OWN_COMMAND, planHooks } from '../../src/core/setup/hooks';
import { timerPlan } from '../../src/core/setup/timer';
import { brain, listFiles, REPO, sandbox, type Sandbox } from '../helpers/env';

function tree(dir: string): Map<string, { bytes: Buffer; mtime: number }> {
  const m = new Map<string, { bytes: Buffer; mtime: number }>();
  for (const f of listFiles(dir)) {
    const p = path.join(dir, f);
    const st = fs.statSync(p);
    if (st.isFile()) m.set(f, { bytes: fs.readFileSync(p), mtime: st.mtimeMs });
  }
  return m;
}

/** A meta record for the session, applied (meta/) or still in the spool. */
function mentions(home: string, session: string): boolean {
  for (const d of ['meta', 'spool']) {
    for (const f of listFiles(path.join(home, d))) {
      if (f.includes(session)) return true;
      if (f.endsWith('.json') && fs.readFileSync(path.join(home, d, f), 'utf8').includes(session)) return true;
    }
  }
  return false;
}

describe('brain init', () => {
  let sb: Sandbox;
  let store: string;
  before(() => {
    sb = sandbox({ fixtures: true, name: 'init' });
    store = path.join(sb.dir, 'backups', 'brain');
  });
  after(() => sb.cleanup());

  it('writes config, creates the store folder, installs hooks and the timer', () => {
    const r = brain(sb, ['init', '--store', store]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(fs.statSync(store).isDirectory());
    assert.equal(fs.statSync(store).mode & 0o777, 0o700);
    const cfg = fs.readFileSync(path.join(sb.brain, 'config.toml'), 'utf8');
    assert.match(cfg, new RegExp(`path = "${store}"`));
    assert.match(cfg, /rsync_path = "\/usr\/bin\/rsync"/, 'rsync pinned by absolute path');
    assert.match(cfg, /^# /m, 'commented template');
    // Claude Code: one SessionStart command hook running brain by absolute path.
    const cc = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude', 'settings.json'), 'utf8'));
    const cmd: string = cc.hooks.SessionStart[0].hooks[0].command;
    assert.equal(cmd, `${process.execPath} ${path.join(REPO, 'bin', 'brain')} hook cc`);
    assert.ok(OWN_COMMAND.test(cmd));
    const codex = JSON.parse(fs.readFileSync(path.join(sb.home, '.codex', 'hooks.json'), 'utf8'));
    assert.match(codex.hooks.SessionStart[0].hooks[0].command, / hook codex$/);
    assert.ok(fs.existsSync(path.join(sb.home, '.pi', 'agent', 'extensions', 'agent-brain.ts')));
    // Timer: systemd user units, written even where systemctl --user cannot be reached.
    const unitDir = path.join(sb.home, '.config', 'systemd', 'user');
    const service = fs.readFileSync(path.join(unitDir, 'brain-tick.service'), 'utf8');
    assert.match(service, new RegExp(`ExecStart="${process.execPath}" "${path.join(REPO, 'bin', 'brain')}" "tick"`));
    assert.match(service, new RegExp(`Environment="BRAIN_HOME=${sb.brain}"`));
    assert.match(fs.readFileSync(path.join(unitDir, 'brain-tick.timer'), 'utf8'), /OnUnitActiveSec=5min/);
    if (spawnSync('systemctl', ['--user', 'show-environment']).status !== 0) assert.match(r.stdout, /systemctl --user is not available here/);
  });

  it('a second init changes nothing', () => {
    const before = tree(sb.home);
    const r = brain(sb, ['init', '--store', store]);
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /nothing to change/);
    const after = tree(sb.home);
    for (const [f, v] of before) {
      if (f.startsWith('.brain/')) continue;
      assert.ok(after.get(f)?.bytes.equals(v.bytes), `${f} unchanged`);
      assert.equal(after.get(f)?.mtime, v.mtime, `${f} not rewritten`);
    }
    const r2 = brain(sb, ['init']);
    assert.match(r2.stdout, /nothing to change/);
  });

  it('keeps other hooks and settings, replaces only an older brain entry', () => {
    const f = path.join(sb.home, '.claude', 'settings.json');
    const theirs = {
      model: 'opus',
      cleanupPeriodDays: 99,
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }, { type: 'command', command: '/old/path/bin/brain hook cc' }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
      },
    };
    fs.writeFileSync(f, JSON.stringify(theirs, null, 4));
    const r = brain(sb, ['init']);
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /replaces 1 older brain hook entry/);
    const now = JSON.parse(fs.readFileSync(f, 'utf8'));
    assert.equal(now.model, 'opus');
    assert.equal(now.cleanupPeriodDays, 99);
    assert.deepEqual(now.hooks.Stop, theirs.hooks.Stop);
    assert.deepEqual(now.hooks.SessionStart[0], { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] });
    const ours = now.hooks.SessionStart.flatMap((g: { hooks: { command: string }[] }) => g.hooks).filter((h: { command: string }) => OWN_COMMAND.test(h.command));
    assert.equal(ours.length, 1);
    assert.match(brain(sb, ['init']).stdout, /nothing to change/);
  });

  it('never rewrites a hooks file it cannot parse, and says so', () => {
    const f = path.join(sb.home, '.codex', 'hooks.json');
    const broken = '{ "hooks": { "SessionStart": [ oops\n';
    fs.writeFileSync(f, broken);
    const r = brain(sb, ['init']);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /failed +hook codex: .*hooks\.json: not valid JSON/);
    assert.equal(fs.readFileSync(f, 'utf8'), broken);
    const d = brain(sb, ['doctor', '--json']);
    const checks = JSON.parse(d.stdout).checks as { name: string; level: string; fix?: string }[];
    const hc = checks.find((c) => c.name === 'hook codex')!;
    assert.equal(hc.level, 'fail');
    assert.match(hc.fix!, /fix .*hooks\.json by hand/);
    fs.rmSync(f);
    assert.equal(brain(sb, ['init']).status, 0);
  });

  it('never overwrites a config.toml it cannot parse', () => {
    const f = path.join(sb.brain, 'config.toml');
    const good = fs.readFileSync(f);
    fs.writeFileSync(f, '[store\npath = "/x"\n');
    const r = brain(sb, ['init', '--store', store]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /config\.toml:1:\d+: not valid TOML.*never overwritten/);
    assert.equal(fs.readFileSync(f, 'utf8'), '[store\npath = "/x"\n');
    fs.writeFileSync(f, good);
  });

  it('does not recreate a store folder that went missing (an unmounted disk)', () => {
    fs.renameSync(store, `${store}.unmounted`);
    try {
      const r = brain(sb, ['init']);
      assert.equal(r.status, 1);
      assert.match(r.stdout, /does not exist on this machine/);
      assert.ok(!fs.existsSync(store));
    } finally {
      fs.renameSync(`${store}.unmounted`, store);
    }
  });

  it('--store HOST:PATH writes an ssh store, --ssh-mux-only sets it', () => {
    const r = brain(sb, ['init', '--store', 'me@box:/srv/brain', '--ssh-mux-only', '--no-hooks', '--no-timer']);
    assert.equal(r.status, 0, r.stdout);
    const cfg = fs.readFileSync(path.join(sb.brain, 'config.toml'), 'utf8');
    assert.match(cfg, /^path = "\/srv\/brain"$/m);
    assert.match(cfg, /^host = "me@box"$/m);
    assert.match(cfg, /^ssh_mux_only = true$/m);
    assert.match(r.stdout, /must exist on me@box/);
    const bad = brain(sb, ['init', '--store', 'box:/a:b/c"d', '--no-hooks', '--no-timer']);
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /quote/);
    assert.equal(brain(sb, ['init', '--store', store]).status, 0);
  });

  it('the Claude Code hook command records the session meta when run as Claude Code runs it', () => {
    const cc = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude', 'settings.json'), 'utf8'));
    const cmd = cc.hooks.SessionStart.flatMap((g: { hooks: { command: string }[] }) => g.hooks).find((h: { command: string }) => OWN_COMMAND.test(h.command)).command;
    const payload = JSON.stringify({ session_id: 'aaaaaaaa-1111-2222-3333-444444444444', cwd: REPO, hook_event_name: 'SessionStart', source: 'startup' });
    const r = spawnSync('sh', ['-c', cmd], { input: payload, env: { ...sb.env, PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(mentions(sb.brain, 'aaaaaaaa-1111-2222-3333-444444444444'), 'a meta record (or its spool entry) names the session');
  });

  it("the Pi extension runs `brain hook pi` with the session's id at session_start", async () => {
    const ext = path.join(sb.home, '.pi', 'agent', 'extensions', 'agent-brain.ts');
    const out = path.join(sb.dir, 'ext.cjs');
    await build({ entryPoints: [ext], outfile: out, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(out) as { default: (pi: unknown) => void };
    const handlers: Record<string, (e: unknown, c: unknown) => Promise<void>> = {};
    const oldHome = process.env.BRAIN_HOME;
    process.env.BRAIN_HOME = sb.brain;
    try {
      mod.default({ on: (ev: string, h: (e: unknown, c: unknown) => Promise<void>) => (handlers[ev] = h) });
      await handlers.session_start({ reason: 'startup' }, { cwd: REPO, sessionManager: { getSessionId: () => 'bbbbbbbb-1111-2222-3333-444444444444', getSessionFile: () => '/tmp/x.jsonl' } });
    } finally {
      if (oldHome === undefined) delete process.env.BRAIN_HOME;
      else process.env.BRAIN_HOME = oldHome;
    }
    let found = false;
    for (let i = 0; i < 100 && !found; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = mentions(sb.brain, 'bbbbbbbb-1111-2222-3333-444444444444');
    }
    assert.ok(found, 'a meta record for the pi session was written');
  });

  it('brain timer remove and install', () => {
    const unitDir = path.join(sb.home, '.config', 'systemd', 'user');
    const rm = brain(sb, ['timer', 'remove']);
    assert.equal(rm.status, 0);
    assert.ok(!fs.existsSync(path.join(unitDir, 'brain-tick.timer')));
    assert.equal(brain(sb, ['timer', 'status']).status, 1);
    const d = JSON.parse(brain(sb, ['doctor', '--json']).stdout).checks.find((c: { name: string }) => c.name === 'timer');
    assert.equal(d.level, 'fail');
    assert.match(d.fix, /brain timer install/);
    assert.equal(brain(sb, ['timer', 'install']).status, 0);
    assert.ok(fs.existsSync(path.join(unitDir, 'brain-tick.timer')));
  });
});

describe('timer plan', () => {
  it('a launchd agent on macOS: pinned command, every 300 s, escaped', () => {
    const plan = timerPlan(['/opt/node & co/bin/node', '/Users/me/brain/bin/brain'], { HOME: '/Users/me', BRAIN_HOME: '/Users/me/.brain' }, 'darwin');
    assert.equal(plan.files.length, 1);
    const f = plan.files[0];
    assert.equal(f.path, '/Users/me/Library/LaunchAgents/dev.agent-brain.tick.plist');
    assert.match(f.content, /<string>\/opt\/node &amp; co\/bin\/node<\/string>\n {4}<string>\/Users\/me\/brain\/bin\/brain<\/string>\n {4}<string>tick<\/string>/);
    assert.match(f.content, /<key>StartInterval<\/key>\n {2}<integer>300<\/integer>/);
    assert.match(f.content, /<key>BRAIN_HOME<\/key>\n {4}<string>\/Users\/me\/\.brain<\/string>/);
  });
});

describe('doctor', () => {
  let sb: Sandbox;
  before(() => (sb = sandbox({ name: 'doctor' })));
  after(() => sb.cleanup());

  it('with nothing set up: each problem with its fix, exit 1, and nothing written', () => {
    const r = brain(sb, ['doctor', '--json']);
    assert.equal(r.status, 1);
    const checks = JSON.parse(r.stdout).checks as { name: string; level: string; fix?: string }[];
    const by = (n: string) => checks.find((c) => c.name === n)!;
    assert.equal(by('config').level, 'fail');
    assert.match(by('config').fix!, /brain init --store/);
    assert.equal(by('rsync').level, 'ok');
    assert.equal(by('timer').level, 'fail');
    assert.equal(by('hook cc').level, 'warn');
    assert.equal(by('hook cc').fix, 'brain init');
    assert.ok(!fs.existsSync(path.join(sb.home, '.claude', 'settings.json')), 'read-only');
    assert.ok(!fs.existsSync(path.join(sb.brain, 'config.toml')));
    const text = brain(sb, ['doctor']);
    assert.match(text.stdout, /^FAIL config: /m);
    assert.match(text.stdout, /^ {7}fix: brain init --store PATH/m);
  });

  it('planHooks is what doctor and init share', () => {
    const plan = planHooks(['/usr/bin/node', '/x/bin/brain'], sb.env);
    assert.deepEqual(plan.map((p) => `${p.agent}:${p.action}`), ['cc:create', 'codex:create', 'pi:create']);
  });
});

describe('retention guard', () => {
  let sb: Sandbox;
  before(() => (sb = sandbox({ fixtures: true, name: 'retention' })));
  after(() => sb.cleanup());

  it('warns about a Claude Code session due within 7 days that is not in the store, until it is', () => {
    const store = path.join(sb.dir, 'store');
    assert.equal(brain(sb, ['init', '--store', store, '--no-hooks', '--no-timer']).status, 0);
    fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({ cleanupPeriodDays: 10 }));
    const projects = path.join(sb.home, '.claude', 'projects');
    const session = path.join(projects, listFiles(projects).find((f) => f.endsWith('.jsonl'))!);
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    fs.utimesSync(session, fiveDaysAgo, fiveDaysAgo);
    const s1 = JSON.parse(brain(sb, ['status', '--json', '--local']).stdout);
    assert.equal(s1.retention.days, 10);
    assert.equal(s1.retention.atRisk.length, 1);
    assert.equal(s1.retention.atRisk[0].origin, session);
    assert.equal(s1.retention.atRisk[0].why, 'not recorded');
    const d = JSON.parse(brain(sb, ['doctor', '--json']).stdout).checks.find((c: { name: string }) => c.name === 'retention');
    assert.equal(d.level, 'fail');
    assert.match(d.detail, /will be deleted by Claude Code \(cleanupPeriodDays = 10\) within 7 days/);
    assert.equal(brain(sb, ['record']).status, 0);
    const s2 = JSON.parse(brain(sb, ['status', '--json', '--local']).stdout);
    assert.equal(s2.retention.atRisk[0].why, 'not in the store');
    const sy = brain(sb, ['sync']);
    assert.equal(sy.status, 0, sy.stdout + sy.stderr);
    const s3 = JSON.parse(brain(sb, ['status', '--json', '--local']).stdout);
    assert.deepEqual(s3.retention.atRisk, []);
    assert.equal(s3.retention.dueSoon, 1);
    assert.equal(s3.warning, '');
  });
});
