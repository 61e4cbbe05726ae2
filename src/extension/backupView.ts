// The Backup view: this machine's backup state and each machine's last sync at the store.
import * as vscode from 'vscode';
import type { BackupInfo } from './protocol';
import { age } from './status';

type Row = { label: string; description?: string; icon?: string; tooltip?: string; children?: Row[]; command?: vscode.Command };

export class BackupView implements vscode.TreeDataProvider<Row> {
  private info: BackupInfo | undefined;
  private emitter = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  set(b: BackupInfo): void {
    this.info = b;
    this.emitter.fire(undefined);
  }

  getChildren(r?: Row): Row[] {
    if (r) return r.children ?? [];
    const b = this.info;
    if (!b) return [{ label: 'reading state…', icon: 'loading~spin' }];
    const rows: Row[] = [];
    const status = b.status === 'ok' ? `ok, last sync ${age(b.lastOk)} ago` : b.status === 'none' ? 'no backup yet' : b.warning || b.status;
    rows.push({ label: 'This machine', description: status, icon: b.status === 'ok' ? 'pass' : b.status === 'failing' ? 'error' : 'warning', tooltip: b.message || undefined, command: { command: 'agentBrain.showStatus', title: 'Show Status' } });
    rows.push({ label: 'Store', description: b.store ?? 'not configured (Open Config)', icon: 'database', command: b.store ? undefined : { command: 'agentBrain.openConfig', title: 'Open Config' } });
    if (b.sqlite) rows.push({ label: 'Search index', description: 'scanning (SQLite unavailable)', icon: 'warning', tooltip: b.sqlite });
    for (const m of b.machines) {
      const children: Row[] = [
        { label: 'last sync', description: m.lastSync ? `${age(m.lastSync)} ago` : 'never', icon: 'history' },
        { label: 'versions', description: m.versions.join(', ') || 'unknown', icon: 'versions' },
      ];
      for (const w of m.warnings) children.push({ label: w, icon: 'warning' });
      if (m.atRisk) children.push({ label: `${m.atRisk} sessions at risk from retention`, icon: 'warning' });
      rows.push({ label: m.machine, description: m.lastSync ? `${age(m.lastSync)} ago` : 'never', icon: 'vm', children });
    }
    return rows;
  }

  getTreeItem(r: Row): vscode.TreeItem {
    const t = new vscode.TreeItem(r.label, r.children ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    t.description = r.description;
    if (r.icon) t.iconPath = new vscode.ThemeIcon(r.icon);
    t.tooltip = r.tooltip;
    t.command = r.command;
    return t;
  }
}
