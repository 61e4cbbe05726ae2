// Scans what the floor captured, never the whole floor again: each manifest line names one chunk
// (a byte range of a lake file), and exactly that range is read and scanned. The floor is only
// read: nothing here opens a lake file for writing.
//   scanNewChunks(home, lines)  the chunks a capture pass just applied (ApplyResult.applied)
//   scanPending(home)           every manifest line past the last one scanned (catch-up)
//   rescanAll(home)             the whole manifest again (`brain secrets --rescan` only)
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { within } from '../safepath';
import { openRegular } from '../safeopen';
import { layout } from '../home';
import { waitLock } from '../floor/lock';
import { readManifest, type ManifestLine } from '../floor/manifest';
import { countNewlines } from '../floor/ranges';
import { emptyCache, readCache, writeCache, type SecretFinding, type SecretsCache } from './cache';
import { detect, type DetectStats } from './detect';

export interface ScanReport {
  /** False when another process held the scan lock (it scans the same chunks). */
  ran: boolean;
  chunks: number;
  bytes: number;
  ms: number;
  /** CPU time of the pass (user + system), apart from waiting for the disk or other processes. */
  cpu_ms: number;
  /** Findings added by this pass (not counting ones already known). */
  added: SecretFinding[];
  total: number;
  candidate_lines: number;
  errors: number;
}

/** Largest block read at once: a chunk may be a whole session of hundreds of MB. */
const BLOCK = 8 << 20;
/** Save progress this often during a long scan, so a stopped scan resumes near where it was. */
const SAVE_EVERY_BYTES = 256 << 20;
const LOCK_WAIT_MS = 15_000;

function chunkKey(m: ManifestLine): string {
  return `${m.lake_path}@${m.byte_from}`;
}

function findingId(lakePath: string, line: number, rule: string, secretId: string): string {
  return createHash('sha256').update(`${lakePath}\0${line}\0${rule}\0${secretId}`).digest('hex').slice(0, 16);
}

interface Pass {
  cache: SecretsCache;
  known: Set<string>;
  report: ScanReport;
  stats: DetectStats;
  now: string;
  sinceSave: number;
  cpu0: NodeJS.CpuUsage;
}

function newPass(cache: SecretsCache): Pass {
  return {
    cache,
    known: new Set(cache.findings.map((f) => f.id)),
    report: { ran: true, chunks: 0, bytes: 0, ms: 0, cpu_ms: 0, added: [], total: 0, candidate_lines: 0, errors: 0 },
    cpu0: process.cpuUsage(),
    stats: { bytes: 0, candidate_lines: 0, texts: 0, text_chars: 0 },
    now: new Date().toISOString(),
    sinceSave: 0,
  };
}

