// Finds credentials in a buffer of lake bytes (one manifest chunk: whole lines). Three stages, so
// the cost per new byte is one regex pass:
//   1. the prefilter (./prefilter) reads the raw bytes once and picks candidate lines;
//   2. a candidate line is decoded: a JSON line into its string values (nested JSON strings too,
//      such as tool arguments), anything else as UTF-8 text, so escaped quotes and \n do not hide
//      a key from the rules;
//   3. the decoded texts go to secretlint's recommended preset in one call per chunk, and to the
//      few detectors of ./extra that the preset lacks.
// A hit leaves this file as a masked preview and a fingerprint; the secret itself stays here.
import { ruleInfo, type SecretKind } from './kinds';
import { extraHits, EXTRA_RULE_PREFIX } from './extra';
import { anchorLines, hasAnchor } from './prefilter';
import { fingerprint, mask } from './mask';
import { countNewlines } from '../floor/ranges';

export interface Hit {
  rule: string;
  message_id: string;
  kind: SecretKind;
  label: string;
  preview: string;
  secret_id: string;
  /** 0-based line index within the buffer, and the line's bytes [from, to) (newline included).
   * line_last > line only for a PEM block pasted as plain text lines (BEGIN to END). */
  line: number;
  line_last: number;
  from: number;
  to: number;
  /** The line's own timestamp field when it is a JSON line that has one. */
  line_ts: string | null;
}

export interface DetectStats {
  bytes: number;
  candidate_lines: number;
  texts: number;
  text_chars: number;
}

type LintSource = (typeof import('@secretlint/core'))['lintSource'];
type CoreConfig = Parameters<LintSource>[0]['options']['config'];

let engine: Promise<{ lintSource: LintSource; config: CoreConfig }> | undefined;

/** secretlint is ESM-only: loaded once, on first use. */
function loadEngine(): Promise<{ lintSource: LintSource; config: CoreConfig }> {
  engine ??= (async () => {
    const core = await import('@secretlint/core');
    const preset = await import('@secretlint/secretlint-rule-preset-recommend');
    const config: CoreConfig = {
      rules: [
        {
          id: '@secretlint/secretlint-rule-preset-recommend',
          rule: preset.creator,
          rules: [
            // Access key ids are off by default in the preset; a leaked id is half a key pair and
            // says which key to deactivate. Account ids are not secrets.
            { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true }, allowMessageIds: ['AWSAccountID'] },
            // A transcript may contain the words "secretlint-disable" (an agent editing a config):
            // they must not switch the guard off for the rest of a chunk.
            { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
          ],
        },
      ],
    };
    return { lintSource: core.lintSource, config };
  })();
  return engine;
}

/** Loads secretlint now (so a caller can time scanning apart from loading). */
export async function warmUp(): Promise<void> {
  await loadEngine();
}

interface Text {
  line: number; // index into candidate lines
  s: string;
}

interface Candidate {
  index: number; // 0-based line in the buffer
  last: number; // index of its last line (a plain-text PEM block spans several)
  skip?: boolean;
  from: number;
  to: number;
  ts: string | null;
}

const MAX_DEPTH = 3;
/** Shorter strings cannot hold a finding (the shortest is a name, "=" and an 8-character password). */
const MIN_TEXT = 12;

/** Pushes every string in a parsed JSON value that holds a prefilter anchor; parses nested JSON. */
function collectStrings(v: unknown, out: string[], depth: number, every: boolean): void {
  if (typeof v === 'string') {
    if (every) out.push(v);
    else {
      if (v.length < MIN_TEXT) return;
      const w = windows(v);
      if (w.length === 0) return;
      out.push(...w);
    }
    const t = v.trimStart();
    if (depth < MAX_DEPTH && (t.startsWith('{') || t.startsWith('['))) {
      try {
        collectStrings(JSON.parse(t), out, depth + 1, every);
      } catch {
        /* not JSON after all: the text itself is scanned */
      }
    }
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) collectStrings(x, out, depth, every);
    return;
  }
  if (v && typeof v === 'object') {
    for (const x of Object.values(v as Record<string, unknown>)) collectStrings(x, out, depth, every);
  }
}

