// A real VS Code in a real browser: code-server (installed by scripts/setup/50-e2e.mjs) serving a
// workbench to Debian Chromium driven by playwright-core. code-server runs in its own process
// group (setsid) so stopping it ends its extension hosts and watchers too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO, type Sandbox } from '../helpers/env';

export const ARTIFACTS = path.join(REPO, 'test-artifacts');
export const CHROMIUM = '/usr/bin/chromium';

export interface Runtime {
  node: string;
  nodeDir: string;
  codeServerEntry: string;
  cache: string;
}

/** The e2e runtime's paths; fails with the command that installs it. */
export async function e2eRuntime(): Promise<Runtime> {
  const mod = (await import(path.join(REPO, 'scripts', 'setup', '50-e2e.mjs'))) as { runtime(): Runtime };
  const rt = mod.runtime();
  if (!fs.existsSync(rt.codeServerEntry) || !fs.existsSync(rt.node)) {
    throw new Error(`the e2e VS Code is not installed at ${rt.cache}: run node scripts/setup/50-e2e.mjs`);
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return rt;
}

/** Packages the extension for this machine's platform (once per test process): the same .vsix a
 * user installs, whichever Node the editor runs on. */
let packaged: string | undefined;
export function packageOnce(): string {
  if (packaged && fs.existsSync(packaged)) return packaged;
  const out = path.join(REPO, '.test-work', 'e2e-vsix', `agent-brain-e2e-${process.pid}.vsix`);
  // The suite's own package: the production one plus the test commands (--test-hooks).
  const args = ['--test-hooks', '--target', `${process.platform}-${process.arch}`, ...(process.env.BRAIN_E2E_NO_BUILD === '1' || process.env.BRAIN_TEST_BUILT === '1' ? ['--no-build'] : [])];
  const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'package.mjs'), '--out', out, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`npm run package failed:\n${r.stdout}\n${r.stderr}`);
  packaged = out;
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  url: string;
  proc: ChildProcess;
  log: string;
  dirs: { userData: string; extensions: string; workspace: string };
  stop(): Promise<void>;
}

