// The command palette's verbs. Each asks the worker (core) or runs the CLI, then shows the answer.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { renderConfig } from '../core/config';
import { FILE_MODE, layout, mkdirPrivate } from '../core/home';
import type { Citation } from '../core/turns';
import { activityHtml } from './activity';
import { doctorHtml, statusHtml, type Check, type StatusJson } from './reportView';
import { hitDescription, plural } from '../core/recall/words';
import { localTime, projectLabel, syncFailureText } from './labels';
import { sshHostProblem, sshStore, storeDirProblem } from './backupSpec';
import type { Backend } from './backend';
import type { ListedSession } from './protocol';
import { citationText, type Reader } from './reader';
import type { SearchHit } from '../core/recall/types';
import { visible } from '../core/visible';
import type { SessionsTree, Node } from './sessionsTree';

export interface Ctx {
  backend: Backend;
  reader: Reader;
  tree: SessionsTree;
  out: vscode.OutputChannel;
  home: () => string;
  refresh: () => Promise<void>;
  cancelCatchUp: () => void;
}

async function cli(c: Ctx, title: string, args: string[], opts: { show?: boolean } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Agent Brain: ${title}…` }, () =>
    c.backend.request('cli', { args }),
  );
  c.out.appendLine(`$ brain ${args.join(' ')}  (exit ${r.code})`);
  if (r.stdout) c.out.appendLine(r.stdout.trimEnd());
  if (r.stderr) c.out.appendLine(r.stderr.trimEnd());
  if (opts.show) c.out.show(true);
  return r;
}

/** Session text on one line of the editor's own UI: shown, never obeyed (core/visible.ts). */
function line(s: string): string {
  return visible(s, { oneLine: true });
}

function lastLine(s: string): string {
  return s.trim().split('\n').pop() ?? '';
}

export async function openSession(c: Ctx, arg?: { session: string; machine?: string; turn?: number }): Promise<void> {
  if (!arg?.session) {
    const items = c.tree
      .all()
      .slice()
      .sort((a, b) => String(b.started).localeCompare(String(a.started)))
      .map((s) => ({ label: line(s.title), description: line([s.agentLabel, projectLabel(s.project)].filter(Boolean).join(' · ')), detail: line([s.machine, localTime(s.started), plural(s.turns, 'turn')].filter(Boolean).join(' · ')), s }));
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Open a recorded session', matchOnDescription: true, matchOnDetail: true });
    if (!pick) return;
    arg = { session: pick.s.session, machine: pick.s.machine };
  }
  const v = await c.backend.request('session', { session: arg.session, machine: arg.machine });
  if (!v) {
    void vscode.window.showErrorMessage(`Agent Brain: session ${arg.session} is not on the floor.`);
    return;
  }
  await c.reader.show(v, arg.turn);
}

function searchSessions(c: Ctx): Promise<void> {
  type Item = vscode.QuickPickItem & { hit?: SearchHit };
  const qp = vscode.window.createQuickPick<Item>();
  qp.placeholder = 'Search recorded sessions (user and assistant turns)';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = async (q: string) => {
    const mine = ++seq;
    if (q.trim().length < 1) {
      qp.items = [];
      qp.busy = false;
      return;
    }
    qp.busy = true;
    try {
      const r = await c.backend.recall('search', { term: q, limit: 30 });
      if (mine !== seq) return;
      // The quick pick's own filter must not hide hits whose words differ from the query text.
      qp.items = r.hits.map((h) => ({
        label: line(h.title ?? ''),
        description: line(hitDescription(h)),
        detail: h.snippets[0] ? line(`#${h.snippets[0].turn} ${h.snippets[0].text}`) : '',
        alwaysShow: true,
        hit: h,
      }));
      qp.title = line(r.header);
      if (!r.hits.length) qp.items = [{ label: `No session says "${q}"`, detail: r.header, alwaysShow: true }];
    } catch (e) {
      if (mine === seq) qp.items = [{ label: `Search failed: ${(e as Error).message}`, alwaysShow: true }];
    } finally {
      if (mine === seq) qp.busy = false;
    }
  };
  qp.onDidChangeValue((v) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(v), 120);
  });
  return new Promise((resolve) => {
    qp.onDidAccept(async () => {
      const h = qp.selectedItems[0]?.hit;
      if (!h) return;
      qp.hide();
      await openSession(c, { session: h.session, machine: h.machine, turn: h.snippets[0]?.turn });
      resolve();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve();
    });
    qp.show();
  });
}

