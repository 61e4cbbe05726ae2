// The messages between the extension host's main thread and its worker (dist/worker.js), declared
// once for both sides as two maps (as vscode-eslint declares its requests): Requests, each
// method's params and result, and Events, each notification's data. The host's Backend.request
// and the worker's handlers are typed from them, so a wrong name or shape does not compile.
// The main thread only asks and draws; the worker does the work with core.
import type { ListedSession, SessionView } from '../core/recall/floorview';
import type { CiteOutput, ReadOutput, SearchOutput, ToolName, VerifyOutput } from '../core/recall/types';

// A session and its turns are the core's shapes (core/recall/floorview.ts), passed through as they are.
export type { ListedSession, SessionView };
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

// ---------------------------------------------------------------- requests (host → worker)

export interface InitParams {
  record: boolean;
  /** Int32Array over it: [0] = 1 asks the running catch-up to stop. Shared memory, because the
   * worker is busy inside a synchronous capture pass and reads no messages until it ends. */
  cancel?: SharedArrayBuffer;
  cli: string;
  env: Record<string, string | undefined>;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SyncReply {
  ok: boolean;
  message: string;
  warning?: string;
  hint?: string;
}

/** brain_sql's answer: rows as objects keyed by column, what a model reads most easily. */
export interface SqlRows {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  limit: number;
  /** The byte cap the answer was read under, values cut to fit it, and what to do about it. */
  max_bytes?: number;
  cut_values?: number;
  note?: string;
}

/** Each recall tool's answer, by the core's tool name. */
export interface RecallResults {
  search: SearchOutput;
  read_session: ReadOutput;
  cite: CiteOutput;
  verify_citation: VerifyOutput;
  sql: SqlRows;
}

/** A recall tool and its input, as the model or the view gave it (the worker checks it against
 * the tool's schema). */
export interface RecallParams<T extends ToolName = ToolName> {
  tool: T;
  input: unknown;
  /** Set when a chat calls the tool (a language-model tool), with its session when the editor names it. */
  chat?: { session?: string };
}

/** Every request the host sends, with its params and its result. */
export interface Requests {
  init: { params: InitParams; result: { home: string; machine: string; role: Role } };
  sessions: { params: void; result: ListedSession[] };
  session: { params: { session: string; machine?: string }; result: SessionView | null };
  backup: { params: void; result: BackupInfo };
  cancelCatchUp: { params: void; result: boolean };
  /** Runs the CLI (status, doctor, backup, rebuild) as a child of the worker. */
  cli: { params: { args: string[] }; result: CliRun };
  sync: { params: void; result: SyncReply };
  recall: { params: RecallParams; result: RecallResults[ToolName] };
  close: { params: void; result: boolean };
}

export type Method = keyof Requests;
export type Params<M extends Method> = Requests[M]['params'];
export type Result<M extends Method> = Requests[M]['result'];

/** The worker's side: one handler per request, each typed by the map. */
export type Handlers = { [M in Method]: (params: Params<M>) => Result<M> | Promise<Result<M>> };

// ---------------------------------------------------------------- events (worker → host)

/** Every notification the worker sends, with its data. */
export interface Events {
  progress: Progress;
  sessions: { changed: number };
  backup: BackupInfo;
  role: { role: Role; reason?: string };
  log: { level: 'info' | 'warn' | 'error'; message: string };
  /** Something the user should know once and can fix (recording goes on): the watch limit. */
  notice: { message: string; hint?: string };
  /** A capture pass failed (problem), or one worked again after a failure (null). */
  capture: { problem: string | null; hint?: string };
}

export type EventName = keyof Events;
/** One event as it travels: a union over Events, so a switch on `event` narrows `data`. */
export type WorkerEvent = { [E in EventName]: { event: E; data: Events[E] } }[EventName];

// ---------------------------------------------------------------- the wire

export interface WorkerRequest<M extends Method = Method> {
  id: number;
  method: M;
  params: Params<M>;
}

export interface RemoteErrorData {
  code: string;
  message: string;
  hint?: string;
}

export type WorkerReply = { id: number; result: unknown } | { id: number; error: RemoteErrorData };
