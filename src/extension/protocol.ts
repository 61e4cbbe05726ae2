// The messages between the extension host's main thread and its worker (dist/worker.js), declared
// once for both sides. The main thread only asks and draws; the worker does the work with core.

// A session and its turns are the core's shapes (core/recall/floorview.ts), passed through as they are.
export type { SessionInfo, SessionView } from '../core/recall/floorview';
export type { TurnView } from '../core/recall/types';

/** What the status bar and the Backup view show, from state.json and the store. */
export interface BackupInfo {
  /** '' while backups work; else the label every front end shows. */
  warning: string;
  status: 'ok' | 'failing' | 'stale' | 'none' | 'unknown';
  /** ISO time of the last sync that worked. */
  lastOk: string | null;
  message: string;
  store: string | null;
  machines: { machine: string; lastSync: string | null; versions: string[]; warnings: string[]; atRisk: number }[];
  /** better-sqlite3 could not load: search scans, the tooltip says so. */
  sqlite: string | null;
  /** The last capture pass failed, or the floor's disk is full (every window shows it). */
  recording: { label: string; message: string; hint?: string } | null;
}

export interface Progress {
  phase: 'catch-up' | 'index' | 'sync';
  files: number;
  bytes: number;
  done: boolean;
  cancelled?: boolean;
}

export interface LoopDelay {
  /** Milliseconds, over the window measured. */
  max: number;
  p99: number;
  mean: number;
  samples: number;
  during: string;
  /** Share of the window the main thread was running at all (anything, not only this extension). */
  utilization?: number;
  /** The longest single piece of this extension's own work on the main thread, in ms. */
  ownMaxMs?: number;
}

export type Role = 'writer' | 'follower' | 'off';

export type WorkerEvent =
  | { event: 'progress'; data: Progress }
  | { event: 'sessions'; data: { changed: number } }
  | { event: 'backup'; data: BackupInfo }
  | { event: 'role'; data: { role: Role; reason?: string } }
  | { event: 'log'; data: { level: 'info' | 'warn' | 'error'; message: string } }
  /** Something the user should know once and can fix (recording goes on): the watch limit. */
  | { event: 'notice'; data: { message: string; hint?: string } }
  /** A capture pass failed (problem), or one worked again after a failure (null). */
  | { event: 'capture'; data: { problem: string | null; hint?: string } };

export interface WorkerRequest {
  id: number;
  method: string;
  params: unknown;
}

export type WorkerReply = { id: number; result: unknown } | { id: number; error: { code: string; message: string; hint?: string } };

export interface InitParams {
  record: boolean;
  /** Int32Array over it: [0] = 1 asks the running catch-up to stop. Shared memory, because the
   * worker is busy inside a synchronous capture pass and reads no messages until it ends. */
  cancel?: SharedArrayBuffer;
  cli: string;
  env: Record<string, string | undefined>;
}
