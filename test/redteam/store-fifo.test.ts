// Red team: another machine's folder in the store is not trusted. A FIFO where its manifest or a
// lake file should be used to block every store-wide read forever (open() waits for a writer):
// `brain search`, `search --scan`, `show` of that machine's session, over a local store folder and
// over ssh, where the store host's `node -` also kept running after its client gave up. Each read
// must come back, the other machines must still answer, and the store host's process must end
// when the machine that asked goes away.
import { test, before, after, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BETA_SESSION, PHRASE, twoMachines, type TwoMachines } from '../core/remote/machines';
import { CLI } from '../helpers/env';

/** A copy of beta's store folder under another name (its manifest and lake as beta synced them). */
function copyMachine(store: string, name: string): string {
  const dir = path.join(store, name);
  fs.cpSync(path.join(store, 'beta'), dir, { recursive: true });
  return dir;
}

function mkfifo(file: string): void {
  fs.rmSync(file, { force: true });
  const r = spawnSync('mkfifo', [file]);
  assert.equal(r.status, 0, `mkfifo ${file}: ${r.stderr}`);
}

/** The lake file of beta's session in a machine folder. */
function betaLake(dir: string): string {
  const lake = path.join(dir, 'lake', 'cc', '-srv-beta-work', `${BETA_SESSION}.jsonl`);
  assert.ok(fs.existsSync(lake), lake);
  return lake;
}

/** Pids of store-side `node - REQUEST` processes asking about `store` (the request is base64 JSON
 * that starts with the store path, so its first characters are known). */