function decodeLine(text: string, every: boolean): { texts: string[]; ts: string | null; raw: boolean } {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const j = JSON.parse(t) as unknown;
      const texts: string[] = [];
      collectStrings(j, texts, 0, every);
      const ts = j && typeof j === 'object' && typeof (j as { timestamp?: unknown }).timestamp === 'string' ? (j as { timestamp: string }).timestamp : null;
      return { texts, ts, raw: false };
    } catch {
      /* a line that is not JSON (cursor .txt, a torn line): scanned as text */
    }
  }
  return { texts: every ? [text] : windows(text), ts: null, raw: true };
}

/** A plain-text line opening a PEM block whose END is on a later line: extends the candidate to the
 * END line, so the block is read whole and cited as lines A..B. */
function extendPem(buf: Buffer, c: Candidate): boolean {
  const bi = buf.indexOf('-----BEGIN', c.from, 'latin1');
  if (bi < 0 || bi >= c.to) return false;
  const own = buf.indexOf('-----END', bi, 'latin1');
  if (own >= 0 && own < c.to) return false;
  const fin = own < 0 ? -1 : own;
  if (fin < 0 || fin - bi > PEM_MAX) return false;
  const nl = buf.indexOf(10, fin);
  c.last = c.index + countNewlines(buf, c.from, fin);
  c.to = nl < 0 ? buf.length : nl + 1;
  return true;
}

/** Candidate lines: every line holding a prefilter anchor, found in one pass over the buffer. */
export function candidateLines(buf: Buffer): Candidate[] {
  const out: Candidate[] = [];
  let lineNo = 0;
  let counted = 0; // lineNo is the line number of byte `counted`
  anchorLines(buf, (from, to) => {
    for (let i = buf.indexOf(10, counted); i >= 0 && i < from; i = buf.indexOf(10, i + 1)) lineNo++;
    counted = from;
    out.push({ index: lineNo, last: lineNo, from, to, ts: null });
  });
  return out;
}

/** Texts longer than this are cut down to their anchored lines before secretlint reads them. */
const WINDOW_MIN = 4096;
/** A PEM block is followed to its END line at most this far. */
const PEM_MAX = 16384;

/**
 * The parts of a decoded text that can hold a finding ([] if none): a short text whole if it holds
 * an anchor; of a long one, its lines (split on \n) that hold an anchor, a PEM block from its BEGIN
 * line to its END line. Every rule used reads within one line
 * except PEM blocks, so this finds the same as the whole text (checked in prefilter.test.ts), while
 * secretlint reads a few hundred bytes instead of a whole tool output.
 */
function windows(text: string): string[] {
  if (text.length < WINDOW_MIN) return hasAnchor(text) ? [text] : [];
  const b = Buffer.from(text, 'utf8');
  const out: string[] = [];
  let upTo = 0; // bytes before this are in a window already
  anchorLines(b, (from, to) => {
    if (from < upTo) return;
    let end = to;
    const begin = b.indexOf('-----BEGIN', from, 'latin1');
    if (begin >= 0 && begin < to) {
      const fin = b.indexOf('-----END', begin, 'latin1');
      if (fin >= 0 && fin - begin < PEM_MAX) {
        const nl = b.indexOf(10, fin);
        end = nl < 0 ? b.length : nl + 1;
      }
    }
    out.push(b.toString('utf8', from, end));
    upTo = end;
  });
  return out;
}

/** The base64 body of a PEM block (headers, blanks and JSON-escaped newlines dropped). */
function pemBody(pem: string): string {
  return pem.replace(/-----(?:BEGIN|END)[^-]*-----/g, '').replace(/\\n|\s/g, '');
}

