// The editor's pages without an editor: the Activity chart (a date axis whose spacing is time, a
// colour and a legend entry for every agent, local days), Status and Doctor as readable pages, and
// what a failed sync's toast says (what to do, not rsync's own words), Set Up Backup…'s ssh fields.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, sandbox } from '../helpers/env';
import { sshHostProblem, sshStore, storeDirProblem } from '../../src/extension/backupSpec';
import { activityHtml } from '../../src/extension/activity';
import { doctorHtml, statusHtml } from '../../src/extension/reportView';
import { statusLabel, syncFailureText } from '../../src/extension/labels';
import type { BackupInfo, ListedSession } from '../../src/extension/protocol';

const NO_BACKUP: BackupInfo = { warning: '', status: 'none', lastOk: null, message: '', store: null, machines: [], sqlite: null, recording: null };
const session = (agentLabel: string, started: string) => ({ agentLabel, started, session: `${agentLabel}-${started}`, turns: 1 }) as ListedSession;

/** The chart's bars: [day, agent, x, fill]. */
function bars(html: string): [string, string, number, string][] {
  return [...html.matchAll(/<rect x="(\d+)"[^>]*fill="([^"]+)"><title>(\S+) ([^:]+): \d+<\/title>/g)].map((m) => [m[3], m[4], Number(m[1]), m[2]]);
}

test('the Activity chart: a day axis spaced by time, every agent its own colour and legend entry', () => {
  const agents = ['Claude Code', 'Codex', 'Pi', 'Gemini CLI', 'cursor-agent', 'Cursor IDE', 'Goose', 'Zed', 'Aider'];
  const list = [...agents.map((a) => session(a, '2026-03-02T12:00:00Z')), session('Codex', '2026-03-09T12:00:00Z'), session('Codex', '2026-03-10T12:00:00Z')];
  const html = activityHtml(list, NO_BACKUP);
  const b = bars(html);
  // Every agent drawn, each in a fill no other agent has, and named in the legend.
  const fills = new Map<string, string>();
  for (const [, a, , f] of b) fills.set(a, f);
  assert.deepEqual([...fills.keys()].sort(), [...agents].sort());
  assert.equal(new Set(fills.values()).size, agents.length, 'a colour of its own for each agent');
  for (const a of agents) assert.ok(html.includes(`</i>${a}</span>`), `${a} in the legend`);
  // The gap is time: the 9th is 7 days right of the 2nd, the 10th one day right of the 9th.
  const x = (d: string) => b.find(([day]) => day === d)![2];
  const step = x('2026-03-10') - x('2026-03-09');
  assert.ok(step > 0);
  assert.equal(x('2026-03-09') - x('2026-03-02'), 7 * step);
  // Date labels on the axis: the first day and each Monday (the 2nd and 9th of March 2026 are Mondays).
  const labels = [...html.split('aria-label="backup age')[0].matchAll(/<text x="\d+" y="\d+">([^<]+)<\/text>/g)].map((m) => m[1]);
  assert.equal(labels.length, 2, labels.join(', '));
  assert.ok(labels.every((l) => /\b(2|9)\b/.test(l) && /Mar/.test(l)), labels.join(', '));
});

test('the Activity chart counts a session on its local start day', () => {
  const prev = process.env.TZ;
  process.env.TZ = 'America/New_York';
  try {
    // 02:30 UTC on the 10th is the evening of the 9th in New York.
    assert.deepEqual(bars(activityHtml([session('Pi', '2026-03-10T02:30:00Z')], NO_BACKUP)).map(([d]) => d), ['2026-03-09']);
  } finally {
    if (prev === undefined) delete process.env.TZ;
    else process.env.TZ = prev;
  }
});

test('a failed sync\'s toast says what went wrong and what to do, never rsync\'s own message', () => {
  const raw = 'rsync: [Receiver] mkdir "/mnt/gone/brain/testbox" failed: No such file or directory (2)\nrsync error: error in file IO (code 11) at main.c(791) [Receiver=3.2.7]';
  const t = syncFailureText({ message: raw, warning: 'backup failing: store folder missing' });
  assert.equal(t, 'Agent Brain: backup failed (store folder missing). Run Doctor: it checks the store, ssh and rsync and says how to fix what it finds.');
  assert.doesNotMatch(t, /rsync error|main\.c|code 11/);
  assert.match(syncFailureText({ message: raw, warning: 'backup failing: store folder missing', hint: 'mount the backup disk, then Sync Now' }), /store folder missing\)\. mount the backup disk, then Sync Now$/);
  assert.match(syncFailureText({ message: raw }), /^Agent Brain: backup failed \(the backup did not complete\)\. Run Doctor/);
});

