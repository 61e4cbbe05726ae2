// Red team: through the MCP sql tool, `SELECT list(range) FROM range(200000000)` ran 80 s and took
// the server to 11 GB. The statement runs in a `brain sql` child now, under DuckDB's memory limit
// and a watchdog that ends it: the call comes back with an error within bounded time, the server's
// own memory stays small (its peak, VmHWM in /proc), and it answers the next call.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { brain, sandbox, type Sandbox } from '../helpers/env';
import { startMcp } from '../mcp/helpers';

let sb: Sandbox;
before(() => {
  sb = sandbox({ name: 'rt-mcp-sql' });
  const r = brain(sb, ['rebuild']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb?.cleanup());

const peakMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

test('huge values through MCP sql: an error in bounded time, the server small, the next call answered', { timeout: 300_000 }, async () => {
  const mcp = await startMcp({ ...sb.env, BRAIN_SQL_TIMEOUT: '5' });
  try {
    for (const query of ['SELECT list(range) FROM range(200000000)', 'SELECT range(60000000) AS r']) {
      const started = Date.now();
      const r = await mcp.call('sql', { query });
      const secs = (Date.now() - started) / 1000;
      assert.equal(r.isError, true, r.text.slice(0, 300));
      assert.match(r.text, /"code":"sql-(memory|timeout)"/);
      assert.ok(secs < 60, `${query}: ${secs} s`);
      assert.ok(peakMb(mcp.pid) < 1024, `${query}: the server peaked at ${Math.round(peakMb(mcp.pid))} MB`);
    }
    const ok = await mcp.call('sql', { query: 'SELECT 42 AS answer' });
    assert.equal(ok.isError, false, ok.text);
    assert.equal(ok.json.rows[0].answer, 42);
  } finally {
    await mcp.close();
  }
});
