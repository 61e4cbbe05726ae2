// The extension in a real VS Code (code-server 4.139 on Node 24) in a real browser (Debian
// Chromium via playwright-core), with HOME at a copy of the fixtures and a local-folder store.
// One code-server for the whole file: starting one costs seconds, each check costs less.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/env';
import { openWorkbench, packageOnce, runCommand, screenshot, startCodeServer, STATUS_ITEM, until, type CodeServer, type Workbench } from './harness';

describe('extension in code-server', { timeout: 600_000 }, () => {
  let sb: Sandbox;
  let cs: CodeServer;
  let wb: Workbench;
  const out = () => path.join(sb.dir, 'e2e-out.json');
  const timings: Record<string, number> = {};

  before(async () => {
    let t = Date.now();
    const vsix = packageOnce();
    timings.packageMs = Date.now() - t;
    sb = sandbox({ fixtures: true, name: 'e2e' });
    t = Date.now();
    cs = await startCodeServer(sb, { vsix, env: { BRAIN_E2E_OUT: out() } });
    timings.serverMs = Date.now() - t;
    wb = await openWorkbench(cs, sb);
    timings.workbenchMs = wb.loadMs;
  });

  after(async () => {
    await wb?.close();
    await cs?.stop();
    console.log(`e2e timings: ${JSON.stringify(timings)}`);
    if (process.env.BRAIN_KEEP_E2E !== '1') sb?.cleanup();
  });

  it('activates in the extension host on Node 24 and shows its status bar item', async () => {
    const item = wb.page.locator(STATUS_ITEM);
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    await runCommand(wb.page, 'Agent Brain: Test: Ping');
    const r = await until('the ping file', () => fs.existsSync(out()) && JSON.parse(fs.readFileSync(out(), 'utf8')));
    assert.match(r.node, /^v24\./);
    await screenshot(wb.page, 'statusbar');
  });
});
