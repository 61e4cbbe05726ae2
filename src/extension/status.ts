// The status-bar item: backup health in one glance (the label comes from state.json, written by the
// sync; this only shows it), capture progress while a catch-up runs. Click: Show Status.
import * as vscode from 'vscode';
import type { BackupInfo, LoopDelay, Progress, Role } from './protocol';
import { age, bytes, statusLabel, type StatusLabel } from './labels';

// Said in labels.ts (no vscode there, so the pages that use them are checked without an editor).
export { age, bytes };

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private backup: BackupInfo | undefined;
  private progress: Progress | undefined;
  private role: Role = 'off';
  private loop: LoopDelay | undefined;
  private capture: { problem: string; hint?: string } | undefined;
  private timer: NodeJS.Timeout;

  constructor() {
    this.item = vscode.window.createStatusBarItem('agentBrain.status', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'Agent Brain';
    this.item.command = 'agentBrain.showStatus';
    this.item.text = '$(database) Brain';
    this.item.show();
    // Only the age in the label changes with time.
    this.timer = setInterval(() => this.draw(), 30_000);
  }

  setBackup(b: BackupInfo): void {
    this.backup = b;
    this.draw();
  }
  setProgress(p: Progress): void {
    this.progress = p.done ? undefined : p;
    this.draw();
  }
  setRole(r: Role): void {
    this.role = r;
    this.draw();
  }
  /** A capture pass failed (shown until one works again). */
  setCaptureProblem(p: { problem: string | null; hint?: string }): void {
    this.capture = p.problem ? { problem: p.problem, hint: p.hint } : undefined;
    this.draw();
  }
  setLoopDelay(l: LoopDelay): void {
    this.loop = l;
    this.draw();
  }

  label(): StatusLabel {
    return statusLabel(this.backup, this.progress, this.capture);
  }

  draw(): void {
    const l = this.label();
    this.item.text = l.text;
    this.item.backgroundColor = l.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : l.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const b = this.backup;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown('**Agent Brain**\n\n');
    const rec = this.capture ? { message: this.capture.problem, hint: this.capture.hint } : b?.recording;
    if (rec) {
      md.appendText(`Recording failed: ${rec.message}\n\n`);
      if (rec.hint) md.appendText(`${rec.hint}\n\n`);
    }
    if (b) {
      md.appendMarkdown(b.store ? `Store: \`${b.store}\`\n\n` : 'Recording every session on this machine. Backup is not set up yet: run **Agent Brain: Set Up Backup…**\n\n');
      md.appendMarkdown(`Last good sync: ${b.lastOk ? `${age(b.lastOk)} ago (${b.lastOk})` : 'never'}\n\n`);
      if (b.message) md.appendText(`${b.message}\n\n`);
      if (b.sqlite) md.appendMarkdown(`Search scans the floor (the SQLite index cannot load: ${b.sqlite}). Recording and backup are unaffected.\n\n`);
    }
    md.appendMarkdown(`Recorder: ${this.role === 'writer' ? 'this window' : this.role === 'follower' ? 'another window or process' : 'off'}\n\n`);
    if (this.loop) md.appendMarkdown(`Editor responsiveness during ${this.loop.during}: max ${this.loop.max.toFixed(1)} ms, p99 ${this.loop.p99.toFixed(1)} ms\n\n`);
    md.appendMarkdown('Click for status and doctor.');
    this.item.tooltip = md;
  }

  dispose(): void {
    clearInterval(this.timer);
    this.item.dispose();
  }
}
