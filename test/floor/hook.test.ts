// brain hook: repo metadata from a harness payload, through the spool, never failing the agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, brain, sandbox } from '../helpers/env';

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
