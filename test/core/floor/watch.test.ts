// brain watch: a catch-up pass, then each change captured within moments; idle means no passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tryLock, type HeldLock } from '../../../src/core/floor/lock';
import { CLI, FIXTURES, sandbox } from '../../helpers/env';

/** `brain watch` (or `argv`, a command that runs it) as a child, with its output collected. */
function watchProcess(env: NodeJS.ProcessEnv, argv: string[] = [process.execPath, CLI, 'watch']) {
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((res) => child.on('exit', (c) => res((code = c))));
  return { child, exited, out: () => out, code: () => code };
}

async function until(what: string, fn: () => boolean, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('watch captures appends and new files as they happen, does nothing while idle, stops on SIGTERM', async () => {
  const sb = sandbox({ fixtures: true, name: 'watch' });
  fs.rmSync(path.join(sb.home, '.cursor'), { recursive: true });
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching'));
    const origin = path.join(sb.home, '.codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl');
    const lake = path.join(sb.brain, 'lake', 'codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl');
    assert.ok(fs.readFileSync(lake).equals(fs.readFileSync(origin)));
    const health = path.join(sb.brain, 'health', 'capture.json');
    const idleMtime = fs.statSync(health).mtimeMs;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(fs.statSync(health).mtimeMs, idleMtime, 'no capture pass while nothing changes');
    fs.appendFileSync(origin, '{"timestamp":"2026-11-29T00:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"live"}}\n');
    await until('append captured', () => fs.readFileSync(lake).equals(fs.readFileSync(origin)));
    const fresh = path.join(sb.home, '.pi', 'agent', 'sessions', '--new--', 'n.jsonl');
    fs.mkdirSync(path.dirname(fresh), { recursive: true });
    fs.writeFileSync(fresh, '{"type":"session","id":"n"}\n');
    await until('new file captured', () => fs.existsSync(path.join(sb.brain, 'lake', 'pi', '--new--', 'n.jsonl')));
    // An agent installed after the watcher started: its sessions folder appears later.
    const late = path.join(sb.home, '.cursor', 'projects', 'p', 'agent-transcripts', 't.jsonl');
    fs.mkdirSync(path.dirname(late), { recursive: true });
    fs.writeFileSync(late, '{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}\n');
    await until('late folder captured', () => fs.existsSync(path.join(sb.brain, 'lake', 'cursor', 'p', 'agent-transcripts', 't.jsonl')));
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch captures a session written into a folder the moment the folder is made', async () => {
  // Codex opens a new sessions/YYYY/MM/DD folder each day and writes the rollout into it at once;
  // a folder watch set up after the file was written never reports that file.
  const sb = sandbox({ name: 'watch-new-folders' });
  const root = path.join(sb.home, '.codex', 'sessions');
  fs.mkdirSync(path.join(root, '2026'), { recursive: true });
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching'));
    const rels: string[] = [];
    // The watcher busy with a large pass (capture, then the caches) while the folders appear, as
    // when an agent writes a lot at once: its own work runs on the same thread as the watch set-up.
    const big = JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a busy pass '.repeat(400) }] } }) + '\n';
    fs.writeFileSync(path.join(root, '2026', 'busy.jsonl'), big.repeat(4000));
    // The window is between the watcher's listing of a new folder and its watch on it: write
    // each file a little later than the last (0 to 6 ms after its folder), so some land in it.
    for (let i = 0; i < 60; i++) {
      const rel = path.join('2026', String(1 + (i % 12)).padStart(2, '0'), String(1 + (i % 28)).padStart(2, '0'), `rollout-${i}.jsonl`);
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      const gap = (i % 13) / 2;
      if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      fs.writeFileSync(path.join(root, rel), `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s${i}"}}\n`);
      rels.push(rel);
      await new Promise((r) => setTimeout(r, 15));
    }
    const missing = () => rels.filter((r) => !fs.existsSync(path.join(sb.brain, 'lake', 'codex', 'sessions', r)));
    await until('every new-folder session captured', () => missing().length === 0, 20_000).catch(() => assert.fail(`not captured: ${missing().join(', ')}\n${w.out()}`));
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch captures a session that keeps growing while it grows, not only once it stops', async () => {
  // An agent streaming a long run writes a line every moment; each change must not put off the
  // capture of the ones before it for as long as the stream lasts.
  const sb = sandbox({ name: 'watch-stream' });
  const origin = path.join(sb.home, '.pi', 'agent', 'sessions', '--stream--', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.writeFileSync(origin, '{"type":"session","id":"s"}\n');
  const lake = path.join(sb.brain, 'lake', 'pi', '--stream--', 's.jsonl');
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching') && fs.existsSync(lake));
    const start = fs.statSync(lake).size;
    let grewWhileStreaming = false;
    const end = Date.now() + 5000;
    for (let i = 0; Date.now() < end; i++) {
      fs.appendFileSync(origin, JSON.stringify({ type: 'message', id: `m${i}`, message: { role: 'assistant', content: [{ type: 'text', text: `line ${i}` }] } }) + '\n');
      if (fs.statSync(lake).size > start) grewWhileStreaming = true;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(grewWhileStreaming, 'the floor took in none of a session that grew every 100 ms for 5 s until it stopped');
    await until('the whole stream captured', () => fs.readFileSync(lake).equals(fs.readFileSync(origin)));
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch out of file watches: says so once with the fix, and still captures every change by walking', async () => {
  // A user namespace of its own (util-linux unshare) lowers the inotify watch limit for this
  // process alone: the rest of the machine keeps its own.
  const probe = spawnSync('unshare', ['-Ur', 'sh', '-c', 'echo 25 > /proc/sys/user/max_inotify_watches'], { encoding: 'utf8' });
  assert.equal(probe.status, 0, `unshare -Ur (util-linux; apt-get install -y util-linux) must be able to set a user namespace's inotify limit: ${probe.error?.message ?? probe.stderr}`);
  const sb = sandbox({ name: 'watch-limit' });
  const root = path.join(sb.home, '.codex', 'sessions', '2026', '01');
  const files: string[] = [];
  for (let d = 1; d <= 30; d++) {
    const f = path.join(root, String(d).padStart(2, '0'), `rollout-${d}.jsonl`);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `{"type":"session_meta","payload":{"id":"s${d}"}}\n`);
    files.push(f);
  }
  const w = watchProcess({ ...sb.env, BRAIN_WATCH_POLL_SECONDS: '2' }, ['unshare', '-Ur', 'sh', '-c', 'echo 25 > /proc/sys/user/max_inotify_watches && exec "$0" "$1" watch', process.execPath, CLI]);
  try {
    // (The limit's own message says "watching" too.)
    await until('catch-up', () => w.out().includes('watching; floor at'));
    await until('the limit said', () => w.out().includes("file watching reached this system's limit"));
    // Every session, watched or not, still reaches the floor after it grows.
    for (const f of files) fs.appendFileSync(f, '{"type":"event_msg","payload":{"type":"agent_message","message":"later"}}\n');
    const lakeOf = (f: string) => path.join(sb.brain, 'lake', 'codex', 'sessions', path.relative(path.join(sb.home, '.codex', 'sessions'), f));
    const behind = () => files.filter((f) => !fs.existsSync(lakeOf(f)) || !fs.readFileSync(lakeOf(f)).equals(fs.readFileSync(f)));
    await until('every session captured', () => behind().length === 0, 20_000).catch(() => assert.fail(`not captured: ${behind().join(', ')}\n${w.out()}`));
    assert.equal(w.out().split("file watching reached this system's limit").length - 1, 1, `said once:\n${w.out()}`);
    assert.match(w.out(), /fs\.inotify\.max_user_watches=\d+ \| sudo tee/);
    assert.match(w.out(), /walked every 2 s/);
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0, w.out());
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('brain doctor counts the watches recording needs against the limit, and says how to raise it', () => {
  const sb = sandbox({ fixtures: true, name: 'watch-doctor' });
  try {
    const watches = (prefix: string[]) => {
      const r = spawnSync(prefix[0], [...prefix.slice(1), process.execPath, CLI, 'doctor', '--offline', '--json'], { env: sb.env, encoding: 'utf8' });
      assert.ok(r.stdout, `doctor printed nothing: ${r.error?.message ?? r.stderr}`);
      return (JSON.parse(r.stdout) as { checks: { name: string; level: string; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'watches')!;
    };
    // The fixtures: one watch per session file and folder under the agents' session roots.
    let expected = 0;
    for (const root of ['.claude/projects', '.codex/sessions', '.codex/archived_sessions', '.pi/agent/sessions', '.gemini/tmp']) {
      const abs = path.join(sb.home, root);
      if (fs.existsSync(abs)) expected += 1 + fs.readdirSync(abs, { recursive: true }).length;
    }
    const normal = watches(['env']);
    assert.equal(normal.level, 'ok', normal.detail);
    const needed = Number(/^(\d+) session files and folders/.exec(normal.detail)?.[1]);
    assert.ok(needed >= expected && needed > 20, `${normal.detail} (at least ${expected} expected)`);
    const low = watches(['unshare', '-Ur', 'sh', '-c', `echo ${needed} > /proc/sys/user/max_inotify_watches && exec "$@"`, 'sh']);
    assert.equal(low.level, 'warn', low.detail);
    assert.match(low.detail, new RegExp(`allows ${needed} file watches`));
    assert.match(low.fix ?? '', /fs\.inotify\.max_user_watches=\d+/);
  } finally {
    sb.cleanup();
  }
});

test('watch goes on recording an agent whose folder was removed and made again while it ran', async () => {
  // Someone clears an agent's settings (rm -rf ~/.pi) and sets it up again: the watcher loses the
  // sessions folder with it, and must watch the new one when it appears.
  const sb = sandbox({ name: 'watch-root-gone' });
  const root = path.join(sb.home, '.pi', 'agent', 'sessions');
  fs.mkdirSync(path.join(root, '--before--'), { recursive: true });
  fs.writeFileSync(path.join(root, '--before--', 'a.jsonl'), '{"type":"session","id":"a"}\n');
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching; floor at'));
    assert.ok(fs.existsSync(path.join(sb.brain, 'lake', 'pi', '--before--', 'a.jsonl')));
    fs.rmSync(path.join(sb.home, '.pi'), { recursive: true });
    await new Promise((r) => setTimeout(r, 800));
    const later = path.join(root, '--after--', 'b.jsonl');
    fs.mkdirSync(path.dirname(later), { recursive: true });
    fs.writeFileSync(later, '{"type":"session","id":"b"}\n');
    const lake = path.join(sb.brain, 'lake', 'pi', '--after--', 'b.jsonl');
    await until('the session in the folder made again', () => fs.existsSync(lake), 10_000).catch(() => assert.fail(`not captured\n${w.out()}`));
    // And it is watched again: a change to it is captured too.
    fs.appendFileSync(later, '{"type":"message","id":"m1"}\n');
    await until('the change captured', () => fs.readFileSync(lake).equals(fs.readFileSync(later)), 10_000);
    // The first session stays on the floor as it was.
    assert.equal(fs.readFileSync(path.join(sb.brain, 'lake', 'pi', '--before--', 'a.jsonl'), 'utf8'), '{"type":"session","id":"a"}\n');
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch takes in a change that came while another writer held the floor, once it lets go', async () => {
  const sb = sandbox({ name: 'watch-busy' });
  const origin = path.join(sb.home, '.pi', 'agent', 'sessions', '--busy--', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.writeFileSync(origin, '{"type":"session","id":"s"}\n');
  const lake = path.join(sb.brain, 'lake', 'pi', '--busy--', 's.jsonl');
  const w = watchProcess({ ...sb.env, BRAIN_WATCH_LOCK_WAIT_SECONDS: '1' });
  let held: HeldLock | null = null;
  try {
    await until('catch-up', () => w.out().includes('watching; floor at') && fs.existsSync(lake));
    // Another writer (a second `brain record`, the timer) holds the floor for longer than the
    // watcher waits; the session grows once meanwhile and then stays still.
    held = await tryLock(path.join(sb.brain, 'locks'), 'floor');
    assert.ok(held, 'the floor lock');
    fs.appendFileSync(origin, '{"type":"message","id":"m1"}\n');
    // The watcher says when it found the floor busy: only then is "nothing written" a fact.
    await until('the watcher found the floor busy', () => w.out().includes('another brain process is writing the floor'), 15_000);
    assert.notEqual(fs.statSync(lake).size, fs.statSync(origin).size, 'nothing is written while another writer holds the floor');
    held.release();
    held = null;
    await until('the change taken in after the floor was let go', () => fs.readFileSync(lake).equals(fs.readFileSync(origin)), 10_000);
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    held?.release();
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch on a machine with no agent yet waits, and records the first one installed', async () => {
  const sb = sandbox({ name: 'watch-no-agents' });
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching; floor at'));
    // Still running with nothing to watch: the first agent installed afterwards is recorded.
    const first = path.join(sb.home, '.codex', 'sessions', '2026', '03', '01', 'rollout-first.jsonl');
    fs.mkdirSync(path.dirname(first), { recursive: true });
    fs.writeFileSync(first, '{"type":"session_meta","payload":{"id":"first"}}\n');
    await until('the first session captured', () => fs.existsSync(path.join(sb.brain, 'lake', 'codex', 'sessions', '2026', '03', '01', 'rollout-first.jsonl')), 10_000);
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('a FIFO named like a session neither hangs watch nor holds the floor: other sessions are captured, Ctrl-C stops it', async () => {
  const sb = sandbox({ fixtures: true, name: 'watch-fifo' });
  const dir = path.join(sb.home, '.claude', 'projects', 'p');
  fs.mkdirSync(dir, { recursive: true });
  const w = watchProcess(sb.env);
  try {
    await until('catch-up', () => w.out().includes('watching; floor at'));
    // Made while watching: the watcher reports it as a new file and a pass opens it by name.
    const since = w.out().length;
    assert.equal(spawnSync('mkfifo', [path.join(dir, 's.jsonl')]).status, 0, 'mkfifo');
    await until('the FIFO seen', () => w.out().slice(since).includes('note(s)'), 10_000).catch(() => assert.fail(`no pass after the FIFO appeared\n${w.out()}`));
    const origin = path.join(sb.home, '.codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl');
    const lake = path.join(sb.brain, 'lake', 'codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl');
    fs.appendFileSync(origin, '{"timestamp":"2026-11-29T00:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"after the fifo"}}\n');
    await until('another session captured', () => fs.readFileSync(lake).equals(fs.readFileSync(origin)), 10_000).catch(() => assert.fail(`not captured\n${w.out()}`));
    w.child.kill('SIGINT');
    const code = await Promise.race([w.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    assert.equal(code, 0, `brain watch on SIGINT:\n${w.out()}`);
    // The floor lock went with it.
    const after = spawnSync(process.execPath, [CLI, 'record', '--wait', '0', '--no-caches'], { env: sb.env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(after.status, 0, after.stderr);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});

test('watch finds a byte changed inside a session that also grew, with the full pass it asks for', async () => {
  const sb = sandbox({ name: 'watch-mid-edit' });
  const src = path.join(FIXTURES, 'claude', 'projects', 'sample-project', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
  const origin = path.join(sb.home, '.claude', 'projects', 'p', 's.jsonl');
  fs.mkdirSync(path.dirname(origin), { recursive: true });
  fs.copyFileSync(src, origin);
  const w = watchProcess({ ...sb.env, BRAIN_WATCH_CHECK_SECONDS: '1' });
  try {
    await until('catch-up', () => w.out().includes('watching; floor at'));
    const b = fs.readFileSync(origin);
    const mid = b.length >> 1;
    const fd = fs.openSync(origin, 'r+');
    fs.writeSync(fd, Buffer.from([b[mid] === 0x41 ? 0x42 : 0x41]), 0, 1, mid);
    fs.closeSync(fd);
    fs.appendFileSync(origin, '{"type":"user","message":{"role":"user","content":"after the edit"}}\n');
    const g2 = path.join(sb.brain, 'lake', 'cc', 'p', 's.g2.jsonl');
    await until('generation 2 holds the edited session', () => fs.existsSync(g2) && fs.readFileSync(g2).equals(fs.readFileSync(origin)), 15_000).catch(() =>
      assert.fail(`not found\n${w.out()}`),
    );
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
  } finally {
    w.child.kill('SIGKILL');
    sb.cleanup();
  }
});
