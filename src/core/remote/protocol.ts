// What this machine asks the store and what comes back: one request per connection, as JSON. The
// store side (host.ts) runs next to the data, over a local store folder in this process or on an
// ssh store host as `node -` reading the bundle dist/remote.js from stdin (client.ts).
import type { CiteInput, CiteOutput, ReadInput, ReadOutput, SearchInput, SearchOutput, VerifyInput, VerifyOutput } from '../recall/types';
import type { ListedSession } from '../recall/floorview';

export type StoreRequest =
  /** Search every machine folder of the store except `except` (this machine answers for itself). */
  | { op: 'search'; input: SearchInput; except: string[] }
  | { op: 'read'; input: ReadInput }
  | { op: 'verify'; input: VerifyInput }
  | { op: 'cite'; input: CiteInput }
  /** Every session of the store's machines except `except`, as search lists them (no snippets). */
  | { op: 'sessions'; except: string[] }
  /** What the store side can do (doctor). */
  | { op: 'probe' };

export interface Probe {
  node: string;
  /** Why the store side reads the files instead of a turn index, or null when it keeps one. */
  scan_because: string | null;
  machines: string[];
}

export interface StoreReplies {
  search: SearchOutput;
  read: ReadOutput;
  verify: VerifyOutput;
  cite: CiteOutput;
  sessions: ListedSession[];
  probe: Probe;
}

/** One line of JSON on the store side's stdout. */
export type StoreReply<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; hint?: string } };

/** The argument `node -` gets: the request, the store folder and whether the caller turned the
 * turn index off (--scan), base64 (one shell word). */
export function encodeRequest(store: string, req: StoreRequest, scan = false, timeout?: number): string {
  return Buffer.from(JSON.stringify({ store, req, scan, ...(timeout !== undefined ? { timeout } : {}) }), 'utf8').toString('base64');
}

/** `timeout`: the asking machine's BRAIN_STORE_TIMEOUT, which the store side keeps to. */
export function decodeRequest(arg: string): { store: string; req: StoreRequest; scan?: boolean; timeout?: number } {
  return JSON.parse(Buffer.from(arg, 'base64').toString('utf8')) as { store: string; req: StoreRequest; scan?: boolean; timeout?: number };
}