/** The secret inside a secretlint report's range (some rules report the name or a whole URL). */
function secretOf(messageId: string, ruleShort: string, text: string, range: readonly [number, number]): string {
  const hit = text.slice(range[0], range[1]);
  if (messageId === 'AWSSecretAccessKey') {
    // The rule's range starts at the variable name; the key is the 40 characters after the operator.
    const m = /(?::|=>|=)\s*["']?([A-Za-z0-9/+=]{40})/.exec(text.slice(range[0], range[0] + 200));
    return m ? m[1] : hit;
  }
  if (messageId === 'PrivateKey') return pemBody(hit) || hit;
  if (messageId === 'PrivateKeyJSON') {
    // The whole service-account file: its key is the PEM in private_key (found by the PEM rule too,
    // and the same body makes the two one finding).
    try {
      const pk = (JSON.parse(text) as { private_key?: unknown }).private_key;
      if (typeof pk === 'string' && pemBody(pk)) return pemBody(pk);
    } catch {
      /* fall through */
    }
  }
  if (ruleShort === 'basicauth' || ruleShort === 'database-connection-string') {
    const m = /:\/\/[^:/\s]{1,256}:([^@/\s]{1,256})@/.exec(hit);
    return m ? m[1] : hit;
  }
  if (messageId === 'IncomingWebhook') {
    const m = /\/([A-Za-z0-9]+)$/.exec(hit);
    return m ? m[1] : hit;
  }
  return hit;
}

/** Every line of the buffer as a candidate: what the prefilter is checked against in tests. */
function everyLine(buf: Buffer): Candidate[] {
  const out: Candidate[] = [];
  let from = 0;
  for (let index = 0; from < buf.length; index++) {
    const nl = buf.indexOf(10, from);
    const to = nl < 0 ? buf.length : nl + 1;
    out.push({ index, last: index, from, to, ts: null });
    from = to;
  }
  return out;
}

export interface DetectOptions {
  /** Skip the prefilter: scan every line and every string (slow; the reference for tests). */
  noPrefilter?: boolean;
}

/** Scans one buffer of whole lines. `salt` keys the fingerprints. */
export async function detect(buf: Buffer, salt: string, stats?: DetectStats, opts: DetectOptions = {}): Promise<Hit[]> {
  return (await hitsOf(buf, salt, stats, opts)).map(({ value: _value, ...h }) => h);
}

/**
 * The secrets themselves, for the recall mask only (./redact): they are replaced in an answer
 * before it leaves the process, never written or kept beyond the process.
 */
export async function secretValues(buf: Buffer, salt: string): Promise<{ value: string; secret_id: string }[]> {
  const seen = new Map<string, string>();
  for (const h of await hitsOf(buf, salt)) seen.set(h.value, h.secret_id);
  return [...seen].map(([value, secret_id]) => ({ value, secret_id }));
}

async function hitsOf(buf: Buffer, salt: string, stats?: DetectStats, opts: DetectOptions = {}): Promise<(Hit & { value: string })[]> {
  const every = opts.noPrefilter === true;
  const cands = every ? everyLine(buf) : candidateLines(buf);
  if (stats) {
    stats.bytes += buf.length;
    stats.candidate_lines += cands.length;
  }
  if (cands.length === 0) return [];
  const texts = textsOf(buf, cands, every);
  if (texts.length === 0) return [];
  if (stats) {
    stats.texts += texts.length;
    for (const t of texts) stats.text_chars += t.s.length;
  }
  const raws = [...(await presetHits(buf, cands, texts)), ...extraRaws(texts)];
  return oneHitPerSecret(raws, texts, cands, salt);
}

/** The texts of the candidate lines (decodeLine: a JSON line's strings, or the raw line); a PEM
 * block that goes on over the next lines is one text, and those lines are skipped. */
function textsOf(buf: Buffer, cands: Candidate[], every: boolean): Text[] {
  const texts: Text[] = [];
  for (let i = 0; i < cands.length; i++) {
    const c = cands[i];
    if (c.skip) continue;
    const trim = (to: number) => {
      let end = to;
      if (end > c.from && buf[end - 1] === 10) end--;
      if (end > c.from && buf[end - 1] === 13) end--;
      return end;
    };
    let d = decodeLine(buf.toString('utf8', c.from, trim(c.to)), every);
    if (d.raw && extendPem(buf, c)) {
      d = { texts: [buf.toString('utf8', c.from, trim(c.to))], ts: null, raw: true };
      for (let j = i + 1; j < cands.length && cands[j].from < c.to; j++) cands[j].skip = true;
    }
    c.ts = d.ts;
    for (const s of d.texts) texts.push({ line: i, s });
  }
  return texts;
}

/** A detector's hit in text `t`, before one hit per secret per line is kept (rank: 0 preset,
 * 1 a named detector, 2 a generic assignment). */
type Raw = { rule: string; message_id: string; kind: SecretKind; label: string; t: number; value: string; rank: number };

/** secretlint's preset over the texts. */
async function presetHits(buf: Buffer, cands: Candidate[], texts: Text[]): Promise<Raw[]> {
  // One secretlint call for the chunk: the texts joined by a separator no rule reads across.
  const SEP = '\n\u0000\n';
  const starts: number[] = [];
  let pos = 0;
  for (const t of texts) {
    starts.push(pos);
    pos += t.s.length + SEP.length;
  }
  const content = texts.map((t) => t.s).join(SEP);
  const { lintSource, config } = await loadEngine();
  const res = await lintSource({
    source: { content, filePath: 'transcript.jsonl', ext: '.jsonl', contentType: 'text' },
    options: { config, maskSecrets: true, noPhysicFilePath: true },
  });
  const raws: Raw[] = [];
  for (const m of res.messages) {
    const ti = textAt(starts, m.range[0]);
    const local: [number, number] = [m.range[0] - starts[ti], Math.min(m.range[1] - starts[ti], texts[ti].s.length)];
    const short = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
    let { kind, label } = ruleInfo(m.ruleId, m.messageId);
    const value = secretOf(m.messageId, short, texts[ti].s, local);
    if (m.messageId === 'PrivateKey' || m.messageId === 'PrivateKeyJSON') {
      const head = /-----BEGIN ?((?:[A-Z]+ )?)PRIVATE KEY/.exec(texts[ti].s.slice(local[0], local[0] + 60));
      label = `${head?.[1] ?? ''}private key`.trim();
      // A PEM on a line holding a service-account JSON is that account's key: it is rotated there.
      const c = cands[texts[ti].line];
      const inLine = (w: string) => buf.subarray(c.from, c.to).includes(w, 0, 'latin1');
      if (inLine('private_key_id') || inLine('service_account')) {
        kind = 'gcp';
        label = 'GCP service-account private key';
      }
    }
    raws.push({ rule: m.ruleId, message_id: m.messageId, kind, label, t: ti, value, rank: 0 });
  }
  return raws;
}

/** The text an offset of the joined content falls in (`starts`: each text's first offset). */
function textAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The named detectors and the generic assignment (extra.ts) over the texts. */
function extraRaws(texts: Text[]): Raw[] {
  const raws: Raw[] = [];
  for (let ti = 0; ti < texts.length; ti++) {
    for (const h of extraHits(texts[ti].s)) {
      const rank = h.rule === `${EXTRA_RULE_PREFIX}env-assignment` ? 2 : 1;
      raws.push({ rule: h.rule, message_id: h.message_id, kind: h.kind, label: h.label, t: ti, value: texts[ti].s.slice(h.start, h.end), rank });
    }
  }
  return raws;
}

/** One finding per secret per line: the most specific rule wins (preset, then the named
 * detectors, then a generic assignment), and a generic hit that is part of a specific one goes. */
function oneHitPerSecret(raws: Raw[], texts: Text[], cands: Candidate[], salt: string): (Hit & { value: string })[] {
  const byLine = new Map<number, Raw[]>();
  for (const r of raws) {
    const li = texts[r.t].line;
    let a = byLine.get(li);
    if (!a) byLine.set(li, (a = []));
    a.push(r);
  }
  const out: (Hit & { value: string })[] = [];
  for (const [li, list] of byLine) {
    list.sort((a, b) => a.rank - b.rank);
    const kept: Raw[] = [];
    for (const r of list) {
      if (kept.some((k) => k.value === r.value || (r.rank > k.rank && (k.value.includes(r.value) || r.value.includes(k.value))))) continue;
      kept.push(r);
    }
    const c = cands[li];
    for (const r of kept) {
      out.push({
        rule: r.rule,
        message_id: r.message_id,
        kind: r.kind,
        label: r.label,
        preview: mask(r.value),
        secret_id: fingerprint(salt, r.value),
        line: c.index,
        line_last: c.last,
        from: c.from,
        to: c.to,
        line_ts: c.ts,
        value: r.value,
      });
    }
  }
  out.sort((a, b) => a.from - b.from || a.rule.localeCompare(b.rule));
  return out;
}
