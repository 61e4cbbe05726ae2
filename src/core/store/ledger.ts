// The ledger: what the store holds of each floor file as of the last sync that worked, and the
// sha256 of those bytes. It is how a sync knows, without reading the store, which prefix the
// store's copy must still have (checked on the store side before rsync runs), and how a tick tells
// a changed file from one whose mtime only looks new (clock skew). Losing it costs one full
// re-check; it is never synced.
import * as fs from 'node:fs';
import { writeFileAtomic } from '../floor/durable';
import type { Finding } from './findings';

export interface LedgerEntry {
  /** Bytes we vouch the store holds: the verified (manifest-claimed, or complete-line) extent. */
  size: number;
  sha256: string;
  /** stat of the local file when last checked: a file whose stat still matches has not changed. */
  seen_size: number;
  seen_mtime: number;
  synced_at: string;
  /** A problem that stays until the local file changes (e.g. it fails the manifest). */
  problem?: Finding;
}

export interface Ledger {
  v: 1;
  files: Record<string, LedgerEntry>;
  /** The store-side scrub walks unchanged files in path order; it resumes after this one. */
  scrub_after?: string;
}

export function readLedger(file: string): Ledger {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as Ledger;
    if (j && j.v === 1 && j.files && typeof j.files === 'object') return j;
  } catch {
    /* missing or torn: start afresh, the next sync re-checks everything */
  }
  return { v: 1, files: {} };
}

export function writeLedger(file: string, l: Ledger): void {
  writeFileAtomic(file, JSON.stringify(l));
}

export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
