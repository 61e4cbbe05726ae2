// Recall over every machine of a store: from machine A, a phrase only machine B recorded is found
// first, shown and its citation verified, over a real sshd (the search runs on the store host as
// `node -`) and over a local store folder (the same code, in process). This machine answers alone,
// and says so, when the store cannot be reached.
import { test, before, after, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BETA_SESSION, PHRASE, sshWith, twoMachines, type TwoMachines } from './machines';
import { REPO } from '../../helpers/env';
import { startMcp } from '../../mcp/helpers';

function json(r: { status: number | null; stdout: string; stderr: string }, code = 0) {
  assert.equal(r.status, code, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

for (const ssh of [true, false]) {
  describe(ssh ? 'an ssh store' : 'a local store folder', () => {
    let t: TwoMachines;
    before(async () => {
      t = await twoMachines(ssh ? 'every-ssh' : 'every-local', { ssh });
    });
    after(() => t.cleanup());

    test('a phrase only the other machine recorded: found first, shown, citation verified', () => {
      const j = json(t.runA(['search', PHRASE, '--json']));
      assert.ok(j.hits.length >= 1);
      const h = j.hits[0];
      assert.equal(h.machine, 'beta');
      assert.equal(h.session, BETA_SESSION);
      assert.equal(h.tier, 'turns');
      assert.equal(j.store.searched, true);
      assert.match(j.header, /this machine: turn index · store /);
      if (ssh && !/^v(2[3-9]|22\.(1[3-9]|[2-9]\d))/.test(process.version)) assert.match(j.header, /scan \(node v\d+.* on the store host has no node:sqlite/);
      const c = h.snippets[0].citation;
      assert.equal(c.machine, 'beta');
      assert.ok(h.snippets[0].text.toLowerCase().includes(PHRASE));

      const md = t.runA(['show', BETA_SESSION, '--machine', 'beta']);
      assert.equal(md.status, 0, md.stderr);
      assert.match(md.stdout, /machine: beta/);
      assert.ok(md.stdout.includes(PHRASE));
      // Without --machine: not on this machine, so the store is asked.
      const sj = json(t.runA(['show', BETA_SESSION.slice(0, 12), '--json', '--turns', '1..3']));
      assert.equal(sj.session.machine, 'beta');

      const v = t.runA(['cite', '--verify', JSON.stringify(c)]);
      assert.equal(v.status, 0, v.stdout + v.stderr);
      assert.match(v.stdout, ssh ? /^ok: brainstore:\/.*\/beta\/lake\/cc\// : /^ok: \/.*\/store\/beta\/lake\/cc\//);
      const bad = t.runA(['cite', '--verify', JSON.stringify({ ...c, sha256: '0'.repeat(64) })]);
      assert.equal(bad.status, 1, bad.stdout + bad.stderr);
      // The same lines cited anew from this machine: made where the file is, the same citation.
      const again = json(t.runA(['cite', c.lake_path, `${c.line_from}..${c.line_to}`, '--machine', 'beta', '--json']));
      assert.deepEqual(again, c);
      const human = t.runA(['cite', c.lake_path, `${c.line_from}..${c.line_to}`, '--machine', 'beta']);
      const check = /^check: (.*)$/m.exec(human.stdout)?.[1] ?? '';
      assert.match(check, ssh ? /^ssh brainstore 'sed -n / : /^sed -n /);
      // The check line runs as printed (ssh through the test's own client config).
      const ran = execFileSync('sh', ['-c', ssh ? check.replace(/^ssh /, `${t.sshd!.sshCommand} `) : check], { encoding: 'utf8' });
      assert.equal(ran.split(' ')[0], c.sha256);
    });

    test("this machine's hits and the other's, each naming its machine", () => {
      const j = json(t.runA(['search', 'green and yellow', '--json']));
      assert.equal(j.hits[0].machine, 'alpha');
      assert.equal(j.hits[0].session, 'example-claude-code');
      const both = json(t.runA(['search', 'colors', '--json', '--limit', '50']));
      const machines = new Set(both.hits.map((h: { machine: string }) => h.machine));
      assert.ok(machines.has('alpha') && machines.has('beta'), [...machines].join());
      // --machine narrows to this machine alone: the store is not asked.
      const mine = json(t.runA(['search', 'colors', '--json', '--machine', 'alpha']));
      assert.equal(mine.store, undefined);
    });

    // The store host's node and its index exist over ssh only (a local folder is searched in process).
    if (ssh) test('doctor: node on the store host runs the search there', () => {
      const d = JSON.parse(t.runA(['doctor', '--json']).stdout);
      const check = d.checks.find((x: { name: string }) => x.name === 'store search');
      assert.equal(check?.level, 'ok', JSON.stringify(check));
      assert.match(check.detail, /^node v\d+\S* on brainstore searches the store's 1 other machine \(beta\) there; it reads the files/);
      // A store host where node is not on the PATH: an ssh that runs the command without it.
      const env = { BRAIN_SSH_COMMAND: sshWith(t, 'PATH=/nonexistent') };
      const d2 = JSON.parse(t.runA(['doctor', '--json'], env).stdout);
      const c2 = d2.checks.find((x: { name: string }) => x.name === 'store search');
      assert.equal(c2?.level, 'warn', JSON.stringify(c2));
      assert.match(c2.detail, /reach this machine only: node is not on the PATH of brainstore/);
      assert.match(c2.fix, /install Node.js 20 or newer on brainstore/);
      const j = json(t.runA(['search', 'green and yellow', '--json'], env));
      assert.equal(j.store.searched, false);
      assert.match(j.store.note, /node is not on the PATH of brainstore/);
    });

    if (ssh) test('a store host whose node has node:sqlite keeps the turn index there', async () => {
      // Node 24, as the e2e setup installs it (this machine's node is older).
      const setup = (await import(path.join(REPO, 'scripts', 'setup', '50-e2e.mjs'))) as { runtime(): { node: string } };
      const node24 = setup.runtime().node;
      assert.ok(fs.existsSync(node24), `${node24} is missing: run node scripts/setup/50-e2e.mjs (it installs Node 24)`);
      const env = { BRAIN_SSH_COMMAND: sshWith(t, `PATH=${path.dirname(node24)}:$PATH`) };
      for (let i = 0; i < 2; i++) {
        const j = json(t.runA(['search', PHRASE, '--json'], env));
        assert.equal(j.hits[0].machine, 'beta');
        assert.equal(j.hits[0].session, BETA_SESSION);
        assert.equal(j.store.source, 'index', j.header);
        assert.match(j.header, /store brainstore:.* \(beta\): turn index/);
        // The citation from the index verifies like the scan's.
        const v = t.runA(['cite', '--verify', JSON.stringify(j.hits[0].snippets[0].citation)], env);
        assert.equal(v.status, 0, v.stdout + v.stderr);
      }
      assert.ok(fs.existsSync(path.join(t.store, 'turns.sqlite')), 'the index is on the store host, beside the machines');
      // --scan holds for the store host too.
      const scan = json(t.runA(['search', PHRASE, '--json', '--scan'], env));
      assert.equal(scan.store.source, 'scan');
      assert.equal(scan.hits[0].session, BETA_SESSION);
      const d = JSON.parse(t.runA(['doctor', '--json'], env).stdout).checks.find((x: { name: string }) => x.name === 'store search');
      assert.match(d.detail, /with the store's turn index kept there$/);
    });

    test('brain mcp: search, read_session and verify_citation reach the other machine', async () => {
      const mcp = await startMcp(t.a.env);
      try {
        const s = await mcp.call('search', { term: PHRASE });
        assert.equal(s.isError, false, s.text);
        assert.equal(s.json.hits[0].machine, 'beta');
        const c = s.json.hits[0].snippets[0].citation;
        assert.equal((await mcp.call('verify_citation', { citation: c })).json.ok, true);
        const r = await mcp.call('read_session', { session: BETA_SESSION, machine: 'beta', turns: '1..2' });
        assert.equal(r.isError, false, r.text);
        assert.equal(r.json.session.machine, 'beta');
      } finally {
        await mcp.close();
      }
    });
  });
}

describe('an ssh store that cannot be reached', () => {
  let t: TwoMachines;
  before(async () => {
    t = await twoMachines('every-down', { ssh: true });
    await t.sshd!.stop();
  });
  after(() => t.cleanup());

  test('this machine answers alone and says the store was not searched', () => {
    const j = json(t.runA(['search', 'green and yellow', '--json']));
    assert.equal(j.hits[0].machine, 'alpha');
    assert.equal(j.store.searched, false);
    assert.match(j.header, /other machines not searched: cannot reach .*; this machine only/);
    const none = t.runA(['search', PHRASE]);
    assert.equal(none.status, 1);
    assert.match(none.stdout, /other machines not searched/);
    const show = t.runA(['show', BETA_SESSION, '--machine', 'beta']);
    assert.equal(show.status, 3, show.stdout + show.stderr);
    assert.match(show.stderr, /session ".*" is on beta, and the store brainstore:.* could not be asked/);
  });

  test('ssh_mux_only without a master: the store is not asked', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    await t.sshd!.start();
    const f = path.join(t.a.brain, 'config.toml');
    fs.writeFileSync(f, `${fs.readFileSync(f, 'utf8')}ssh_mux_only = true\n`);
    const j = json(t.runA(['search', 'green and yellow', '--json']));
    assert.equal(j.store.searched, false);
    assert.match(j.store.note, /no ssh master for brainstore/);
    assert.equal(j.hits[0].machine, 'alpha');
  });
});
