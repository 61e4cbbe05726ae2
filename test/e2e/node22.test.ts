// The same linux .vsix in the same code-server, on Node 22 this time: the oldest Node an editor
// may run the extension on (desktop VS Code's Electron is Node 22 in some releases). A short
// check beside the full one on Node 24 (extension.test.ts): the extension activates, records
// the fixtures, and brain_search through vscode.lm.invokeTool is answered by the turn index, so
// the packaged better-sqlite3 loads there without being built for it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO, sandbox, type Sandbox } from '../helpers/env';
import { openWorkbench, packageOnce, runCommand, screenshot, startCodeServer, STATUS_ITEM, until, type CodeServer, type Workbench } from './harness';

describe('extension in code-server on Node 22', { timeout: 600_000 }, () => {
  let sb: Sandbox;
  let cs: CodeServer;
  let wb: Workbench;
  let page: Page;
  let outDir: string;

  const command = async <T>(title: string, file: string, timeoutMs = 20_000): Promise<T> => {
    const f = path.join(outDir, `${file}.json`);
    fs.rmSync(f, { force: true });
    await runCommand(page, title);
    return until(`${file}.json from "${title}"`, () => fs.existsSync(f) && (JSON.parse(fs.readFileSync(f, 'utf8')) as T), timeoutMs);
  };

  before(async () => {
    const { bundledNode } = (await import(path.join(REPO, 'scripts', 'node22.mjs'))) as { bundledNode(): string | undefined };
    const node = bundledNode();
    assert.ok(node, 'node_modules/.bin/node (the `node` devDependency, Node 22) is missing: run npm ci');
    const vsix = packageOnce();
    sb = sandbox({ fixtures: true, name: 'e2e22' });
    outDir = path.join(sb.dir, 'e2e-out');
    fs.mkdirSync(sb.brain, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), 'machine = "testbox"\n', { mode: 0o600 });
    cs = await startCodeServer(sb, { vsix, node, env: { BRAIN_E2E_OUT: outDir } });
    wb = await openWorkbench(cs, sb);
    page = wb.page;
  });

  after(async () => {
    if (page) await screenshot(page, 'node22-last').catch(() => undefined);
    await wb?.close();
    await cs?.stop();
    if (process.env.BRAIN_KEEP_E2E !== '1') sb?.cleanup();
  });

  it('activates on Node 22, records the fixtures, and searches through the turn index', async () => {
    await page.locator(STATUS_ITEM).waitFor({ state: 'visible', timeout: 60_000 });
    const p = await until('the recorder to finish its catch-up', async () => {
      const r = await command<{ node: string; role: string; sessions: number }>('Agent Brain: Test: Ping', 'ping');
      return r.role === 'writer' && r.sessions > 0 ? r : undefined;
    }, 120_000);
    assert.match(p.node, /^v22\./);
    fs.writeFileSync(path.join(outDir, 'invoke-in.json'), JSON.stringify({ calls: [{ tool: 'brain_search', input: { term: 'does it only run on main', limit: 5 } }] }));
    const out = await command<{ results: { text: string; error?: string }[] }>('Agent Brain: Test: Invoke Language Model Tools', 'invoke-out', 180_000);
    assert.equal(out.results[0].error, undefined);
    const search = JSON.parse(out.results[0].text);
    assert.equal(search.source, 'index', `the turn index answers on Node 22: ${out.results[0].text.slice(0, 400)}`);
    assert.equal(search.hits[0].session, 'fe869ecb-c176-478f-9734-7e4b8ef12cff');
  });
});
