// A newcomer's first minutes in a real VS Code (code-server in Chromium): a HOME with no sessions
// and no config. The status bar is neutral (recording, nothing to warn about), the Sessions view
// says what will appear and offers Set Up Backup…, the walkthrough leads there, Set Up Backup…
// picks a folder with the editor's own folder picker and runs the first backup, and the search box
// finds a session that appears afterwards. Each screen is photographed and checked for its text.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { FIXTURES, REPO, sandbox, type Sandbox } from '../helpers/env';
import { openWorkbench, packageOnce, runCommand, screenshot, startCodeServer, STATUS_ITEM, until, type CodeServer, type Workbench } from './harness';

const SESSION = 'claude/projects/-Users-dain-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl';

describe('the first minutes in the editor', { timeout: 600_000 }, () => {
  let sb: Sandbox;
  let cs: CodeServer;
  let wb: Workbench;
  let page: Page;
  let outDir: string;
  const input = () => page.locator('.quick-input-widget input');
  const toast = (text: RegExp) => page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();

  before(async () => {
    const vsix = packageOnce();
    sb = sandbox({ fixtures: false, name: 'e2e-first' });
    outDir = path.join(sb.dir, 'e2e-out');
    cs = await startCodeServer(sb, { vsix, env: { BRAIN_E2E_OUT: outDir } });
    wb = await openWorkbench(cs, sb);
    page = wb.page;
  });

  after(async () => {
    if (page) await screenshot(page, 'first-last').catch(() => undefined);
    await wb?.close();
    await cs?.stop();
    if (process.env.BRAIN_KEEP_E2E !== '1') sb?.cleanup();
  });

  it('starts neutral: recording, no warning colour, no "0 files"', async () => {
    const item = page.locator(STATUS_ITEM);
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    const text = await until('the status bar to say it is recording', async () => {
      const t = await item.innerText();
      return /Brain: recording/.test(t) ? t : undefined;
    }, 60_000);
    assert.doesNotMatch(text, /not set up|no backup|failing|0 files/);
    const cls = (await item.getAttribute('class')) ?? '';
    assert.doesNotMatch(cls, /warning-kind|error-kind/, `the status item is not coloured as a warning (${cls})`);
    await page.locator('.part.statusbar').screenshot({ path: path.join(REPO, 'test-artifacts', 'statusbar-first.png') });
  });

  it('shows an empty Sessions view that says what comes and offers Set Up Backup', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="Agent Brain"]').first().click();
    const welcome = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Sessions/ }) }).locator('.welcome-view-content');
    await welcome.waitFor({ timeout: 30_000 });
    const text = await welcome.innerText();
    assert.match(text, /No sessions recorded yet/);
    assert.match(text, /\d+ coding agents/);
    assert.match(text, /Set Up Backup/);
    await screenshot(page, 'empty');
  });

  it('opens the walkthrough, whose first step is backing up', async () => {
    await runCommand(page, 'Welcome: Open Walkthrough...');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Agent Brain' }).first();
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    const step = page.locator('.gettingStartedContainer');
    await until('the walkthrough to show its backup step', async () => /Back up your sessions/.test(await step.innerText().catch(() => '')), 30_000);
    const text = await step.innerText();
    assert.match(text, /Set Up Backup/);
    assert.match(text, /Find a session again/);
    await screenshot(page, 'walkthrough');
  });

  it('Set Up Backup… picks a folder, writes the config and runs the first backup', async () => {
    const store = path.join(sb.dir, 'store');
    fs.mkdirSync(store);
    await runCommand(page, 'Agent Brain: Set Up Backup…');
    const local = page.locator('.quick-input-list .monaco-list-row', { hasText: 'A folder on this machine' }).first();
    await local.waitFor({ timeout: 20_000 });
    await local.click();
    const pick = page.locator('.quick-input-widget .monaco-button', { hasText: 'Back up here' });
    await pick.waitFor({ state: 'visible', timeout: 20_000 });
    await until('the folder picker to show its starting folder', async () => (await input().inputValue()).startsWith('/'), 20_000);
    await until(
      'the folder picker to hold the typed path',
      async () => {
        if ((await input().inputValue()) !== `${store}/`) await input().fill(`${store}/`);
        await new Promise((r) => setTimeout(r, 500));
        return (await input().inputValue()) === `${store}/`;
      },
      20_000,
    );
    await pick.click();
    // The end of it: the sync's own answer (not the progress notes "setting up…", "backing up…").
    const done = await toast(/Agent Brain: (synced|backed up|ok)|backup failed|could not be set up/).innerText({ timeout: 120_000 });
    assert.doesNotMatch(done, /failed|could not/, done);
    const config = fs.readFileSync(path.join(sb.brain, 'config.toml'), 'utf8');
    assert.match(config, new RegExp(`path\\s*=\\s*${JSON.stringify(store).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.ok(fs.existsSync(path.join(store, 'testbox', '.brain')), 'the first sync wrote the machine folder at the store');
    await until('the status bar to read backup ok', async () => /backup ok/.test(await page.locator(STATUS_ITEM).innerText()), 60_000);
    const backupHeader = page.locator('.pane-header', { hasText: /^Backup/ }).first();
    if ((await backupHeader.getAttribute('aria-expanded')) !== 'true') await backupHeader.click();
    const backupPane = page.locator('.pane', { has: backupHeader });
    await until('the Backup view to show the store', async () => /ok, last sync/.test(await backupPane.innerText()), 30_000);
    await screenshot(page, 'backup');
  });

  it('the search box finds a session recorded after the editor started', async () => {
    const dest = path.join(sb.home, '.claude', 'projects', path.relative('claude/projects', SESSION));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, SESSION), dest);
    // The recorder takes it in (the extension's test ping counts the sessions it lists).
    await until('the session to be recorded', async () => {
      const f = path.join(outDir, 'ping.json');
      fs.rmSync(f, { force: true });
      await runCommand(page, 'Agent Brain: Test: Ping');
      const p = await until('ping.json', () => fs.existsSync(f) && (JSON.parse(fs.readFileSync(f, 'utf8')) as { sessions: number }), 20_000);
      return p.sessions > 0;
    }, 90_000);
    await runCommand(page, 'Agent Brain: Search Sessions');
    const box = page.locator('.quick-input-widget input[placeholder^="Search recorded sessions"]');
    await box.waitFor({ state: 'visible', timeout: 20_000 });
    await box.fill('does it only run on main');
    const hit = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Hey Claude, can you please add a Github Action' }).first();
    await hit.waitFor({ timeout: 30_000 });
    // Its description: the agent, the project by its folder's name, a count in the right number,
    // no empty part; the box's title says where the answer came from, never "scan (null)".
    const said = await hit.innerText();
    assert.match(said, /claude-code · claude-code-log · (1 turn|\d+ turns)\b/, said);
    assert.doesNotMatch(said, /\b1 turns\b|· ·|\(null\)/, said);
    const title = await page.locator('.quick-input-widget .quick-input-title').innerText();
    assert.doesNotMatch(title, /null|undefined/, title);
    await screenshot(page, 'search');
  });
});