async function verifyCitation(c: Ctx): Promise<void> {
  const clip = await vscode.env.clipboard.readText();
  const guess = clip.trim().startsWith('{') ? clip.trim().split('\n')[0] : '';
  const text = await vscode.window.showInputBox({ prompt: 'A citation (the JSON that Copy Citation puts on the clipboard)', value: guess, ignoreFocusOut: true });
  if (!text) return;
  let cit: Citation;
  try {
    cit = JSON.parse(text.trim().split('\n')[0]);
  } catch {
    void vscode.window.showErrorMessage('Agent Brain: that is not a citation (expected the JSON line from Copy Citation).');
    return;
  }
  try {
    const r = await c.backend.recall('verify_citation', { citation: cit });
    if (r.ok) void vscode.window.showInformationMessage(`Citation verified: lines ${cit.line_from}–${cit.line_to} of ${r.path} hash to ${cit.sha256.slice(0, 12)}…`);
    else void vscode.window.showErrorMessage(`Citation does not verify: ${r.problem}`);
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent Brain: ${(e as Error).message}`);
  }
}

async function copyCitation(c: Ctx, node?: Node | Citation): Promise<void> {
  let cit: Citation | undefined;
  let root = c.home();
  if (node && 'kind' in node && node.kind === 'session') {
    const s: ListedSession = node.info;
    cit = await c.backend.recall('cite', { machine: s.machine, lake_path: s.lakePath, line_from: 1, line_to: Math.max(1, s.lines) });
    root = s.root;
  } else if (node && 'sha256' in node) cit = node;
  if (!cit) {
    void vscode.window.showInformationMessage('Agent Brain: use Copy Citation on a session in the Sessions view, or on a turn in the reader.');
    return;
  }
  await vscode.env.clipboard.writeText(citationText(cit, root));
  void vscode.window.setStatusBarMessage(`Citation copied: lines ${cit.line_from}–${cit.line_to}`, 3000);
}

async function openConfig(c: Ctx): Promise<void> {
  const l = layout(c.home());
  if (!fs.existsSync(l.config)) {
    mkdirPrivate(l.root);
    // The same commented template `brain init` writes; the store stays to be filled in.
    fs.writeFileSync(l.config, renderConfig({}), { mode: FILE_MODE, flag: 'wx' });
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(l.config));
  await vscode.window.showTextDocument(doc);
}

async function showActivity(c: Ctx): Promise<void> {
  const panel = vscode.window.createWebviewPanel('agentBrain.activity', 'Agent Brain: Activity', vscode.ViewColumn.Active, { enableScripts: false, localResourceRoots: [] });
  const backup = await c.backend.request('backup');
  let sqlRows: unknown[] | undefined;
  try {
    const r = await c.backend.recall('sql', {
      query:
        "SELECT day, agent, count(*) AS sessions FROM (SELECT session_id, agent, strftime(min(event_time), '%Y-%m-%d') AS day FROM derived.messages WHERE event_time IS NOT NULL AND NOT is_sidechain GROUP BY session_id, agent) GROUP BY day, agent ORDER BY day DESC",
      limit: 500,
    });
    sqlRows = r.rows;
  } catch {
    /* the DuckDB cache is not there: draw from the session list */
  }
  panel.webview.html = activityHtml(c.tree.all(), backup, sqlRows);
}

/** A page in the editor for a report (Status, Doctor); the raw output stays in the Output panel. */
function showPage(id: string, title: string, html: string): void {
  const panel = vscode.window.createWebviewPanel(id, title, vscode.ViewColumn.Active, { enableScripts: false, localResourceRoots: [] });
  panel.webview.html = html;
}

async function runDoctor(c: Ctx): Promise<void> {
  const r = await cli(c, 'doctor', ['doctor', '--json']);
  let checks: Check[];
  try {
    checks = (JSON.parse(r.stdout) as { checks: Check[] }).checks;
  } catch {
    void vscode.window.showErrorMessage(`Agent Brain: doctor could not run: ${lastLine(r.stderr) || `exit ${r.code}`}`, 'Show Output').then((a) => a && c.out.show(true));
    return;
  }
  showPage('agentBrain.doctor', 'Agent Brain: Doctor', doctorHtml(checks));
}

async function showStatus(c: Ctx): Promise<void> {
  const [r, backup] = await Promise.all([cli(c, 'status', ['status', '--json']), c.backend.request('backup').catch(() => undefined)]);
  let s: StatusJson;
  try {
    s = JSON.parse(r.stdout) as StatusJson;
  } catch {
    void vscode.window.showErrorMessage(`Agent Brain: status could not run: ${lastLine(r.stderr) || `exit ${r.code}`}`, 'Show Output').then((a) => a && c.out.show(true));
    return;
  }
  showPage('agentBrain.status', 'Agent Brain: Status', statusHtml(s, backup));
}

async function syncNow(c: Ctx): Promise<boolean> {
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Brain: backing up…' }, () => c.backend.request('sync'));
  c.out.appendLine(`sync: ${r.ok ? 'ok' : 'failed'}: ${r.message}${r.hint ? ` (${r.hint})` : ''}`);
  if (r.ok) {
    void vscode.window.showInformationMessage(`Agent Brain: ${r.message || 'backed up'}`);
    return true;
  }
  const pick = await vscode.window.showErrorMessage(syncFailureText(r), 'Run Doctor', 'Show Details');
  if (pick === 'Run Doctor') await vscode.commands.executeCommand('agentBrain.runDoctor');
  if (pick === 'Show Details') c.out.show(true);
  return false;
}

/** Set Up Backup…: where the store is (a folder here, or a folder on an ssh host), written into
 * config.toml by `brain init` (without hooks or a timer: the editor's own tick backs up while it
 * runs), then the first sync at once. */
async function setUpBackup(c: Ctx): Promise<void> {
  const kind = await vscode.window.showQuickPick(
    [
      { label: '$(folder) A folder on this machine', detail: 'A mounted disk, a NAS share, a synced folder…', id: 'local' as const },
      { label: '$(remote) A folder on an ssh host', detail: 'A server you reach with `ssh host` without a password prompt (a key or an agent)', id: 'ssh' as const },
    ],
    { title: 'Agent Brain: Set Up Backup', placeHolder: 'Where should your sessions be backed up?', ignoreFocusOut: true },
  );
  if (!kind) return;
  let store: string;
  if (kind.id === 'local') {
    const dest = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Back up here', title: 'Agent Brain: the store folder' });
    if (!dest?.[0]) return;
    store = dest[0].fsPath;
  } else {
    const host = await vscode.window.showInputBox({
      title: 'Agent Brain: Set Up Backup (1/2)',
      prompt: 'The ssh host, as you would type it after `ssh` (a name from ~/.ssh/config, host, or user@host)',
      placeHolder: 'backup.example.lan',
      ignoreFocusOut: true,
      validateInput: sshHostProblem,
    });
    if (!host) return;
    const dir = await vscode.window.showInputBox({
      title: 'Agent Brain: Set Up Backup (2/2)',
      prompt: `The store folder on ${host.trim()} (an absolute path)`,
      value: '/srv/brain',
      ignoreFocusOut: true,
      validateInput: storeDirProblem,
    });
    if (!dir) return;
    store = sshStore(host, dir);
  }
  const r = await cli(c, 'setting up the backup', ['init', '--store', store, '--no-hooks', '--no-timer']);
  if (r.code !== 0) {
    const why = (r.stdout + r.stderr).split('\n').find((l) => /^failed|^\s*fix:|error/i.test(l.trim())) ?? lastLine(r.stderr);
    const pick = await vscode.window.showErrorMessage(`Agent Brain: the store could not be set up: ${why?.trim() || `exit ${r.code}`}`, 'Show Details');
    if (pick) c.out.show(true);
    return;
  }
  await c.refresh();
  if (await syncNow(c)) await c.refresh();
}

export function registerCommands(c: Ctx): vscode.Disposable[] {
  // Command arguments come from VS Code untyped.
  const reg = (id: string, fn: (...a: any[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg('agentBrain.searchSessions', () => searchSessions(c)),
    reg('agentBrain.openSession', (arg?: { session: string; machine?: string; turn?: number }) => openSession(c, arg)),
    reg('agentBrain.syncNow', () => syncNow(c)),
    reg('agentBrain.setUpBackup', () => setUpBackup(c)),
    reg('agentBrain.showStatus', () => showStatus(c)),
    reg('agentBrain.runDoctor', () => runDoctor(c)),
    reg('agentBrain.backupToFolder', async () => {
      const dest = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Back up here' });
      if (!dest?.[0]) return;
      const r = await cli(c, `backing up to ${dest[0].fsPath}`, ['backup', dest[0].fsPath]);
      if (r.code === 0) void vscode.window.showInformationMessage(`Agent Brain: ${lastLine(r.stdout) || 'backed up and read back'}`);
      else void vscode.window.showErrorMessage(`Agent Brain: backup failed: ${lastLine(r.stderr) || `exit ${r.code}`}`);
    }),
    reg('agentBrain.verifyCitation', () => verifyCitation(c)),
    reg('agentBrain.copyCitation', (n?: Node | Citation) => copyCitation(c, n)),
    reg('agentBrain.rebuildCaches', async () => {
      const r = await cli(c, 'rebuilding caches', ['rebuild']);
      if (r.code === 0) void vscode.window.showInformationMessage('Agent Brain: caches rebuilt from the floor.');
      else void vscode.window.showErrorMessage(`Agent Brain: rebuild failed: ${lastLine(r.stderr) || `exit ${r.code}`}`);
    }),
    reg('agentBrain.openConfig', () => openConfig(c)),
    reg('agentBrain.showActivity', () => showActivity(c)),
    reg('agentBrain.refresh', () => c.refresh()),
    reg('agentBrain.cancelCatchUp', () => c.cancelCatchUp()),
  ];
}
