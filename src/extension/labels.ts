// How the Sessions view and the search box word a session: local days and times, project names,
// which sessions are listed. No vscode here, so the words are checked without an editor.
import type { BackupInfo, ListedSession, Progress } from './protocol';
import { plural } from '../core/recall/words';

/** The local calendar day of a time (the tree's dates are the reader's, not UTC's). */
export function day(iso: string | null): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return iso ?? '';
  const d = new Date(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A time as a reader takes it in: local, to the minute, and how long ago ("2026-01-02 11:04, 3
 * days ago"). */
export function localTime(iso: string | null | undefined, now = Date.now()): string | undefined {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return iso ?? undefined;
  const d = new Date(t);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const s = Math.round((now - t) / 1000);
  const ago = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  const rel =
    s < 0 ? 'in the future' : s < 60 ? 'just now' : s < 3600 ? ago(Math.floor(s / 60), 'minute') : s < 86400 ? ago(Math.floor(s / 3600), 'hour') : s < 86400 * 60 ? ago(Math.floor(s / 86400), 'day') : ago(Math.floor(s / (86400 * 30)), 'month');
  return `${day(iso ?? null)} ${hm}, ${rel}`;
}

/** A project by its folder's own name (the full working folder is its tooltip); a name that is
 * not a path (a lake folder) as it is. */
export function projectLabel(p: string): string {
  if (!p.includes('/') && !p.includes('\\')) return p;
  return p.split(/[\\/]/).filter(Boolean).pop() || p;
}

/** What the tree lists: sessions with a turn (truth.ts; a file holding only injected context, or
 * nothing yet, is no conversation). */
export function listable(list: ListedSession[]): ListedSession[] {
  return list.filter((s) => s.turns > 0);
}

/** How long ago, in one short unit ("40s", "3h", "2d"); "never" without a time. */
export function age(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MB`;
  return `${(n / (1 << 30)).toFixed(2)} GB`;
}

/** What a failed sync's toast says: what went wrong in words, and what to do; rsync's own
 * message goes to the Output panel, where Show Details leads. */
export function syncFailureText(r: { message?: string; warning?: string; hint?: string }): string {
  const what = (r.warning || 'the backup did not complete').replace(/^backup failing:\s*/, '');
  const todo = r.hint || 'Run Doctor: it checks the store, ssh and rsync and says how to fix what it finds.';
  return `Agent Brain: backup failed (${what}). ${todo}`;
}

export interface StatusLabel {
  text: string;
  error: boolean;
  warn: boolean;
}

/** What the status bar says, from the backup's state, a pass's progress and this window's last
 * capture problem: neutral and branded until a store is set up, never "recording 0 files". */
export function statusLabel(b: BackupInfo | undefined, progress: Progress | undefined, capture: { problem: string; hint?: string } | undefined): StatusLabel {
  // A pass with nothing to take (a second window following the writer, a quiet catch-up) is
  // not news: only a pass that is taking files or doing other work shows.
  if (progress && !(progress.phase !== 'sync' && progress.phase !== 'index' && progress.files === 0)) {
    const p = progress;
    const what = p.phase === 'sync' ? 'syncing' : p.phase === 'index' ? 'indexing' : `recording ${plural(p.files, 'file')} · ${bytes(p.bytes)}`;
    return { text: `$(sync~spin) Brain: ${what}`, error: false, warn: false };
  }
  // Recording comes before the backup: what is not recorded cannot be backed up.
  // This window's recorder says so at once; every window reads it from the floor's health.
  if (capture) return { text: `$(error) recording failing: ${/disk that holds .* is full/.test(capture.problem) ? 'disk full' : 'see tooltip'}`, error: true, warn: false };
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
