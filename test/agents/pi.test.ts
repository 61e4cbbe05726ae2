// Pi (@mariozechner/pi-coding-agent) against the chat-completions stand-in: live capture, verify,
// turns and search, and what Pi does to its files when a session is reopened or forked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../helpers/env';
import { MODEL } from './standin';
import { actAndCheckLossless, addTurn, agentSuite, describeChanges, step } from './suite';

agentSuite('pi', (ctx) => {
  step('reopening a session written by an older Pi (v1, no ids) migrates the file in place: the floor keeps the old bytes as a generation', async (t) => {
    const c = ctx();
    // The real v1 transcript from the fixtures, its header's cwd pointed at the test repository so Pi
    // accepts it, saved where Pi keeps this project's sessions.
    const fx = fs.readFileSync(path.join(FIXTURES, 'pi', 'agent', 'sessions', '--Users-badlogic-workspaces-pi-mono--', 'large-session.jsonl'), 'utf8');
    const nl = fx.indexOf('\n');
    const header = JSON.parse(fx.slice(0, nl)) as { id: string; cwd: string; version?: number };
    assert.equal(header.version, undefined, 'the fixture is a v1 session');
    header.cwd = c.agent.repo;
    const old = path.join(path.dirname(c.origin), `2025-11-20T23-33-50-805Z_${header.id}.jsonl`);
    fs.writeFileSync(old, JSON.stringify(header) + fx.slice(nl));
    addTurn(c, { prompt: 'Pick up the old v1 session again', replies: [{ text: 'Picked up the v1 session.' }] });

    const changes = await actAndCheckLossless(c, () => c.agent.resume(old, 'Pick up the old v1 session again'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(
      changes.map((x) => [x.file, x.how]),
      [[old, 'rewritten']],
      `Pi 0.73 rewrites a v1 session to v3 when it opens it; now: ${describeChanges(changes, c.agent.originRoot)}`,
    );
    const now = fs.readFileSync(old, 'utf8');
    assert.match(now.slice(0, now.indexOf('\n')), /"version":3/, 'the migrated header says version 3');
  });

  step('--fork copies a session into a new file and leaves the original alone', async (t) => {
    const c = ctx();
    addTurn(c, { prompt: 'Fork this conversation please', replies: [{ text: 'Forked conversation answer.' }] });
    const changes = await actAndCheckLossless(c, () => c.agent.exec(['--provider', 'standin', '--model', MODEL.chat, '--fork', c.origin, '-p', 'Fork this conversation please'], 'fork'));
    t.diagnostic(describeChanges(changes, c.agent.originRoot));
    assert.deepEqual(
      changes.map((x) => x.how),
      ['new'],
      `a fork makes one new file: ${describeChanges(changes, c.agent.originRoot)}`,
    );
  });
});
