// The prefilter: finds the few lines of a new chunk worth decoding and handing to secretlint, at
// native search speed. A combined regex of the anchors below ran at ~55 MB/s and a byte loop in JS
// at ~60-80 MB/s on this project's 2-core machines; instead every anchor is pinned to one pivot byte
// ("_", "-", ".", "=", ":", "~", "A") or a literal ("PRIVATE KEY", "dapi") that Buffer.indexOf
// finds with memchr-like speed, and only those places are looked at closer.
//
// Anchors (a line without one cannot produce a finding; test/core/secrets/prefilter.test.ts checks
// this against a scan of every line without the prefilter, on the fixtures and on planted keys):
//   "_": sk_ rk_ gsk_ gh?_ github_pat_ glc_ glsa_ hf_ npm_ ntn_ shp??_ lin_api_ ops_ vc?_ dckr_pat_
//        figd_ cf*_  (the word before "_", leading digits ignored)
//   "-": sk- glpat- xox?- xapp- tskey-
//   ".": SG. hvs. hvb. hvr.
//   "=" ":": a name ending in key, token, secret, pass, passwd, password, pwd, passphrase,
//        credential(s) or sig just before (quotes, JSON escapes and blanks between allowed);
//        "://user:password@" and "://hooks.slack.com/" after "://"
//   "~": a digit then "Q~" (Azure client secrets)
//   "A": AKIA ASIA A3T AGPA AIDA AROA AIPA ANPA ANVA (AWS key ids), AIza (Google API keys)
//   literals: "PRIVATE KEY" (PEM blocks, GCP service-account JSON), "dapi" (Databricks), "eyJ"
//        (JWTs), the base64 of each token prefix (base64-encoded tokens)
// Keep it in step with ./extra (the project's own detectors) and the secretlint preset's rules.

import { BASE64_TOKEN_STARTS } from './extra';

const ALNUM = new Uint8Array(256);
for (let c = 48; c <= 57; c++) ALNUM[c] = 1;
for (let c = 65; c <= 90; c++) ALNUM[c] = 1;
for (let c = 97; c <= 122; c++) ALNUM[c] = 1;

/** A word of at most 6 bytes packed into one number, so a set lookup needs no string. */
function pack(b: Uint8Array, s: number, e: number): number {
  let k = 0;
  for (let i = s; i < e; i++) k = k * 256 + b[i];
  return k;
}
const words = (s: string) => new Set(s.split(' ').map((w) => pack(Buffer.from(w, 'latin1'), 0, w.length)));
const BEFORE_UNDERSCORE = words('sk rk gsk ghp gho ghu ghs ghr github glc glsa hf npm ntn shppa shpca shpat shpss lin ops vcp vci vca vcr vck dckr figd cfk cfut cfat');
const BEFORE_DASH = words('sk glpat xoxb xoxp xoxa xoxo xoxr xapp tskey');
const BEFORE_DOT = words('SG hvs hvb hvr');
const AFTER_A = ['KIA', 'SIA', '3T', 'GPA', 'IDA', 'ROA', 'IPA', 'NPA', 'NVA', 'Iza'].map((p) => Buffer.from(p, 'latin1'));
/** Name endings that make `name = value` worth a look (compared lowercased), by their last byte. */
const NAME_ENDS: Uint8Array[][] = Array.from({ length: 256 }, () => []);
for (const w of ['credentials', 'credential', 'passphrase', 'password', 'passwd', 'secret', 'token', 'pass', 'key', 'pwd', 'sig']) {
  NAME_ENDS[w.charCodeAt(w.length - 1)].push(Buffer.from(w, 'latin1'));
}
const SLACK_HOOK = Buffer.from('hooks.slack.com/', 'latin1');
// JWTs ("eyJ") and base64-encoded tokens (the base64 of each token prefix, see ./extra).
const LITERALS = ['PRIVATE KEY', 'dapi', 'eyJ', ...BASE64_TOKEN_STARTS].map((p) => Buffer.from(p, 'latin1'));

function startsAt(b: Uint8Array, at: number, p: Uint8Array): boolean {
  if (at < 0 || at + p.length > b.length) return false;
  for (let k = 0; k < p.length; k++) if (b[at + k] !== p[k]) return false;
  return true;
}

/** Is the alphanumeric word ending just before `i` (at most `max` bytes, leading digits dropped) in `set`? */
function wordIn(b: Buffer, i: number, max: number, set: Set<number>): boolean {
  let s = i;
  // Up to 16 bytes back: room for digits glued before the word ("2github_pat_…" is still a token).
  while (s > 0 && i - s < 17 && ALNUM[b[s - 1]] === 1) s--;
  if (s === i) return false;
  // Inside JSON text "\nghp_…" is an escape then "ghp_…": an odd run of backslashes before the
  // word makes its first letter part of the escape.
  let bs = 0;
  while (s - bs > 0 && b[s - bs - 1] === 92) bs++;
  if (bs % 2 === 1) s++;
  while (s < i && b[s] >= 48 && b[s] <= 57) s++;
  return s < i && i - s <= max && set.has(pack(b, s, i));
}

