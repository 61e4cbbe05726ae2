// The command palette's verbs. Each asks the worker (core) or runs the CLI, then shows the answer.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { renderConfig } from '../core/config';
import { FILE_MODE, layout, mkdirPrivate } from '../core/home';
import type { Citation } from '../core/turns';
import { activityHtml } from './activity';
import { hitDescription, plural } from '../core/recall/words';
import { localTime, projectLabel } from './labels';
import type { Backend } from './backend';
import type { ListedSession } from './protocol';
import { citationText, type Reader } from './reader';
import type { SearchHit } from '../core/recall/types';
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

function lastLine(s: string): string {
  return s.trim().split('\n').pop() ?? '';
}

export async function openSession(c: Ctx, arg?: { session: string; machine?: string; turn?: number }): Promise<void> {
  if (!arg?.session) {
    const items = c.tree
      .all()
      .slice()
      .sort((a, b) => String(b.started).localeCompare(String(a.started)))
      .map((s) => ({ label: s.title, description: [s.agentLabel, projectLabel(s.project)].filter(Boolean).join(' · '), detail: [s.machine, localTime(s.started), plural(s.turns, 'turn')].filter(Boolean).join(' · '), s }));
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
        label: h.title,
        description: hitDescription(h),
        detail: h.snippets[0] ? `#${h.snippets[0].turn} ${h.snippets[0].text}` : '',
        alwaysShow: true,
        hit: h,
      }));
      qp.title = r.header;
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

export function registerCommands(c: Ctx): vscode.Disposable[] {
  // Command arguments come from VS Code untyped.
  const reg = (id: string, fn: (...a: any[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg('agentBrain.searchSessions', () => searchSessions(c)),
    reg('agentBrain.openSession', (arg?: { session: string; machine?: string; turn?: number }) => openSession(c, arg)),
    reg('agentBrain.syncNow', async () => {
      const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Brain: syncing…' }, () =>
        c.backend.request('sync'),
      );
      c.out.appendLine(`sync: ${r.ok ? 'ok' : 'failed'}: ${r.message}${r.hint ? ` (${r.hint})` : ''}`);
      if (r.ok) void vscode.window.showInformationMessage(`Agent Brain: ${r.message || 'synced'}`);
      else void vscode.window.showErrorMessage(`Agent Brain: backup failed: ${r.message || r.warning}${r.hint ? ` (${r.hint})` : ''}`, 'Run Doctor').then((a) => a && vscode.commands.executeCommand('agentBrain.runDoctor'));
    }),
    reg('agentBrain.showStatus', async () => {
      await cli(c, 'status', ['status'], { show: true });
      const pick = await vscode.window.showInformationMessage('Agent Brain status is in the output panel.', 'Run Doctor', 'Sync Now');
      if (pick === 'Run Doctor') await vscode.commands.executeCommand('agentBrain.runDoctor');
      if (pick === 'Sync Now') await vscode.commands.executeCommand('agentBrain.syncNow');
    }),
    reg('agentBrain.runDoctor', () => cli(c, 'doctor', ['doctor'], { show: true })),
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
