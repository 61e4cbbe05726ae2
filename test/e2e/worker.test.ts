// The extension's worker (dist/worker.js) in real worker threads, without an editor: what the
// extension host runs off its main thread. One writer per machine across windows (each Backend
// here stands for one window), catch-up that reports progress, stops when cancelled and resumes,
// and the fallback when better-sqlite3 cannot load.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Backend } from '../../src/extension/backend';
import type { Progress, WorkerEvent } from '../../src/extension/protocol';
import { CLI, REPO, sandbox, type Sandbox } from '../helpers/env';
import { bulk } from './harness';

const DIST = path.join(REPO, 'dist');

function build(): void {
  if (process.env.BRAIN_TEST_BUILT === '1') return; // scripts/test.mjs built dist/ before the tests
  const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'build.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
}

function lakeFiles(sb: Sandbox, sub: string): number {
  const d = path.join(sb.brain, 'lake', 'pi', sub);
  return fs.existsSync(d) ? fs.readdirSync(d).length : 0;
}

class Window {
  backend = new Backend(DIST);
  events: WorkerEvent[] = [];
  constructor(readonly sb: Sandbox, readonly env: NodeJS.ProcessEnv = {}) {
    this.backend.onEvent((e) => this.events.push(e));
  }
  start() {
    return this.backend.start({ record: true, cli: CLI, env: { ...this.sb.env, ...this.env } });
  }
  role(): string | undefined {
    const r = this.events.filter((e) => e.event === 'role');
    return (r[r.length - 1]?.data as { role: string } | undefined)?.role;
  }
  progress(): Progress[] {
    return this.events.filter((e) => e.event === 'progress').map((e) => e.data as Progress);
  }
  async until<T>(what: string, fn: () => T | undefined | false, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events.slice(-5))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('extension worker', { timeout: 300_000 }, () => {
  build();
  const boxes: Sandbox[] = [];
  const windows: Window[] = [];
  const open = (sb: Sandbox, env?: NodeJS.ProcessEnv) => {
    const w = new Window(sb, env);
    windows.push(w);
    return w;
  };
  after(async () => {
    for (const w of windows) await w.backend.dispose();
    for (const b of boxes) b.cleanup();
  });

  it('catches up with progress, stops when cancelled, and resumes where it stopped', async () => {
    const sb = sandbox({ fixtures: true, name: 'wk-catchup' });
    boxes.push(sb);
    const total = 200;
    const bytes = bulk(sb, total);
    const w = open(sb);
    // Cancel as soon as the first progress with files arrives, as the notification's Cancel does.
    w.backend.onEvent((e) => {
      if (e.event === 'progress' && (e.data as Progress).files > 0 && !(e.data as Progress).done) w.backend.cancelCatchUp();
    });
    await w.start();
    const done = await w.until('the cancelled catch-up to end', () => w.progress().find((p) => p.done));
    assert.equal(done.cancelled, true);
    const partial = lakeFiles(sb, '--bulk-history--');
    assert.ok(partial < total, `stopped early: ${partial} of ${total} files on the floor`);
    await w.backend.dispose();

    const w2 = open(sb);
    await w2.start();
    const done2 = await w2.until('the resumed catch-up to end', () => w2.progress().find((p) => p.done));
    assert.equal(done2.cancelled, false);
    assert.equal(lakeFiles(sb, '--bulk-history--'), total);
    // Resumed, not redone: the second pass read only what the first had not.
    assert.ok(done2.bytes < bytes + 5_000_000, `second pass read ${done2.bytes} bytes of ${bytes}`);
    let bulkListed = 0;
    for (let i = 0; i < 100 && bulkListed < total; i++) {
      const sessions = await w2.backend.request('sessions');
      bulkListed = sessions.filter((s) => s.lakePath.includes('--bulk-history--')).length;
      if (bulkListed < total) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(bulkListed, total, 'every recorded bulk session is listed');
    await w2.backend.dispose();
  });

  it('makes one window the writer; another follows and takes over when it closes', async () => {
    const sb = sandbox({ fixtures: true, name: 'wk-windows' });
    boxes.push(sb);
    const a = open(sb);
    const b = open(sb);
    await a.start();
    await a.until('window A to become the writer', () => a.role() === 'writer');
    await b.start();
    await b.until('window B to follow', () => b.role() === 'follower');
    // B follows A's floor: a new session appears in B's list although only A records.
    const f = path.join(sb.home, '.pi', 'agent', 'sessions', '--followed--', '2025-02-02T00-00-00-000Z_11111111-2222-4333-8444-555555555555.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `${JSON.stringify({ type: 'session', version: 3, id: '11111111-2222-4333-8444-555555555555', timestamp: '2025-02-02T00:00:00Z', cwd: '/tmp/followed' })}\n${JSON.stringify({ type: 'message', id: 'a1', parentId: null, timestamp: '2025-02-02T00:00:01Z', message: { role: 'user', content: [{ type: 'text', text: 'followed by the other window' }] } })}\n`);
    await b.until('window B to list the session A recorded', () => b.events.some((e) => e.event === 'sessions'), 20_000);
    const listed = await (async () => {
      for (let i = 0; i < 100; i++) {
        const s = await b.backend.request('sessions');
        const hit = s.find((x) => x.title.includes('followed by the other window'));
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 200));
      }
      return undefined;
    })();
    assert.ok(listed, 'the follower lists what the writer recorded');
    await a.backend.dispose();
    await b.until('window B to take over', () => b.role() === 'writer', 15_000);
  });

  it('without better-sqlite3: lists sessions, searches by scan, says so', async () => {
    const sb = sandbox({ fixtures: true, name: 'wk-nosqlite' });
    boxes.push(sb);
    const w = open(sb, { BRAIN_NO_SQLITE: '1' });
    await w.start();
    await w.until('the catch-up', () => w.progress().find((p) => p.done));
    const sessions = await w.backend.request('sessions');
    assert.ok(sessions.some((s) => s.title.startsWith('Fix the login bug')), 'sessions listed from the manifest');
    const r = await w.backend.recall('search', { term: 'does it only run on main' });
    assert.equal(r.source, 'scan');
    assert.match(String(r.fallback), /sqlite/i);
    assert.equal(r.hits[0].session, 'fe869ecb-c176-478f-9734-7e4b8ef12cff');
    const b = await w.backend.request('backup');
    assert.match(String(b.sqlite), /BRAIN_NO_SQLITE/);
    assert.equal(w.role(), 'writer', 'recording goes on (the lock falls back to flock)');
  });
});