/** A secret-sounding name ends just before the "=" or ":" at i (blanks, quotes, backslashes between). */
function nameBefore(b: Buffer, i: number): boolean {
  let e = i;
  for (let k = 0; k < 8 && e > 0; k++) {
    const c = b[e - 1];
    if (c === 34 || c === 39 || c === 92 || c === 32 || c === 9) e--;
    else break;
  }
  if (e === 0) return false;
  const list = NAME_ENDS[b[e - 1] | 0x20];
  for (let n = 0; n < list.length; n++) {
    const w = list[n];
    const s = e - w.length;
    if (s < 0) continue;
    let k = w.length - 2;
    while (k >= 0 && (b[s + k] | 0x20) === w[k]) k--;
    if (k < 0) return true;
  }
  return false;
}

function isUrlStop(c: number): boolean {
  return c <= 32 || c === 47 || c === 34 || c === 39 || c === 92;
}

/** "://user:password@" (or "://hooks.slack.com/") at the ":" at i. */
function credentialUrl(b: Buffer, i: number): boolean {
  const s = i + 3;
  if (startsAt(b, s, SLACK_HOOK)) return true;
  const stop = Math.min(b.length, s + 520);
  let j = s;
  while (j < stop && !isUrlStop(b[j]) && b[j] !== 58 && b[j] !== 64) j++;
  if (j === s || b[j] !== 58) return false;
  const p = ++j;
  while (j < stop && !isUrlStop(b[j]) && b[j] !== 64) j++;
  return j > p && b[j] === 64;
}

/** Byte offsets in b where an anchor sits (unordered, may repeat). */
function anchorOffsets(b: Buffer): number[] {
  const out: number[] = [];
  for (let i = b.indexOf(95); i >= 0; i = b.indexOf(95, i + 1)) {
    if (wordIn(b, i, 6, BEFORE_UNDERSCORE)) out.push(i);
  }
  for (let i = b.indexOf(45); i >= 0; i = b.indexOf(45, i + 1)) {
    if (wordIn(b, i, 5, BEFORE_DASH)) out.push(i);
  }
  for (let i = b.indexOf(46); i >= 0; i = b.indexOf(46, i + 1)) {
    if (wordIn(b, i, 3, BEFORE_DOT)) out.push(i);
  }
  for (let i = b.indexOf(61); i >= 0; i = b.indexOf(61, i + 1)) {
    if (nameBefore(b, i)) out.push(i);
  }
  for (let i = b.indexOf(58); i >= 0; i = b.indexOf(58, i + 1)) {
    if (b[i + 1] === 47 && b[i + 2] === 47 ? credentialUrl(b, i) : nameBefore(b, i)) out.push(i);
  }
  for (let i = b.indexOf(126); i >= 0; i = b.indexOf(126, i + 1)) {
    if (i >= 2 && b[i - 1] === 81 && b[i - 2] >= 48 && b[i - 2] <= 57) out.push(i);
  }
  for (let i = b.indexOf(65); i >= 0; i = b.indexOf(65, i + 1)) {
    for (const p of AFTER_A) {
      if (startsAt(b, i + 1, p)) {
        out.push(i);
        break;
      }
    }
  }
  for (const lit of LITERALS) {
    for (let i = b.indexOf(lit); i >= 0; i = b.indexOf(lit, i + 1)) out.push(i);
  }
  return out;
}

/**
 * Calls `line(from, to)` for each line of b that holds an anchor, in order, once each; `to` is
 * after the line's newline (or the end of b).
 */
export function anchorLines(b: Buffer, line: (from: number, to: number) => void): void {
  const at = anchorOffsets(b);
  if (at.length === 0) return;
  at.sort((x, y) => x - y);
  let lineEnd = -1;
  for (const i of at) {
    if (i < lineEnd) continue;
    // (lastIndexOf with a negative offset would count from the end)
    const from = i === 0 ? 0 : b.lastIndexOf(10, i - 1) + 1;
    const nl = b.indexOf(10, i);
    lineEnd = nl < 0 ? b.length : nl + 1;
    line(from, lineEnd);
  }
}

/** Does a decoded text hold any anchor? */
export function hasAnchor(text: string): boolean {
  return anchorOffsets(Buffer.from(text, 'utf8')).length > 0;
}
