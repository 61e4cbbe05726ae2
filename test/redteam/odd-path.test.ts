// Red team: one odd path must not stop all recording. A recorded session file that an agent turns
// into a folder holding a session (or a recorded folder of sessions that becomes a file) has a lake
// name another lake path already holds. Every capture pass used to abort on it with exit 3 (ENOTDIR
// … mkdir …/lake/cc/-p/a.jsonl/sub, or "is not a regular file … outside"), so no other session of
// any lane was recorded again, `brain watch` included. Now that origin gets a warning and the pass
// records everything else.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, CLI, FIXTURES, sandbox, type Sandbox } from '../helpers/env';

const SRC = path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl');
const LINE = '{"type":"user","message":{"role":"user","content":"one more line"},"uuid":"u-odd","timestamp":"2026-01-01T00:00:00Z"}\n';

/** ~/.claude/projects/-p/{a.jsonl (file or folder), other.jsonl}, a Codex session, recorded once. */
function setup(name: string, aIsFolder: boolean): { sb: Sandbox; proj: string; other: string; codex: string } {
  const sb = sandbox({ name });
  const proj = path.join(sb.home, '.claude', 'projects', '-p');
  fs.mkdirSync(proj, { recursive: true });
  if (aIsFolder) {
    fs.mkdirSync(path.join(proj, 'a.jsonl', 'sub'), { recursive: true });
    fs.copyFileSync(SRC, path.join(proj, 'a.jsonl', 'sub', 'b.jsonl'));
  } else fs.copyFileSync(SRC, path.join(proj, 'a.jsonl'));
  const other = path.join(proj, 'other.jsonl');
  fs.copyFileSync(SRC, other);
  const codex = path.join(sb.home, '.codex', 'sessions', '2026', '01', '01', 'rollout-odd.jsonl');
  fs.mkdirSync(path.dirname(codex), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl'), codex);
  const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
  return { sb, proj, other, codex };
}

/** The origin flips: a file becomes a folder holding a session, or the reverse. */
function flip(proj: string, toFolder: boolean): void {
  const a = path.join(proj, 'a.jsonl');
  fs.rmSync(a, { recursive: true });
  if (toFolder) {
    fs.mkdirSync(path.join(a, 'sub'), { recursive: true });
    fs.copyFileSync(SRC, path.join(a, 'sub', 'b.jsonl'));
  } else fs.copyFileSync(SRC, a);
}

function lakeOf(sb: Sandbox, origin: string, lane: 'cc' | 'codex'): string {
  const root = lane === 'cc' ? path.join(sb.home, '.claude', 'projects') : path.join(sb.home, '.codex');
  return path.join(sb.brain, 'lake', lane, path.relative(root, origin));
}

for (const toFolder of [true, false]) {
  const what = toFolder ? 'a recorded session file becomes a folder holding a session' : 'a recorded folder of sessions becomes a file';

  test(`record: ${what}: a warning for it, every other session recorded, exit 0`, () => {
    const { sb, proj, other, codex } = setup(`rt-odd-${toFolder ? 'f2d' : 'd2f'}`, !toFolder);
    try {
      flip(proj, toFolder);
      fs.appendFileSync(other, LINE);
      fs.appendFileSync(codex, '{"timestamp":"2026-01-02T00:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"later"}}\n');
      for (let pass = 0; pass < 2; pass++) {
        const r = brain(sb, ['record', '--json'], { env: { BRAIN_QUIET_SECONDS: '0' } });
        assert.equal(r.status, 0, `pass ${pass}: ${r.stdout}\n${r.stderr}`);
        const j = JSON.parse(r.stdout);
        assert.ok(
          j.warnings.some((w: { code: string; path: string }) => w.code === 'lake-name-taken' && w.path.includes('a.jsonl')),
          JSON.stringify(j.warnings),
        );
      }
      assert.ok(fs.readFileSync(lakeOf(sb, other, 'cc')).equals(fs.readFileSync(other)), 'the other Claude session recorded');
      assert.ok(fs.readFileSync(lakeOf(sb, codex, 'codex')).equals(fs.readFileSync(codex)), 'the Codex session recorded');
      const v = brain(sb, ['verify']);
      assert.equal(v.status, 0, v.stdout + v.stderr);
    } finally {
      sb.cleanup();
    }
  });
}

test('watch: the same origin does not stop the watcher; later appends elsewhere are captured', async () => {
  const { sb, proj, other } = setup('rt-odd-watch', false);
  const w = spawn(process.execPath, [CLI, 'watch'], { env: { ...sb.env, BRAIN_QUIET_SECONDS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  w.stdout.on('data', (d) => (out += d));
  w.stderr.on('data', (d) => (out += d));
  let exited: number | null | undefined;
  w.on('exit', (c) => (exited = c));
  const until = async (what: string, ok: () => boolean, ms = 30_000) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (exited !== undefined) assert.fail(`watch exited ${exited} waiting for ${what}:\n${out}`);
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  try {
    await until('catch-up', () => out.includes('watching'));
    // In one pass: the flip and an append to another session.
    flip(proj, true);
    fs.appendFileSync(other, LINE);
    await until('the append to the other session', () => fs.readFileSync(lakeOf(sb, other, 'cc')).equals(fs.readFileSync(other)));
    assert.equal(exited, undefined, `watch still running:\n${out}`);
  } finally {
    w.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    w.kill('SIGKILL');
    sb.cleanup();
  }
});
