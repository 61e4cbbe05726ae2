// A secret never leaves the scanner whole: what is kept and shown is a masked preview (at most the
// first 4 and last 2 characters, fewer for short values) and a salted fingerprint that groups the
// places one credential appears without being checkable against a guess.
import { createHmac } from 'node:crypto';

export function mask(value: string): string {
  const n = value.length;
  if (n >= 20) return `${value.slice(0, 4)}…${value.slice(-2)}`;
  // Short values (passwords) would give away too much of themselves: show the start only.
  if (n >= 12) return `${value.slice(0, 2)}…`;
  return '…';
}

/** 12 hex characters of HMAC-SHA256(salt, value): equal for equal secrets under one BRAIN_HOME. */
export function fingerprint(salt: string, value: string): string {
  return createHmac('sha256', salt).update(value).digest('hex').slice(0, 12);
}
