// brain watch: a catch-up pass, then each change captured within moments; idle means no passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, sandbox } from '../helpers/env';

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
  const child = spawn(process.execPath, [CLI, 'watch'], { env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  try {
    await until('catch-up', () => out.includes('watching'));
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
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
    sb.cleanup();
  }
});
