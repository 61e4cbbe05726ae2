// OpenCode (npm opencode-ai) run live against the chat-completions stand-in: a prompt answered with
// a bash tool call and a text, then a second turn in the same session (--continue). Its SQLite
// database (written in WAL mode while brain reads it) is recorded by the real capture, one pass
// while the agent runs and one after; the record ends equal to the database, and search, show's
// turns and derived.* read it. The binary is the pinned one (scripts/setup/40-agents.mjs) unless
// BRAIN_TEST_OPENCODE names another (scripts/agents-latest.mjs: the newest release).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { agentBin } from '../../scripts/setup/40-agents.mjs';
import { capture } from '../../src/core/floor/capture';
import { search } from '../../src/core/recall';
import { runReadOnlySql } from '../../src/core/cache';
import { colsOf, readRowLine } from '../../src/core/agents/kit/sqlite';
import { sandbox } from '../helpers/env';
import { makeRepo, runCli, startDenyProxy } from './harness';
import { MODEL, startStandIn } from './standin';

const bin = process.env.BRAIN_TEST_OPENCODE || agentBin('opencode');

describe('real agent opencode', () => {
  test('a live session with a tool call and a second turn is recorded from the database, row for row', async (t) => {
    assert.ok(fs.existsSync(bin), `${bin} is missing: run node scripts/setup/40-agents.mjs`);
    const sb = sandbox({ name: 'opencode-live' });
    const standin = await startStandIn(
      'chat',
      [
        { prompt: 'List the files in this repository', replies: [{ shell: 'ls' }, { text: 'The repository holds README.md, said the ochre-pelican.' }] },
        { prompt: 'Thanks, now say goodbye', replies: [{ text: 'Goodbye from the indigo-walrus.' }] },
      ],
      path.join(sb.dir, 'standin.log'),
    );
    const proxy = await startDenyProxy();
    try {
      const repo = makeRepo(sb);
      const cfgDir = path.join(sb.home, '.config', 'opencode');
      fs.mkdirSync(cfgDir, { recursive: true });
      fs.writeFileSync(
        path.join(cfgDir, 'opencode.json'),
        JSON.stringify({
          autoupdate: false,
          share: 'disabled',
          provider: { standin: { npm: '@ai-sdk/openai-compatible', name: 'Standin', options: { baseURL: standin.baseUrl, apiKey: 'standin' }, models: { [MODEL.chat]: { name: 'Standin chat' } } } },
          model: `standin/${MODEL.chat}`,
          small_model: `standin/${MODEL.chat}`,
          permission: { bash: 'allow', edit: 'allow' },
        }),
      );
      const env = { ...sb.env, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', OPENCODE_DISABLE_AUTOUPDATE: '1', NO_COLOR: '1' };
      const db = path.join(sb.home, '.local', 'share', 'opencode', 'opencode.db');
      // A pass while the agent runs (reading its live WAL database), then after each run.
      const first = runCli(bin, ['run', 'List the files in this repository'], env, repo.dir, 180_000);
      let during = 0;
      let done = false;
      void first.then(() => (done = true));
      while (!done) {
        if (fs.existsSync(db)) {
          const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
          assert.equal(r.lanes.opencode.warnings, 0, JSON.stringify(r.events));
          during++;
        }
        await new Promise((res) => setTimeout(res, 300));
      }
      const r1 = await first;
      assert.equal(r1.code, 0, `${r1.stderr.slice(-2000)}\n${standin.dump()}`);
      const r2 = await runCli(bin, ['run', '--continue', 'Thanks, now say goodbye'], env, repo.dir, 180_000);
      assert.equal(r2.code, 0, `${r2.stderr.slice(-2000)}\n${standin.dump()}`);
      await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
      t.diagnostic(`passes during the first run: ${during}`);

      // The record's latest rows equal the database's rows of the same tables.
      const conn = new Database(db, { readonly: true });
      const session = (conn.prepare('SELECT id FROM session').all() as { id: string }[]).map((x) => x.id);
      assert.equal(session.length, 1);
      const want = new Map<string, unknown>();
      for (const table of ['session', 'message', 'part']) {
        for (const row of conn.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]) want.set(`${table}/${row.id}`, row);
      }
      conn.close();
      const lake = path.join(sb.brain, 'lake', 'opencode', `${session[0]}.rows.jsonl`);
      const got = new Map<string, unknown>();
      for (const line of fs.readFileSync(lake, 'utf8').split('\n').filter(Boolean)) {
        const r = readRowLine(line)!;
        if (r.table === 'session' || r.table === 'message' || r.table === 'part') {
          if (r.op === 'row') got.set(`${r.table}/${r.key[0]}`, colsOf(r.cols));
          else got.delete(`${r.table}/${r.key[0]}`);
        }
      }
      assert.deepEqual(got, want);
      assert.ok(want.size >= 8, `rows: ${[...want.keys()].join(', ')}`);

      const hits = search({ term: 'indigo-walrus' }, sb.env).hits;
      assert.equal(hits.length, 1);
      assert.equal(hits[0].session, session[0]);
      const msgs = await runReadOnlySql(sb.brain, `SELECT role, text FROM derived.messages WHERE agent = 'opencode' ORDER BY event_time`, { timeZone: 'UTC' });
      assert.deepEqual(msgs.rows.map((x) => x[0]), ['user', 'assistant', 'assistant', 'user', 'assistant']);
      const calls = await runReadOnlySql(sb.brain, `SELECT tool_name FROM derived.tool_calls WHERE agent = 'opencode'`);
      assert.deepEqual(calls.rows, [['bash']]);
      // scripts/agents-latest.mjs compares the row records of the pinned and newest releases.
      const keep = process.env.BRAIN_AGENTS_KEEP;
      if (keep) fs.cpSync(path.join(sb.brain, 'lake', 'opencode'), path.join(keep, 'opencode'), { recursive: true });
    } finally {
      await standin.close();
      await proxy.close();
      sb.cleanup();
    }
  });
});