/** Reads exactly [byte_from, byte_to) of the chunk's lake file, in blocks of whole lines. */
async function scanChunk(home: string, m: ManifestLine, p: Pass, firstSeen: Map<string, string>): Promise<void> {
  const file = path.join(home, m.lake_path);
  let fd: number;
  try {
    // The manifest names the file; a symlink planted on its way is reported, not read through.
    fd = openRegular(within(home, m.lake_path, { what: 'lake_path', disk: true, file: true }));
  } catch (e) {
    p.report.errors++;
    p.cache.errors.push({ lake_path: m.lake_path, byte_from: m.byte_from, message: (e as Error).message });
    return;
  }
  try {
    // A PEM block whose BEGIN line came with an earlier chunk of this file (a plain-text transcript
    // captured while the key was being written): start at that line, so the block is read whole.
    const carry = m.byte_from > 0 ? openPemBefore(fd, m.byte_from) : null;
    let pos = carry ? carry.pos : m.byte_from;
    let lineNo = carry ? m.line_from - carry.lines : m.line_from;
    let buf = Buffer.allocUnsafe(Math.min(BLOCK, Math.max(1, m.byte_to - pos)));
    while (pos < m.byte_to) {
      // Fill the buffer; grow it while a single line is longer than the block.
      let len = 0;
      let cut = 0;
      for (;;) {
        const want = Math.min(buf.length, m.byte_to - pos);
        while (len < want) {
          const n = fs.readSync(fd, buf, len, want - len, pos + len);
          if (n === 0) throw new Error(`${file} ends at byte ${pos + len}, before the manifest's ${m.byte_to}`);
          len += n;
        }
        cut = buf.lastIndexOf(10, len - 1) + 1;
        if (pos + len === m.byte_to) cut = len; // the chunk's end is a line end (or its unterminated tail)
        if (cut > 0) break;
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const part = buf.subarray(0, cut);
      const hits = await detect(part, p.cache.salt, p.stats);
      for (const h of hits) {
        const line = lineNo + h.line;
        const id = findingId(m.lake_path, line, h.rule, h.secret_id);
        if (p.known.has(id)) continue;
        p.known.add(id);
        const f: SecretFinding = {
          id,
          rule: h.rule,
          message_id: h.message_id,
          kind: h.kind,
          label: h.label,
          preview: h.preview,
          secret_id: h.secret_id,
          citation: {
            machine: m.machine_id,
            lake_path: m.lake_path,
            gen: m.gen,
            line_from: line,
            line_to: lineNo + h.line_last,
            byte_from: pos + h.from,
            byte_to: pos + h.to,
            sha256: createHash('sha256').update(part.subarray(h.from, h.to)).digest('hex'),
          },
          lane: m.lane,
          agent: m.agent,
          session: m.session,
          origin_path: m.origin_path,
          captured_at: m.captured_at,
          line_ts: h.line_ts,
          first_seen: firstSeen.get(id) ?? p.now,
        };
        p.cache.findings.push(f);
        p.report.added.push(f);
      }
      lineNo += countNewlines(part);
      // Bytes of this chunk only (not the earlier lines read again for a PEM block).
      const own = Math.max(0, pos + cut - Math.max(pos, m.byte_from));
      pos += cut;
      p.report.bytes += own;
      p.sinceSave += own;
    }
  } catch (e) {
    p.report.errors++;
    p.cache.errors.push({ lake_path: m.lake_path, byte_from: m.byte_from, message: (e as Error).message });
  } finally {
    fs.closeSync(fd);
  }
  p.report.chunks++;
}

/** How far back an unfinished PEM block is looked for (the detector follows one this far too). */
const PEM_LOOKBACK = 16384;

/** Where the last line opening a PEM block before `byteFrom` starts, and how many lines before
 * `byteFrom` that is, when the block has no END line before `byteFrom`; else null. */
function openPemBefore(fd: number, byteFrom: number): { pos: number; lines: number } | null {
  const n = Math.min(PEM_LOOKBACK, byteFrom);
  const b = Buffer.allocUnsafe(n);
  let len = 0;
  while (len < n) {
    const r = fs.readSync(fd, b, len, n - len, byteFrom - n + len);
    if (r === 0) return null;
    len += r;
  }
  const begin = b.lastIndexOf('-----BEGIN', n, 'latin1');
  if (begin < 0 || b.indexOf('-----END', begin, 'latin1') >= 0) return null;
  const start = b.lastIndexOf(10, begin) + 1;
  // The line began before the window: a line that long is not a PEM header line.
  if (start === 0 && n < byteFrom) return null;
  return { pos: byteFrom - n + start, lines: countNewlines(b, start, n) };
}

function finish(home: string, p: Pass, t0: number): ScanReport {
  const ms = performance.now() - t0;
  p.report.ms = ms;
  const cpu = process.cpuUsage(p.cpu0);
  p.report.cpu_ms = (cpu.user + cpu.system) / 1000;
  p.report.total = p.cache.findings.length;
  p.report.candidate_lines = p.stats.candidate_lines;
  p.cache.errors = p.cache.errors.slice(-50);
  p.cache.stats = {
    chunks: p.cache.stats.chunks + p.report.chunks,
    bytes: p.cache.stats.bytes + p.report.bytes,
    ms: p.cache.stats.ms + ms,
    last_scan: p.now,
  };
  writeCache(home, p.cache);
  return p.report;
}

export interface ScanOptions {
  /** How long to wait for another scan to finish (ms); 0 tries once. Default 15 s. */
  waitMs?: number;
}

async function locked<T>(home: string, fn: () => Promise<T>, busy: () => T, waitMs = LOCK_WAIT_MS): Promise<T> {
  const lock = await waitLock(layout(home).locks, 'secrets', waitMs);
  if (!lock) return busy();
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

const notRun = (): ScanReport => ({ ran: false, chunks: 0, bytes: 0, ms: 0, cpu_ms: 0, added: [], total: 0, candidate_lines: 0, errors: 0 });

/** Scans exactly the chunks of these manifest lines (as a capture pass returns them). */
export async function scanNewChunks(home: string, lines: ManifestLine[], opts: ScanOptions = {}): Promise<ScanReport> {
  if (lines.length === 0) return notRun();
  return locked(
    home,
    async () => {
      const t0 = performance.now();
      const { cache } = readCache(home);
      const p = newPass(cache);
      const ahead = new Set(cache.ahead);
      for (const m of lines) {
        const k = chunkKey(m);
        if (ahead.has(k)) continue;
        await scanChunk(home, m, p, new Map());
        ahead.add(k);
      }
      cache.ahead = [...ahead];
      return finish(home, p, t0);
    },
    notRun,
    opts.waitMs,
  );
}

async function scanFrom(home: string, cache: SecretsCache, firstSeen: Map<string, string>, t0: number): Promise<ScanReport> {
  const l = layout(home);
  const r = readManifest(l.manifest, cache.scanned_to);
  const p = newPass(cache);
  const ahead = new Set(cache.ahead);
  for (const m of r.lines) {
    const k = chunkKey(m);
    if (ahead.delete(k)) continue; // scanned already, right after its capture
    await scanChunk(home, m, p, firstSeen);
    if (p.sinceSave >= SAVE_EVERY_BYTES) {
      // Progress so far: the lines before this one are done. The manifest offset of a line is not
      // kept by readManifest, so record the chunks as "ahead" instead of moving scanned_to.
      cache.ahead = [...ahead, ...r.lines.slice(0, r.lines.indexOf(m) + 1).map(chunkKey)];
      writeCache(home, cache);
      p.sinceSave = 0;
    }
  }
  cache.scanned_to = r.length;
  // Every chunk scanNewChunks saw is in the manifest by now (the applier writes the manifest line
  // before it returns the chunk), so what is left in `ahead` lies before scanned_to: done.
  cache.ahead = [];
  return finish(home, p, t0);
}

/** Scans every manifest line past the last scanned position. Cheap when nothing is new. */
export async function scanPending(home: string, opts: ScanOptions = {}): Promise<ScanReport> {
  return locked(
    home,
    async () => {
      const t0 = performance.now();
      const { cache } = readCache(home);
      let size = 0;
      try {
        size = fs.statSync(layout(home).manifest).size;
      } catch {
        /* no manifest yet */
      }
      if (size < cache.scanned_to) {
        // The manifest is shorter than what was scanned: this is not the floor the cache was
        // built from (BRAIN_HOME re-created). Start over.
        return scanFrom(home, emptyCache(cache.salt), new Map(), t0);
      }
      if (size === cache.scanned_to && cache.stats.last_scan) return { ...notRun(), ran: true, total: cache.findings.length };
      return scanFrom(home, cache, new Map(), t0);
    },
    notRun,
    opts.waitMs,
  );
}

/** Drops every finding and scans the whole manifest again (`brain secrets --rescan`). The first
 * time each finding was seen is kept. */
export async function rescanAll(home: string, opts: ScanOptions = {}): Promise<ScanReport> {
  return locked(
    home,
    async () => {
      const t0 = performance.now();
      const { cache } = readCache(home);
      const firstSeen = new Map(cache.findings.map((f) => [f.id, f.first_seen]));
      return scanFrom(home, emptyCache(cache.salt), firstSeen, t0);
    },
    notRun,
    opts.waitMs,
  );
}
