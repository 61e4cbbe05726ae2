// The Sessions view: machine → agent → project → session, redrawn when the worker says the floor
// changed. It holds the last list the worker sent and nothing else.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ListedSession } from './protocol';
import { bytes } from './labels';
import { visible } from '../core/visible';
import { day, listable, localTime, projectLabel } from './labels';

export type Node =
  | { kind: 'machine'; machine: string; local: boolean }
  | { kind: 'agent'; machine: string; lane: string; label: string }
  | { kind: 'project'; machine: string; lane: string; project: string }
  | { kind: 'session'; info: ListedSession };

export class SessionsTree implements vscode.TreeDataProvider<Node> {
  private list: ListedSession[] = [];
  private emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private localMachine: () => string) {}

  private parents = new Set<string>();

  set(list: ListedSession[]): void {
    this.list = listable(list);
    this.parents = new Set(list.filter((s) => s.parent_session).map((s) => `${s.machine}/${s.lane}/${s.parent_session}`));
    this.emitter.fire(undefined);
  }

  all(): ListedSession[] {
    return this.list;
  }

  private newest(items: ListedSession[]): string {
    return items.reduce((m, s) => ((s.ended ?? '') > m ? (s.ended ?? '') : m), '');
  }

  /** Told how long each getChildren took (the e2e suite reports the longest). */
  onWork?: (ms: number) => void;

  getChildren(n?: Node): Node[] {
    const t = performance.now();
    try {
      return this.children(n);
    } finally {
      this.onWork?.(performance.now() - t);
    }
  }

  private children(n?: Node): Node[] {
    const L = this.list;
    if (!n) {
      const machines = [...new Set(L.map((s) => s.machine))];
      const local = this.localMachine();
      machines.sort((a, b) => (a === local ? -1 : b === local ? 1 : a.localeCompare(b)));
      return machines.map((m) => ({ kind: 'machine', machine: m, local: m === local }));
    }
    if (n.kind === 'machine') {
      const lanes = new Map<string, string>();
      for (const s of L) if (s.machine === n.machine) lanes.set(s.lane, s.agentLabel);
      return [...lanes].sort((a, b) => a[1].localeCompare(b[1])).map(([lane, label]) => ({ kind: 'agent', machine: n.machine, lane, label }));
    }
    if (n.kind === 'agent') {
      const by = new Map<string, ListedSession[]>();
      for (const s of L) if (s.machine === n.machine && s.lane === n.lane) by.set(s.project, [...(by.get(s.project) ?? []), s]);
      return [...by]
        .sort((a, b) => this.newest(b[1]).localeCompare(this.newest(a[1])))
        .map(([project]) => ({ kind: 'project', machine: n.machine, lane: n.lane, project }));
    }
    if (n.kind === 'project') {
      const here = L.filter((s) => s.machine === n.machine && s.lane === n.lane && s.project === n.project);
      const ids = new Set(here.map((s) => s.session));
      // A sub-agent's session sits under its parent when the parent is listed here.
      return here
        .filter((s) => !s.parent_session || !ids.has(s.parent_session))
        .sort((a, b) => String(b.started).localeCompare(String(a.started)))
        .map((info) => ({ kind: 'session', info }));
    }
    if (n.kind === 'session') {
      return L.filter((s) => s.parent_session === n.info.session && s.machine === n.info.machine && s.lane === n.info.lane)
        .sort((a, b) => String(a.started).localeCompare(String(b.started)))
        .map((info) => ({ kind: 'session', info }));
    }
    return [];
  }

  getTreeItem(n: Node): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (n.kind) {
      case 'machine': {
        const t = new vscode.TreeItem(visible(n.machine, { oneLine: true }), C.Expanded);
        t.id = `m:${n.machine}`;
        t.iconPath = new vscode.ThemeIcon(n.local ? 'device-desktop' : 'remote');
        t.description = n.local ? 'this machine' : 'from the store';
        return t;
      }
      case 'agent': {
        const t = new vscode.TreeItem(n.label, C.Collapsed);
        t.id = `a:${n.machine}/${n.lane}`;
        t.iconPath = new vscode.ThemeIcon('hubot');
        const k = this.list.filter((s) => s.machine === n.machine && s.lane === n.lane).length;
        t.description = `${k} session${k === 1 ? '' : 's'}`;
        return t;
      }
      case 'project': {
        const t = new vscode.TreeItem(visible(projectLabel(n.project), { oneLine: true }), C.Collapsed);
        t.id = `p:${n.machine}/${n.lane}/${n.project}`;
        t.iconPath = vscode.ThemeIcon.Folder;
        t.tooltip = visible(n.project, { oneLine: true });
        t.description = `${this.list.filter((s) => s.machine === n.machine && s.lane === n.lane && s.project === n.project).length}`;
        return t;
      }
      case 'session': {
        const s = n.info;
        const subs = this.parents.has(`${s.machine}/${s.lane}/${s.session}`);
        // Titles, paths and names are session text (another machine's too): shown, never obeyed.
        const t = new vscode.TreeItem(visible(s.title, { oneLine: true }), subs ? C.Collapsed : C.None);
        t.id = `s:${s.machine}/${s.lane}/${s.session}`;
        t.description = `${day(s.started)} · ${s.turns} turn${s.turns === 1 ? '' : 's'}`;
        t.iconPath = new vscode.ThemeIcon(s.subagent ? 'hubot' : 'comment-discussion');
        t.contextValue = 'session';
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${escapeMd(visible(s.title, { oneLine: true }))}**\n\n`);
        const rows: [string, string | undefined][] = [
          ['session', s.session],
          ['cwd', s.cwd],
          ['branch', s.branch],
          ['model', s.model],
          ['started', localTime(s.started)],
          ['last', localTime(s.ended)],
          ['turns', String(s.turns)],
          ['size', `${bytes(s.bytes)}, ${s.lines} lines`],
          ['floor', path.join(s.root, s.lakePath)],
        ];
        for (const [k, v] of rows) if (v) md.appendMarkdown(`${k}: \`${visible(v, { oneLine: true }).replace(/`/g, "'")}\`  \n`);
        t.tooltip = md;
        t.command = { command: 'agentBrain.openSession', title: 'Open Session', arguments: [{ session: s.session, machine: s.machine }] };
        t.accessibilityInformation = { label: `${visible(s.title, { oneLine: true })}, ${s.turns} turn${s.turns === 1 ? '' : 's'}, ${day(s.started)}` };
        return t;
      }
    }
  }
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
