// Claude Code token totals per day from the cache must equal ccusage's (17.2.1, the last
// JavaScript release) over the same files: the real ccusage runs here, with CLAUDE_CONFIG_DIR at
// the sandbox's copy of the fixtures, plus a project of constructed edge cases (a reply repeated
// across files, lines ccusage's schema rejects, replies without ids, lines around midnight UTC).
// Output tokens are the exception: ccusage keeps a reply's first streamed line, whose output is
// only the first block's, the cache its last (usage.test.ts checks that against the raw files);
// here ours is checked to be ccusage's plus what the later lines of streamed replies add.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentBin } from '../../../scripts/setup/40-agents.mjs';
import { rebuildCache, runReadOnlySql, updateCache } from '../../../src/core/cache';
import { capturedSandbox, writeJsonl } from './helpers';
import { capture } from '../../../src/core/floor/capture';

// Installed by the test setup (scripts/setup/40-agents.mjs), not a dependency of the package.
const CCUSAGE = agentBin('ccusage');

interface Day {
  date: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}

function ccusageDaily(claudeDir: string, home: string): Day[] {
  assert.ok(fs.existsSync(CCUSAGE), `ccusage is missing: run node scripts/setup/40-agents.mjs (expected ${CCUSAGE})`);
  const r = spawnSync(CCUSAGE, ['daily', '--json', '--offline', '--timezone', 'UTC', '--order', 'asc'], {
    env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: claudeDir, TZ: 'UTC', LANG: 'C.UTF-8' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `ccusage failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { daily: Day[] }).daily.map((d) => ({
    date: d.date,
    inputTokens: d.inputTokens,
    outputTokens: d.outputTokens,
    cacheCreationTokens: d.cacheCreationTokens,
    cacheReadTokens: d.cacheReadTokens,
  }));
}

async function brainDaily(home: string): Promise<Day[]> {
  const r = await runReadOnlySql(
    home,
    `SELECT strftime(event_time, '%Y-%m-%d') AS date,
            sum(input_tokens) AS inputTokens, sum(output_tokens) AS outputTokens,
            sum(cache_creation_tokens) AS cacheCreationTokens, sum(cache_read_tokens) AS cacheReadTokens
     FROM derived.usage WHERE agent = 'claude-code' GROUP BY 1 ORDER BY 1`,
    { timeZone: 'UTC' },
  );
  return r.rows.map((row) => ({
    date: row[0] as string,
    inputTokens: row[1] as number,
    outputTokens: row[2] as number,
    cacheCreationTokens: row[3] as number,
    cacheReadTokens: row[4] as number,
  }));
}

const usage = (i: number, o: number, cc: number | null | undefined, cr: number) => {
  const u: Record<string, unknown> = { input_tokens: i, output_tokens: o, cache_read_input_tokens: cr };
  if (cc !== undefined) u.cache_creation_input_tokens = cc;
  return u;
};

function line(ts: string, id: string | undefined, req: string | undefined, u: unknown, extra: Record<string, unknown> = {}) {
  return {
    type: 'assistant',
    timestamp: ts,
    sessionId: 'edge',
    ...(req !== undefined ? { requestId: req } : {}),
    message: { ...(id !== undefined ? { id } : {}), role: 'assistant', model: 'claude-opus-4-7', content: [{ type: 'text', text: 'x' }], usage: u },
    ...extra,
  };
}

/** Edge cases ccusage decides one way; the cache must decide the same way. */
function writeEdgeProject(claudeDir: string): void {
  const dir = path.join(claudeDir, 'projects', '-edge-cases');
  // b.jsonl starts earlier than a.jsonl, so ccusage keeps b's copy of the shared reply (a
  // different usage on purpose: the order decides which one counts).
  writeJsonl(path.join(dir, 'a.jsonl'), [
    line('2026-03-01T23:59:59.999Z', 'msg_shared', 'req_shared', usage(10, 20, 30, 40)),
    line('2026-03-02T00:00:00.000Z', 'msg_a1', 'req_a1', usage(1, 2, 3, 4)),
    line('2026-03-02T00:00:00.000Z', 'msg_a1', 'req_a1', usage(1, 8, 3, 4)), // streamed: its output grew by 6
    line('2026-03-02T01:00:00.000Z', undefined, 'req_noid', usage(5, 5, 5, 5)), // no id: never deduplicated
    line('2026-03-02T01:00:00.000Z', undefined, 'req_noid', usage(5, 5, 5, 5)),
    line('2026-03-02T02:00:00.000Z', 'msg_null', 'req_null', usage(7, 7, null, 7)), // null cache field: rejected
    line('2026-03-02T02:00:00+00:00', 'msg_tz', 'req_tz', usage(9, 9, 9, 9)), // not ISO-Z: rejected
    line('2026-03-02T03:00:00Z', 'msg_nofrac', 'req_nofrac', usage(11, 11, 11, 11)), // ISO-Z without ms: accepted
    line('2026-03-02T04:00:00.000Z', 'msg_noccr', 'req_noccr', usage(13, 13, undefined, 13)), // absent cache field: accepted
    { ...line('2026-03-02T05:00:00.000Z', 'msg_str', 'req_str', usage(17, 17, 17, 17)), message: { id: 'msg_str', role: 'assistant', content: 'plain', usage: usage(17, 17, 17, 17) } }, // string content: rejected
    line('2026-03-02T06:00:00.000Z', 'msg_ver', 'req_ver', usage(19, 19, 19, 19), { version: 'v2' }), // bad version: rejected
    line('2026-03-02T07:00:00.000Z', 'msg_sc', 'req_sc', usage(23, 23, 23, 23), { isSidechain: true }), // sidechain: counted
    'not json at all {',
    { type: 'user', timestamp: '2026-03-02T08:00:00.000Z', message: { role: 'user', content: 'hi' } },
  ]);
  writeJsonl(path.join(dir, 'b.jsonl'), [
    line('2026-03-01T12:00:00.000Z', 'msg_b0', 'req_b0', usage(100, 200, 300, 400)),
    line('2026-03-01T23:59:59.999Z', 'msg_shared', 'req_shared', usage(1000, 2000, 3000, 4000)),
  ]);
  // Not a .jsonl file: ccusage never reads it.
  fs.writeFileSync(path.join(dir, 'c.json'), JSON.stringify(line('2026-03-03T00:00:00.000Z', 'm_c', 'r_c', usage(50, 50, 50, 50))) + '\n');
}

const noOutput = (d: Day) => ({ ...d, outputTokens: 0 });

/** Per day (UTC, of the first line), what the last line of each streamed reply adds to the output
 * of its first line, in each .jsonl file under claudeDir: read from the files themselves. */
function streamedOutput(claudeDir: string): Map<string, number> {
  const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  const first = new Map<string, { day: string; out: number; last: number }>();
  for (const f of walk(path.join(claudeDir, 'projects')).filter((x) => x.endsWith('.jsonl'))) {
    for (const l of fs.readFileSync(f, 'utf8').split('\n')) {
      let j: any;
      try {
        j = JSON.parse(l);
      } catch {
        continue;
      }
      const id = j?.message?.id;
      const out = j?.message?.usage?.output_tokens;
      if (typeof id !== 'string' || typeof out !== 'number' || typeof j.requestId !== 'string') continue;
      // A reply copied into another file is another file's matter (the cache keeps the first file's).
      const key = `${f}\0${id}`;
      const seen = first.get(key);
      if (seen) seen.last = out;
      else first.set(key, { day: String(j.timestamp).slice(0, 10), out, last: out });
    }
  }
  const m = new Map<string, number>();
  for (const r of first.values()) if (r.last !== r.out) m.set(r.day, (m.get(r.day) ?? 0) + r.last - r.out);
  return m;
}

test('Claude Code tokens per day equal ccusage daily over the same files', async () => {
  const sb = await capturedSandbox('ccusage', (s) => writeEdgeProject(path.join(s.home, '.claude')));
  try {
    await rebuildCache(sb.brain);
    const ours = await brainDaily(sb.brain);
    const theirs = ccusageDaily(path.join(sb.home, '.claude'), sb.home);
    const streamedExtra = streamedOutput(path.join(sb.home, '.claude'));
    assert.ok(theirs.length >= 5, `ccusage reported ${theirs.length} days`);
    assert.ok(theirs.some((d) => d.date === '2026-03-01') && theirs.some((d) => d.date === '2026-03-02'), 'the edge-case days are in ccusage');
    assert.deepEqual(ours.map(noOutput), theirs.map(noOutput));
    assert.deepEqual(ours.map((d) => d.outputTokens - theirs.find((t) => t.date === d.date)!.outputTokens), ours.map((d) => streamedExtra.get(d.date) ?? 0));
    assert.equal(streamedExtra.get('2026-03-02'), 6, 'the edge case streamed reply');
    // The shared reply counted from b.jsonl (earliest file), not a.jsonl.
    const d1 = ours.find((d) => d.date === '2026-03-01')!;
    assert.equal(d1.inputTokens, 100 + 1000);
  } finally {
    sb.cleanup();
  }
});

test('after an incremental update the totals still equal ccusage', async () => {
  const sb = await capturedSandbox('ccusage-inc');
  try {
    await rebuildCache(sb.brain);
    writeEdgeProject(path.join(sb.home, '.claude'));
    await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
    const u = await updateCache(sb.brain);
    assert.equal(u.mode, 'update');
    const ours = await brainDaily(sb.brain);
    const theirs = ccusageDaily(path.join(sb.home, '.claude'), sb.home);
    assert.deepEqual(ours.map(noOutput), theirs.map(noOutput));
    const extra = streamedOutput(path.join(sb.home, '.claude'));
    assert.deepEqual(ours.map((d) => d.outputTokens - theirs.find((t) => t.date === d.date)!.outputTokens), ours.map((d) => extra.get(d.date) ?? 0));
  } finally {
    sb.cleanup();
  }
});
