// The secret guard's cache: BRAIN_HOME/secrets.json. It holds findings (masked, with citations)
// and how far the manifest has been scanned. Like every cache it may be deleted at any time; the
// next scan starts over from the floor. It is not synced to the store (only lake/, manifest/, meta/
// are) and it never holds a secret, only previews and salted fingerprints.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Lane } from '../floor/manifest';
import { writeFileAtomic } from '../floor/durable';
import type { Citation } from '../turns';
import type { SecretKind } from './kinds';

export interface SecretFinding {
  /** Stable across rescans: lake path, line, rule and fingerprint. */
  id: string;
  rule: string;
  message_id: string;
  kind: SecretKind;
  label: string;
  /** At most the first 4 and last 2 characters of the secret. */
  preview: string;
  /** Salted fingerprint: equal for the same credential wherever it appears. */
  secret_id: string;
  /** The line holding it (lines A..B only for a PEM block pasted as plain text):
   * `sed -n 'Np' <BRAIN_HOME>/<lake_path> | sha256sum` = sha256. */
  citation: Citation;
  lane: Lane;
  agent: string;
  session: string;
  origin_path: string;
  /** When the chunk holding it was captured, and the line's own timestamp if it has one. */
  captured_at: string;
  line_ts: string | null;
  /** When the guard first found it. */
  first_seen: string;
}

export interface ScanError {
  lake_path: string;
  byte_from: number;
  message: string;
}

export interface SecretsCache {
  v: 1;
  /** Keys the fingerprints; never shown. */
  salt: string;
  /** Manifest bytes scanned: every manifest line before this offset has been scanned. */
  scanned_to: number;
  /** Chunks past scanned_to already scanned by scanNewChunks ("lake_path@byte_from"). */
  ahead: string[];
  stats: { chunks: number; bytes: number; ms: number; last_scan: string | null };
  /** Chunks that could not be read on the last passes (the floor is damaged: `brain verify`). */
  errors: ScanError[];
  findings: SecretFinding[];
}

export function cacheFile(home: string): string {
  return path.join(home, 'secrets.json');
}

export function emptyCache(salt?: string): SecretsCache {
  return {
    v: 1,
    salt: salt ?? randomBytes(16).toString('hex'),
    scanned_to: 0,
    ahead: [],
    stats: { chunks: 0, bytes: 0, ms: 0, last_scan: null },
    errors: [],
    findings: [],
  };
}

/** Reads the cache; a missing, torn or foreign file reads as empty (the next scan rebuilds it). */
export function readCache(home: string): { cache: SecretsCache; existed: boolean } {
  try {
    const j = JSON.parse(fs.readFileSync(cacheFile(home), 'utf8')) as SecretsCache;
    if (j && j.v === 1 && typeof j.salt === 'string' && Number.isInteger(j.scanned_to) && Array.isArray(j.findings)) {
      j.ahead ??= [];
      j.errors ??= [];
      j.stats ??= { chunks: 0, bytes: 0, ms: 0, last_scan: null };
      return { cache: j, existed: true };
    }
  } catch {
    /* missing or unreadable: rebuilt from the floor */
  }
  return { cache: emptyCache(), existed: false };
}

export function writeCache(home: string, c: SecretsCache): void {
  // A cache: no fsync. After a crash an older file only means some chunks are scanned again, and
  // findings are keyed by id, so nothing is counted twice.
  writeFileAtomic(cacheFile(home), JSON.stringify(c), { sync: false });
}
