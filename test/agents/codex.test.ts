// Codex (@openai/codex) against the Responses API stand-in: live capture, verify, turns, search,
// and what resume and fork do to its rollout files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../helpers/env';
import { actAndCheckLossless, addTurn, agentSuite, describeChanges, step } from './suite';

agentSuite('codex', (ctx) => {
  step('a hook brain init installed runs only once the user trusts it; init says so', async () => {
    const c = ctx();
    assert.match(c.initOutput, /hook codex.*trust/i, `brain init tells the user Codex needs the hook trusted:\n${c.initOutput}`);
    addTurn(c, { prompt: 'Untrusted hook session', replies: [{ text: 'No hook ran for this one.' }] });
    const { session } = await c.agent.start('Untrusted hook session');
    assert.equal(fs.existsSync(path.join(c.sb.brain, 'meta', 'codex', `${session}.json`)), false, 'Codex 0.171 skips an untrusted hook silently');
  });

  step('exec fork writes a new rollout file and leaves the original alone', async (t) => {
    const c = ctx();
    addTurn(c, { prompt: 'Fork the thread and continue', replies: [{ text: 'Continuing in the forked thread.' }] });
    const changes = await actAndCheckLossless(c, () => c.agent.exec(['exec', 'fork', '--json', '--skip-git-repo-check', c.session, 'Fork the thread and continue'], 'fork'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(changes.map((x) => x.how), ['new'], `a fork makes one new file: ${describeChanges(changes, c.agent.originRoot)}`);
  });

  step('exec resume of a rollout written by Codex 0.104 appends to that old file in place', async (t) => {
    const c = ctx();
    // A real 0.104 rollout under a new thread id (so it is its own file on the floor) and with the
    // stand-in as its provider (Codex refuses to switch a thread's provider on resume).
    const oldId = '019c8bfe-ec25-79e0-97d7-bda6a9c575ff';
    const newId = '019c8bfe-ec25-79e0-97d7-000000000104';
    const src = fs.readFileSync(path.join(FIXTURES, 'codex', 'sessions', '2026', '02', '23', `rollout-2026-02-23T20-34-25-${oldId}.jsonl`), 'utf8');
    assert.match(src, /"cli_version":"0\.104\./);
    const dir = path.join(c.agent.originRoot, '2026', '02', '24');
    fs.mkdirSync(dir, { recursive: true });
    const old = path.join(dir, `rollout-2026-02-24T20-34-25-${newId}.jsonl`);
    fs.writeFileSync(old, src.split(oldId).join(newId).replace('"model_provider":"openai"', '"model_provider":"standin"'));
    addTurn(c, { prompt: 'Pick up the old 0.104 thread again', replies: [{ text: 'Picked up the 0.104 thread.' }] });
    const changes = await actAndCheckLossless(c, () => c.agent.resume(newId, 'Pick up the old 0.104 thread again'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(changes.map((x) => [x.file, x.how, x.sameInode]), [[old, 'appended', true]], describeChanges(changes, c.agent.originRoot));
  });
});