test('Status and Doctor are pages: facts in rows, problems first with their fix, values escaped', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  const st = statusHtml({ machine: 'box<1>', version: '0.2.0', last_ok: null, hint: 'brain init --store DIR' }, NO_BACKUP, now);
  assert.match(st, /<h1>Agent Brain: Status<\/h1>/);
  assert.match(st, /Backup is not set up yet: run <b>Agent Brain: Set Up Backup…<\/b>/);
  assert.match(st, /<tr><th>machine<\/th><td>box&lt;1&gt; \(brain 0\.2\.0\)<\/td><\/tr>/);
  assert.match(st, /<tr><th>last backup that worked<\/th><td>never<\/td><\/tr>/);
  assert.match(st, /Next: <code>brain init --store DIR<\/code>/);
  const withStore = statusHtml({ machine: 'box', last_ok: '2026-03-10T09:00:00Z' }, { ...NO_BACKUP, store: '/mnt/b', machines: [{ machine: 'other', lastSync: '2026-03-08T12:00:00Z', versions: ['0.2.0'], warnings: [], atRisk: 0 }] }, now);
  assert.doesNotMatch(withStore, /not set up/);
  assert.match(withStore, /<td>3h ago \(/);
  assert.match(withStore, /<h2>Machines in the store<\/h2>.*<td>other<\/td><td>2d ago<\/td>/s);
  const doc = doctorHtml([
    { name: 'floor', level: 'ok', detail: 'whole' },
    { name: 'store', level: 'fail', detail: 'cannot reach <host>', fix: 'ssh host true' },
    { name: 'timer', level: 'warn', detail: 'not installed' },
  ]);
  assert.match(doc, /1 problem found; each says how to fix it\./);
  const order = [...doc.matchAll(/<tr class="(\w+)">/g)].map((m) => m[1]);
  assert.deepEqual(order, ['fail', 'warn', 'ok']);
  assert.match(doc, /cannot reach &lt;host&gt;<div class="fix">Fix: <code>ssh host true<\/code><\/div>/);
  assert.match(doctorHtml([{ name: 'floor', level: 'ok', detail: 'whole' }]), /No problems found\./);
});

test('the status bar: neutral and branded until a store is set up, no "recording 0 files", a count in the right number', () => {
  const none = statusLabel(NO_BACKUP, undefined, undefined);
  assert.deepEqual(none, { text: '$(database) Brain: recording', error: false, warn: false });
  // A second window follows the writer: its catch-up takes nothing and says nothing.
  const follower = statusLabel(NO_BACKUP, { phase: 'catch-up', files: 0, bytes: 0, done: false }, undefined);
  assert.equal(follower.text, '$(database) Brain: recording');
  assert.equal(statusLabel(NO_BACKUP, { phase: 'catch-up', files: 1, bytes: 2048, done: false }, undefined).text, '$(sync~spin) Brain: recording 1 file · 2.0 KB');
  assert.equal(statusLabel(NO_BACKUP, { phase: 'catch-up', files: 3, bytes: 10, done: false }, undefined).text, '$(sync~spin) Brain: recording 3 files · 10 B');
  // Once a store is set up, a backup that never ran is a warning; one that fails an error.
  assert.equal(statusLabel({ ...NO_BACKUP, store: '/mnt/b', status: 'none', warning: 'no backup yet' }, undefined, undefined).warn, true);
  const failing = statusLabel({ ...NO_BACKUP, store: '/mnt/b', status: 'failing', warning: 'backup failing: store folder missing' }, undefined, undefined);
  assert.deepEqual(failing, { text: '$(error) backup failing: store folder missing', error: true, warn: false });
});

test('Set Up Backup…\'s ssh fields: what they accept, and the config brain init writes from them', () => {
  assert.equal(sshHostProblem(''), 'Name a host');
  for (const bad of ['host:/srv', 'two words', 'host/path']) assert.equal(sshHostProblem(bad), 'Only the host: no spaces, colons or slashes', bad);
  for (const good of ['backup', 'me@backup.example.lan', ' nas ']) assert.equal(sshHostProblem(good), undefined, good);
  assert.equal(storeDirProblem('srv/brain'), 'An absolute path, starting with /');
  assert.equal(storeDirProblem('/srv/brain'), undefined);
  const store = sshStore(' me@backup.example.lan ', ' /srv/brain ');
  assert.equal(store, 'me@backup.example.lan:/srv/brain');
  // What the command runs next (no host is reached to write the config).
  const sb = sandbox({ name: 'setup-ssh' });
  try {
    const r = brain(sb, ['init', '--store', store, '--no-hooks', '--no-timer']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const config = fs.readFileSync(path.join(sb.brain, 'config.toml'), 'utf8');
    assert.match(config, /^\[store\]\npath = "\/srv\/brain"\nhost = "me@backup\.example\.lan"$/m);
  } finally {
    sb.cleanup();
  }
});
