// brain hook: repo metadata from a harness payload, through the spool, never failing the agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, brain, sandbox } from '../../helpers/env';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

test('hook cc writes meta/cc/<session>.json with git common dir, remote, branch and commit (worktrees too)', () => {
  const sb = sandbox({ name: 'hook' });
  try {
    const repo = path.join(sb.dir, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'remote', 'add', 'origin', 'git@example.com:me/repo.git');
    fs.writeFileSync(path.join(repo, 'a'), 'a');
    git(repo, 'add', 'a');
    git(repo, 'commit', '-qm', 'first');
    git(repo, 'checkout', '-qb', 'feature/x');
    const commit = git(repo, 'rev-parse', 'HEAD');
    const payload = { session_id: 'sess-1', transcript_path: '/x/sess-1.jsonl', cwd: path.join(repo), hook_event_name: 'SessionStart', source: 'startup' };
    const r = brain(sb, ['hook', 'cc'], { input: JSON.stringify(payload) });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const meta = JSON.parse(fs.readFileSync(path.join(sb.brain, 'meta', 'cc', 'sess-1.json'), 'utf8'));
    assert.equal(meta.git.branch, 'feature/x');
    assert.equal(meta.git.commit, commit);
    assert.equal(meta.git.remote, 'git@example.com:me/repo.git');
    assert.equal(fs.realpathSync(meta.git.common_dir), fs.realpathSync(path.join(repo, '.git')));
    assert.equal(meta.cwd, repo);
    assert.equal(fs.statSync(path.join(sb.brain, 'meta', 'cc', 'sess-1.json')).mode & 0o777, 0o600);
    // Same record again: idempotent. A worktree on another branch: a second record, same common dir.
    brain(sb, ['hook', 'cc'], { input: JSON.stringify(payload) });
    assert.ok(!fs.existsSync(path.join(sb.brain, 'meta', 'cc', 'sess-1.2.json')));
    const wt = path.join(sb.dir, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'other', wt);
    brain(sb, ['hook', 'cc'], { input: JSON.stringify({ ...payload, cwd: path.join(wt), source: 'resume' }) });
    const m2 = JSON.parse(fs.readFileSync(path.join(sb.brain, 'meta', 'cc', 'sess-1.2.json'), 'utf8'));
    assert.equal(m2.git.branch, 'other');
    assert.equal(fs.realpathSync(m2.git.common_dir), fs.realpathSync(path.join(repo, '.git')));
    // Nothing left in the spool.
    assert.deepEqual(fs.readdirSync(path.join(sb.brain, 'spool', 'cc')).filter((n) => !n.startsWith('.')), []);
  } finally {
    sb.cleanup();
  }
});

test('hook never fails the agent: bad payload, unknown agent, unwritable BRAIN_HOME all exit 0 with a message', () => {
  const sb = sandbox({ name: 'hookfail' });
  try {
    let r = brain(sb, ['hook', 'cc'], { input: 'not json' });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /not JSON/);
    r = brain(sb, ['hook', 'nope'], { input: '{}' });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /unknown agent/);
    r = brain(sb, ['hook', 'cc', '--strict'], { input: '{}' });
    assert.equal(r.status, 1);
    // BRAIN_HOME under a regular file: cannot be created by anyone, root included.
    const blocker = path.join(sb.dir, 'file');
    fs.writeFileSync(blocker, 'x');
    r = spawnSync(process.execPath, [CLI, 'hook', 'cc'], { env: { ...sb.env, BRAIN_HOME: path.join(blocker, 'brain') }, input: '{"session_id":"s","cwd":"/"}', encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /agent is not affected/);
  } finally {
    sb.cleanup();
  }
});

/** Every file under a folder, relative ('/'-separated), symlinks included and never followed. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

test('a session id that would climb out of meta/ (.., /, absolute, NUL) is kept as one escaped name inside it', () => {
  const sb = sandbox({ name: 'hook-escape' });
  try {
    const before = tree(sb.dir);
    const ids = ['../../../../escape', 'a/b', '/etc/brain-hook-abs', '..', 'x\u0000y', '%2E', 'ok-id'];
    for (const id of ids) {
      const r = brain(sb, ['hook', 'cc', '--strict'], { input: JSON.stringify({ session_id: id, cwd: '/' }) });
      assert.equal(r.status, 0, `${JSON.stringify(id)}: ${r.stderr}`);
      assert.equal(r.stderr, '');
    }
    // Nothing new outside BRAIN_HOME, and nothing at /etc.
    const added = tree(sb.dir).filter((f) => !before.includes(f));
    assert.deepEqual(added.filter((f) => !f.startsWith('home/.brain/')), []);
    assert.ok(!fs.existsSync('/etc/brain-hook-abs.json'));
    const meta = path.join(sb.brain, 'meta', 'cc');
    assert.deepEqual(fs.readdirSync(meta).sort(), ['%252E.json', '%2E.%2F..%2F..%2F..%2Fescape.json', '%2E..json', '%2Fetc%2Fbrain-hook-abs.json', 'a%2Fb.json', 'ok-id.json', 'x%00y.json']);
    // The record keeps the id as the harness gave it; recall finds it under the same escaped name.
    assert.equal(JSON.parse(fs.readFileSync(path.join(meta, 'a%2Fb.json'), 'utf8')).session, 'a/b');
  } finally {
    sb.cleanup();
  }
});

test('a symlink planted at meta/<lane> is never written through: the hook says so and exits 0', () => {
  const sb = sandbox({ name: 'hook-symlink' });
  try {
    const ok = brain(sb, ['hook', 'cc'], { input: JSON.stringify({ session_id: 'first', cwd: '/' }) });
    assert.equal(ok.status, 0, ok.stderr);
    const outside = path.join(sb.dir, 'outside');
    fs.mkdirSync(outside);
    fs.rmSync(path.join(sb.brain, 'meta', 'cc'), { recursive: true });
    fs.symlinkSync(outside, path.join(sb.brain, 'meta', 'cc'));
    const r = brain(sb, ['hook', 'cc'], { input: JSON.stringify({ session_id: 'second', cwd: '/' }) });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /meta\/cc.*symlink.*refused/);
    assert.match(r.stderr, /agent is not affected/);
    assert.deepEqual(fs.readdirSync(outside), []);
    assert.equal(brain(sb, ['hook', 'cc', '--strict'], { input: JSON.stringify({ session_id: 'third', cwd: '/' }) }).status, 1);
    assert.deepEqual(fs.readdirSync(outside), []);
  } finally {
    sb.cleanup();
  }
});
