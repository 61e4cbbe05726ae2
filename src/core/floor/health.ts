// Whether recording works, for every front end (doctor, status, the status bar of every window):
// the last capture pass that failed leaves health/capture-error.json, the next one that works
// removes it; and a disk with next to no room left is a problem before any pass fails on it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError, describe } from '../errors';
import { noteFailure } from './failures';
import { layout } from '../home';
import { writeFileAtomic } from './durable';

const ERROR_FILE = 'capture-error.json';
/** Below this much free space a pass would fail on its next session of any size. */
export const LOW_SPACE_BYTES = 1 << 20;

export interface RecordingProblem {
  /** What a status bar shows: "recording failing: disk full". */
  label: string;
  message: string;
  hint?: string;
  /** When the failing pass ran (null: seen on the disk now, no pass has failed yet). */
  at: string | null;
}

/** Best effort: on a full disk even this small file may not fit (the free-space check says it). */
export function noteCaptureError(home: string, e: unknown): void {
  const b = e instanceof BrainError ? e : undefined;
  const message = b ? b.message : describe(e);
  // Also in the failure log: this file says only whether the last pass failed.
  noteFailure(home, { kind: 'capture', label: b?.code === 'disk-full' ? 'disk full' : (b?.code ?? 'error'), message });
  try {
    writeFileAtomic(
      path.join(layout(home).health, ERROR_FILE),
      `${JSON.stringify({ at: new Date().toISOString(), code: b?.code ?? 'error', message, hint: b?.hint })}\n`,
      { sync: false },
    );
  } catch {
    /* no room, or no health folder: nothing more to do here */
  }
}

export function clearCaptureError(home: string): void {
  fs.rmSync(path.join(layout(home).health, ERROR_FILE), { force: true });
}

/** Free bytes on the filesystem that holds `dir` (null: cannot tell). */
export function freeBytes(dir: string): number | null {
  try {
    const s = fs.statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

export function recordingProblem(home: string): RecordingProblem | null {
  const file = path.join(layout(home).health, ERROR_FILE);
  let rec: { at?: string; code?: string; message?: string; hint?: string } | null = null;
  try {
    rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    rec = null;
  }
  if (rec?.message) {
    return { label: `recording failing: ${rec.code === 'disk-full' ? 'disk full' : 'see brain doctor'}`, message: rec.message, hint: rec.hint, at: rec.at ?? null };
  }
  const free = fs.existsSync(home) ? freeBytes(home) : null;
  if (free !== null && free < LOW_SPACE_BYTES) {
    return {
      label: 'recording failing: disk full',
      message: `the disk that holds ${home} has ${free} bytes free: the next session written will not fit`,
      hint: `free space there (df -h ${home}); nothing recorded so far is lost`,
      at: null,
    };
  }
  return null;
}
