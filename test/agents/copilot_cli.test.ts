// GitHub Copilot CLI (@github/copilot) against the chat-completions stand-in: live capture while
// it writes, a resumed session appended in place, verify, turns, search, and its tokens in
// brain stats equal to its usage records summed from the file.
import * as assert from 'node:assert/strict';
import { rawUsage } from '../helpers/rawusage';
import { brainCli } from './floor';
import './drivers/copilot_cli';
import { agentSuite, step } from './suite';

agentSuite('copilot_cli', (ctx) => {
  step('brain stats counts its tokens as the usage records in its files add up', () => {
    const c = ctx();
    const raw = [...rawUsage(c.sb.home).entries()].filter(([, t]) => t.agent === 'copilot-cli');
    assert.ok(raw.some(([f]) => f === c.origin), 'the live session carries usage records');
    const want = raw.reduce((a, [, t]) => ({ input: a.input + t.input, output: a.output + t.output, cache_read: a.cache_read + t.cacheRead, cache_creation: a.cache_creation + t.cacheCreation }), { input: 0, output: 0, cache_read: 0, cache_creation: 0 });
    const r = brainCli(c.agent.env, ['stats', '--agent', 'copilot-cli', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const row = (JSON.parse(r.stdout) as { rows: { key: string; tokens: Record<string, number> }[] }).rows.find((x) => x.key === 'copilot-cli');
    assert.ok(row, r.stdout);
    assert.deepEqual({ input: row.tokens.input, output: row.tokens.output, cache_read: row.tokens.cache_read, cache_creation: row.tokens.cache_creation }, want);
  });
});
