// Claude Code (@anthropic-ai/claude-code) against the Messages API stand-in: live capture,
// verify, turns, search, what resume and fork do to its files, and its SessionStart hook.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../helpers/env';
import { actAndCheckLossless, addTurn, agentSuite, describeChanges, step } from './suite';

agentSuite('cc', (ctx) => {
  step('--resume --fork-session writes a new file holding a copy of the history; the original is untouched', async (t) => {
    const c = ctx();
    addTurn(c, { prompt: 'Fork the session and continue', replies: [{ text: 'Continuing in the fork.' }] });
    const changes = await actAndCheckLossless(c, () => c.agent.exec(['-p', 'Fork the session and continue', '--output-format', 'json', '--resume', c.session, '--fork-session'], 'fork'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(changes.map((x) => x.how), ['new'], `a fork makes one new file: ${describeChanges(changes, c.agent.originRoot)}`);
    const fork = fs.readFileSync(changes[0].file, 'utf8');
    assert.ok(fork.includes('probe printed its marker'), 'the fork carries the copied history');
  });

  step('resuming a session written by Claude Code 1.0 appends to that old file in place', async (t) => {
    const c = ctx();
    // A real 1.0.108 transcript, its cwd pointed at the test repository, saved in this project's
    // folder (Claude Code only resumes sessions of the current directory's project).
    const id = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
    const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', 'sample-project', `${id}.jsonl`), 'utf8');
    assert.match(src, /"version":"1\.0\./);
    const old = path.join(path.dirname(c.origin), `${id}.jsonl`);
    fs.writeFileSync(old, src.replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(c.agent.repo)}`));
    addTurn(c, { prompt: 'Pick up the old 1.0 session again', replies: [{ text: 'Picked up the 1.0 session.' }] });
    const changes = await actAndCheckLossless(c, () => c.agent.resume(id, 'Pick up the old 1.0 session again'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(changes.map((x) => [x.file, x.how, x.sameInode]), [[old, 'appended', true]], describeChanges(changes, c.agent.originRoot));
  });
});