function storeSide(store: string): number[] {
  const head = `{"store":${JSON.stringify(store)}`;
  const b64 = Buffer.from(head.slice(0, Math.floor(head.length / 3) * 3)).toString('base64');
  const r = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => l.includes(`node - ${b64}`) && !/\bsh -c\b|bash -c/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** Ctrl-C to a process group; one that finished on its own already is fine (its store side must
 * end all the same, which the caller checks). */
function interrupt(pid: number): void {
  try {
    process.kill(-pid, 'SIGINT');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

async function until(what: string, ms: number, ok: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const QUICK = 60_000;
// Where a name run as shell would leave its mark: the folders a shell here or on the store host
// starts in (a name cannot hold a slash, so the command names a file relative to them).
const PWNED = 'brain-redteam-pwned';
const SHELLY = `m$(touch ${PWNED})';touch ${PWNED};'\`touch ${PWNED}\``;
const marks = (t: TwoMachines) => [process.cwd(), t.store, t.a.home, t.a.dir, process.env.HOME ?? '/root', '/root'].map((d) => path.join(d, PWNED));

/** brain as machine A, killed (SIGKILL: a process blocked in open() never runs its SIGTERM
 * handler) when it has not answered within QUICK. */
function runA(t: TwoMachines, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...t.a.env, ...env }, encoding: 'utf8', timeout: QUICK, killSignal: 'SIGKILL', maxBuffer: 64 << 20 });
}

for (const ssh of [false, true]) {
  describe(`a hostile machine folder, ${ssh ? 'ssh store' : 'local store folder'}`, () => {
    let t: TwoMachines;
    before(async () => {
      t = await twoMachines(ssh ? 'rt-fifo-ssh' : 'rt-fifo-local', { ssh });
      // "fifoman": its manifest is a FIFO. "fifolake": its manifest names a lake file that is one.
      mkfifo(path.join(copyMachine(t.store, 'fifoman'), 'manifest', 'manifest.jsonl'));
      mkfifo(betaLake(copyMachine(t.store, 'fifolake')));
      // A machine folder whose name is shell: read like any other, run by nothing.
      copyMachine(t.store, SHELLY);
    });
    after(async () => {
      for (const pid of storeSide(t.store)) process.kill(pid, 'SIGKILL');
      await t.cleanup();
    });

    for (const scan of [true, false]) {
      test(`search${scan ? ' --scan' : ''} comes back, beta answers, the FIFOs are named and not read`, () => {
        const r = runA(t, ['search', PHRASE, '--json', ...(scan ? ['--scan'] : [])], { BRAIN_STORE_TIMEOUT: '30' });
        assert.notEqual(r.status, null, `brain search hung (killed by ${r.signal})`);
        assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
        const j = JSON.parse(r.stdout);
        assert.equal(j.store.searched, true, j.header);
        assert.ok(
          j.hits.some((h: { machine: string }) => h.machine === 'beta'),
          `beta's session found: ${j.header}`,
        );
        assert.ok(!j.hits.some((h: { machine: string }) => h.machine === 'fifoman'));
        const refused = j.refused as { machine: string; lake_path: string; problem: string }[];
        if (scan) assert.ok(refused.some((f) => f.machine === 'fifoman' && /FIFO/.test(f.problem)), JSON.stringify(refused));
        assert.ok(refused.some((f) => f.machine === 'fifolake'), JSON.stringify(refused));
        assert.deepEqual(storeSide(t.store), [], 'no store-side process left');
        // The machine named in shell answers like the others, and its name ran nowhere.
        const only = runA(t, ['search', PHRASE, '--json', '--machine', SHELLY, ...(scan ? ['--scan'] : [])]);
        assert.equal(only.status, 0, only.stdout + only.stderr);
        const shelly = JSON.parse(only.stdout).hits.find((h: { machine: string }) => h.machine === SHELLY);
        assert.ok(shelly, `the shell-named machine answers: ${only.stdout.slice(0, 300)}`);
        const c = shelly.snippets[0].citation;
        const v = runA(t, ['cite', '--verify', JSON.stringify(c)]);
        assert.equal(v.status, 0, v.stdout + v.stderr);
        const human = runA(t, ['cite', c.lake_path, `${c.line_from}..${c.line_to}`, '--machine', SHELLY]);
        assert.equal(human.status, 0, human.stderr);
        const check = /^check: (.*)$/m.exec(human.stdout)?.[1] ?? '';
        const ran = spawnSync('sh', ['-c', check], { encoding: 'utf8', env: { ...process.env, PATH: process.env.PATH } });
        if (!ssh) assert.equal(ran.stdout.split(' ')[0], c.sha256, `${check}: ${ran.stderr}`);
        for (const m of marks(t)) assert.ok(!fs.existsSync(m), `a machine folder name ran as shell: ${m}`);
      });
    }

    test('show of the session whose lake file is a FIFO: an error, at once', () => {
      const started = Date.now();
      const r = runA(t, ['show', BETA_SESSION, '--machine', 'fifolake'], { BRAIN_STORE_TIMEOUT: '30' });
      assert.notEqual(r.status, null, `brain show hung (killed by ${r.signal})`);
      assert.ok(Date.now() - started < QUICK);
      assert.notEqual(r.status, 0, r.stdout);
      // And the same session of beta still shows.
      const ok = runA(t, ['show', BETA_SESSION, '--machine', 'beta']);
      assert.equal(ok.status, 0, ok.stderr);
      assert.ok(ok.stdout.includes(PHRASE));
      assert.deepEqual(storeSide(t.store), [], 'no store-side process left');
    });

    if (ssh) {
      test('the store host stops working when the machine that asked goes away', async () => {
        // Legitimate work that takes a while: a machine folder whose one session is beta's
        // transcript many times over (every copy says PHRASE), searched with --scan.
        const dir = path.join(t.store, 'bulky');
        fs.mkdirSync(path.join(dir, 'lake', 'cc', 'p'), { recursive: true });
        fs.mkdirSync(path.join(dir, 'manifest'));
        const one = fs.readFileSync(betaLake(path.join(t.store, 'beta')));
        const lake = path.join(dir, 'lake', 'cc', 'p', 'bulky.jsonl');
        const fd = fs.openSync(lake, 'w');
        for (let n = 0; n < (150 << 20) / one.length; n++) fs.writeSync(fd, one);
        fs.closeSync(fd);
        const bytes = fs.readFileSync(lake);
        fs.writeFileSync(
          path.join(dir, 'manifest', 'manifest.jsonl'),
          `${JSON.stringify({ v: 1, lane: 'cc', agent: 'claude-code', session: 'bulky', gen: 1, byte_from: 0, byte_to: bytes.length, line_from: 1, line_to: bytes.toString('latin1').split('\n').length - 1, chunk_sha256: createHash('sha256').update(bytes).digest('hex'), captured_at: '2026-01-01T00:00:00.000Z', event_ts_first: null, machine_id: 'bulky', origin_path: '/x/bulky.jsonl', source: 'record', lake_path: 'lake/cc/p/bulky.jsonl' })}\n`,
        );
        // Run as a user would, in its own process group, and end it as Ctrl-C does.
        const c = spawn(process.execPath, [CLI, 'search', PHRASE, '--scan', '--machine', 'bulky'], { env: { ...t.a.env, BRAIN_STORE_TIMEOUT: '600' }, stdio: 'ignore', detached: true });
        try {
          await until('the store side starts', 30_000, () => storeSide(t.store).length > 0);
          // Ended as soon as it is seen working: a fast machine scans the file in a second or two.
          assert.ok(storeSide(t.store).length > 0, 'the store side is still working (the request is slow enough to test this)');
        } finally {
          interrupt(c.pid!);
        }
        await until('the store side ends after its client went away', 15_000, () => storeSide(t.store).length === 0);
      });
    }
  });
}