/** code-server's environment: the sandbox's HOME and XDG folders, and TMPDIR inside it too. */
function serverEnv(node: string, sb: Sandbox, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tmp = path.join(sb.dir, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return {
    ...sb.env,
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`,
    TMPDIR: tmp,
    ...extra,
  };
}

/** `node`: the Node code-server (and so the extension host) runs on; default the runtime's Node 24. */
export async function startCodeServer(sb: Sandbox, opts: { vsix: string; env?: NodeJS.ProcessEnv; settings?: Record<string, unknown>; node?: string }): Promise<CodeServer> {
  const rt = await e2eRuntime();
  const node = opts.node ?? rt.node;
  const vs = path.join(sb.dir, 'vscode');
  const dirs = {
    userData: path.join(vs, 'user-data'),
    extensions: path.join(vs, 'extensions'),
    workspace: path.join(sb.dir, 'workspace'),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': false,
    'window.restoreWindows': 'none',
    // The sandbox lives inside this repo's .test-work: keep git from offering the parent repo.
    'git.enabled': false,
    'git.openRepositoryInParentFolders': 'never',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.commandCenter.enabled': false,
    ...opts.settings,
  };
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const env = serverEnv(node, sb, opts.env ?? {});
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const inst = spawnSync(node, [rt.codeServerEntry, ...common, '--install-extension', opts.vsix, '--force'], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (inst.status !== 0 || !/successfully installed/i.test(inst.stdout + inst.stderr)) {
    throw new Error(`code-server --install-extension ${opts.vsix} failed (${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  }
  const port = await freePort();
  const logFile = path.join(sb.dir, 'code-server.log');
  const out = fs.openSync(logFile, 'a');
  const proc = spawn(
    'setsid',
    // A closed tab's extension host ends after the grace time (default 3 hours): short here, so a
    // second window can be seen taking over the recorder.
    [node, rt.codeServerEntry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', '--reconnection-grace-time', '3', dirs.workspace],
    { env, stdio: ['ignore', out, out], detached: false },
  );
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (proc.exitCode !== null) throw new Error(`code-server exited ${proc.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`code-server did not answer on ${url} within 60 s:\n${fs.readFileSync(logFile, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    dirs,
    get log() {
      return fs.readFileSync(logFile, 'utf8');
    },
    async stop() {
      if (proc.pid === undefined || proc.exitCode !== null) return;
      // setsid made the child the leader of its own group: its pid is the group id.
      const group = -proc.pid;
      const gone = new Promise<void>((r) => proc.once('exit', () => r()));
      try {
        process.kill(group, 'SIGTERM');
      } catch {
        return;
      }
      const t = setTimeout(() => {
        try {
          process.kill(group, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 5000);
      await gone;
      clearTimeout(t);
      // Stragglers of the group (extension host, watchers) get the same end.
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        /* none left */
      }
    },
  };
}

export interface Workbench {
  context: BrowserContext;
  page: Page;
  loadMs: number;
  close(): Promise<void>;
}

/** Another window on the same code-server: its own extension host, like a second VS Code window. */
export async function openWindow(cs: CodeServer, wb: Workbench): Promise<Page> {
  const page = await wb.context.newPage();
  await page.goto(`${cs.url}/?folder=${encodeURIComponent(cs.dirs.workspace)}`);
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 60_000 });
  return page;
}

export async function openWorkbench(cs: CodeServer, sb: Sandbox): Promise<Workbench> {
  // A fresh profile per run, so nothing from another run (storage, service workers) leaks in.
  const profile = path.join(sb.dir, 'chromium-profile');
  fs.mkdirSync(profile, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    env: { ...process.env, HOME: sb.home },
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Copy Citation writes to the clipboard through the browser, which asks for permission.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: cs.url });
  const page = context.pages()[0] ?? (await context.newPage());
  const t0 = Date.now();
  await page.goto(`${cs.url}/?folder=${encodeURIComponent(cs.dirs.workspace)}`);
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 60_000 });
  const loadMs = Date.now() - t0;
  return {
    context,
    page,
    loadMs,
    async close() {
      await context.close();
    },
  };
}

/** The status-bar entry the extension contributes (VS Code prefixes the extension id). */
export const STATUS_ITEM = '[id="agent-brain.agent-brain.agentBrain.status"]';

/** Runs a command through the command palette by its title. A palette still closing from the command
 * before (inert, then hidden) can swallow the F1 meant for the next one: the input then never becomes
 * editable. So each try presses F1, types the title and waits for its row; a try that does not get that
 * far is made again, until `timeoutMs`. */
export async function runCommand(page: Page, title: string, timeoutMs = 40_000): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await page.keyboard.press('F1');
      await input.fill(`>${title}`, { timeout: 5_000 });
      await row.waitFor({ state: 'visible', timeout: 5_000 });
      if ((await input.inputValue()) !== `>${title}`) throw new Error(`the palette holds ${JSON.stringify(await input.inputValue())}`);
      await input.press('Enter', { timeout: 5_000 });
      return;
    } catch (e) {
      last = e;
      console.log(`runCommand "${title}": trying again (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw new Error(`could not run "${title}" from the command palette in ${timeoutMs} ms; last: ${last instanceof Error ? last.message : String(last)}`);
}

/** README's pictures (media/screenshots/<name>.png), taken again by the run that shows them when
 * BRAIN_E2E_SCREENSHOTS=1 (test/package/readme.test.ts checks each is one an e2e test takes). */
export const README_SHOTS = path.join(REPO, 'media', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  const kept = path.join(README_SHOTS, `${name}.png`);
  if (process.env.BRAIN_E2E_SCREENSHOTS === '1' && fs.existsSync(kept)) fs.copyFileSync(file, kept);
  return file;
}

/** Polls `fn` until it returns a truthy value, or fails with `what` and the last value seen. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const BULK_SOURCE = path.join(REPO, 'test', 'fixtures', 'pi', 'agent', 'sessions', '--Users-badlogic-workspaces-pi-mono--', 'large-session.jsonl');

/** `n` Pi sessions, each a copy of the largest fixture (~1 MB) under its own name, in a project
 * folder of their own: a machine with months of history for the first catch-up. Returns bytes. */
export function bulk(sb: Sandbox, n: number, folder = '--bulk-history--'): number {
  const dir = path.join(sb.home, '.pi', 'agent', 'sessions', folder);
  fs.mkdirSync(dir, { recursive: true });
  const body = fs.readFileSync(BULK_SOURCE);
  // The session id is the UUID in the name: one per file and per folder, so batches never merge.
  const tag = createHash('sha256').update(folder).digest('hex').slice(0, 12);
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `2025-01-01T00-00-00-000Z_${String(i).padStart(8, '0')}-0000-4000-8000-${tag}.jsonl`), body);
  return n * body.length;
}

/** The text of the webview (any open one: the reader, Status, Doctor, Activity) whose body matches
 * `re`, once one does. Webviews are nested iframes; each frame is asked for its body's text. */
export async function webviewText(page: Page, re: RegExp, what: string, timeoutMs = 30_000): Promise<string> {
  return until(what, async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      const t = await f
        .locator('body')
        .innerText({ timeout: 1_000 })
        .catch(() => '');
      if (re.test(t)) return t;
    }
    return undefined;
  }, timeoutMs);
}
