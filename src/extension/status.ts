// The status-bar item: backup health in one glance (the label comes from state.json, written by the
// sync; this only shows it), capture progress while a catch-up runs. Click: Show Status.
import * as vscode from 'vscode';
import type { BackupInfo, LoopDelay, Progress, Role } from './protocol';
import { age, bytes } from './labels';

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

  label(): { text: string; error: boolean; warn: boolean } {
    const b = this.backup;
    // A pass with nothing to take (a second window following the writer, a quiet catch-up) is
    // not news: only a pass that is taking files or doing other work shows.
    if (this.progress && !(this.progress.phase !== 'sync' && this.progress.phase !== 'index' && this.progress.files === 0)) {
      const p = this.progress;
      const what = p.phase === 'sync' ? 'syncing' : p.phase === 'index' ? 'indexing' : `recording ${p.files} files · ${bytes(p.bytes)}`;
      return { text: `$(sync~spin) Brain: ${what}`, error: false, warn: false };
    }
    // Recording comes before the backup: what is not recorded cannot be backed up.
    // This window's recorder says so at once; every window reads it from the floor's health.
    if (this.capture) return { text: `$(error) recording failing: ${/disk that holds .* is full/.test(this.capture.problem) ? 'disk full' : 'see tooltip'}`, error: true, warn: false };
    if (b?.recording) return { text: `$(error) ${b.recording.label}`, error: true, warn: false };
    if (!b) return { text: '$(database) Brain', error: false, warn: false };
    // Before a store is chosen nothing is wrong: recording works, backing up is a step still to take
    // (the tooltip and Set Up Backup… say so), so no warning colour at install.
    if (!b.store && b.status !== 'failing') return { text: '$(database) Brain: recording', error: false, warn: false };
    if (b.status === 'failing') return { text: `$(error) backup failing: ${b.warning.replace(/^backup failing:\s*/, '')}`, error: true, warn: false };
    if (b.status === 'stale') return { text: '$(warning) backup stale', error: false, warn: true };
    if (b.status === 'ok') return { text: `$(check) backup ok · ${age(b.lastOk)}`, error: false, warn: false };
    return { text: `$(circle-slash) ${b.warning || 'no backup yet'}`, error: false, warn: true };
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
