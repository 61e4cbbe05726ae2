// A short log of the last sync and capture failures, next to state.json. state.json and
// capture-error.json hold the last result only, so a backup that fails every other run (a flaky
// link, a store disk that comes and goes) looks fine whenever it is looked at; this log is what
// shows the flapping, in `brain status` and `brain doctor`.
//
// Bounded (the last FAILURE_LOG_MAX entries), rewritten atomically, best effort: it is a diagnosis
// aid, never a reason for a sync or a capture to fail. A burst of the same failure (a recorder
// retrying every second on a full disk) is one entry with a count, so it cannot push every sync
// failure out of the log.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './durable';

export const FAILURE_LOG_MAX = 20;
/** The same failure again within this long is counted on the entry before instead of added. */
const BURST_MS = 60_000;
const DAY_MS = 24 * 3600_000;

export interface FailureEntry {
  /** When it first happened (ISO). */
  at: string;
  kind: 'sync' | 'capture';
  /** Short label, as the status bar shows it (e.g. "store unreachable"). */
  label: string;
  message: string;
  /** How many times in a burst (absent: once). */
  count?: number;
  /** The last time in the burst (ISO). */
  last_at?: string;
}

export function failureLogPath(home: string): string {
  return path.join(home, 'failures.jsonl');
}

export function readFailures(home: string): FailureEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(failureLogPath(home), 'utf8');
  } catch {
    return [];
  }
  const out: FailureEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as FailureEntry;
      if (e && typeof e.at === 'string' && typeof e.label === 'string') out.push(e);
    } catch {
      /* a torn line (should not happen: the file is replaced whole) is skipped */
    }
  }
  return out.slice(-FAILURE_LOG_MAX);
}

export function noteFailure(home: string, f: { kind: FailureEntry['kind']; label: string; message: string }, now = Date.now()): void {
  try {
    const all = readFailures(home);
    const last = all[all.length - 1];
    const iso = new Date(now).toISOString();
    const lastSeen = last ? Date.parse(last.last_at ?? last.at) : NaN;
    if (last && last.kind === f.kind && last.label === f.label && now - lastSeen >= 0 && now - lastSeen < BURST_MS) {
      last.count = (last.count ?? 1) + 1;
      last.last_at = iso;
      last.message = f.message;
    } else all.push({ at: iso, kind: f.kind, label: f.label, message: f.message });
    const kept = all.slice(-FAILURE_LOG_MAX);
    writeFileAtomic(failureLogPath(home), kept.map((e) => JSON.stringify(e)).join('\n') + '\n', { sync: false });
  } catch {
    /* no room or no folder: the failure itself is reported where it happened */
  }
}

export interface RecentFailures {
  /** Failures (bursts counted whole) whose last occurrence is within the window. */
  count: number;
  entries: FailureEntry[];
  /** One line: "3 failures in the last 24 h: sync store unreachable ×2, capture disk full". */
  summary: string;
}

/** The failures of the last 24 hours (or `windowMs`), for status and doctor. Null when none. */
export function recentFailures(home: string, now = Date.now(), windowMs = DAY_MS): RecentFailures | null {
  const entries = readFailures(home).filter((e) => {
    const t = Date.parse(e.last_at ?? e.at);
    return Number.isFinite(t) && now - t <= windowMs;
  });
  if (entries.length === 0) return null;
  const groups = new Map<string, number>();
  let count = 0;
  for (const e of entries) {
    // A label that already names its kind ("sync failed") is not prefixed again.
    const k = e.label.toLowerCase().startsWith(e.kind) ? e.label : `${e.kind} ${e.label}`;
    groups.set(k, (groups.get(k) ?? 0) + (e.count ?? 1));
    count += e.count ?? 1;
  }
  const hours = Math.round(windowMs / 3600_000);
  const parts = [...groups].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k));
  return { count, entries, summary: `${count} failure${count === 1 ? '' : 's'} in the last ${hours} h: ${parts.join(', ')}` };
}
