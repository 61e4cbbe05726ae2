// Floor → cache. Reads manifest lines the cache has not seen yet, records them as chunks, loads
// the lines they claim into floor.raw_lines, moves floor.ingest_state forward and re-derives the
// derived tables of the files touched. Only bytes the manifest claims are read (the lake may hold
// bytes of a capture that died before its manifest line). Re-applying is harmless: every insert
// is keyed (chunks by manifest offset, lines by file, generation and byte offset).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIGINT, BOOLEAN, INTEGER, SMALLINT, VARCHAR, listValue, type DuckDBConnection } from '@duckdb/node-api';
import { hashRange } from '../floor/ranges';
import { lakeFileProblem } from '../index/lakepath';
import { ChunkAppender } from './append';
import { hashHex, readLines, scanFile, scanManifest, type FileScan, type ManifestEntry } from './lake';
import { laneRefreshSql, loadSql } from './sqlfiles';
import { registry } from '../agents';
import { rangeMasker, type LineMasker } from '../secrets/cachemask';

export interface IngestStats {
  manifestLines: number;
  badManifestLines: number;
  files: number;
  /** Lines loaded by DuckDB reading whole lake files itself (rebuild's fast path). */
  bulkFiles: number;
  /** Lines read and staged by the program (incremental updates, non-UTF-8 files). */
  stagedLines: number;
  bytes: number;
  /** Lake files the manifest names that could not be read as claimed. */
  problems: string[];
  manifestOffset: number;
}

export interface IngestOptions {
  /** Empty cache: every file starts at byte 0. */
  fromScratch: boolean;
  /** With fromScratch: let DuckDB read whole valid-UTF-8 files itself (default true). */
  bulk?: boolean;
  /** With bulk: the largest file DuckDB reads itself; bigger ones go through the line reader. */
  bulkMaxFileBytes?: number;
  /** Bytes of lake files per bulk statement (bounds DuckDB's memory for one statement). */
  bulkBatchBytes?: number;
  /** With fromScratch: lake bytes loaded before their derived rows are made (bounds memory). */
  deriveBatchBytes?: number;
  /** Called after each step with its name (timing). */
  trace?: (step: string) => void;
}

/** A statement of the load failed: the whole ingest stops with it (a file's own problem does not). */
class IngestSqlError extends Error {}

/** file_id of the floor document: sha256(machine_id:agent:path)[:32], agent being the lane code. */
export function fileIdOf(machine: string, lane: string, originPath: string): string {
  return createHash('sha256').update(`${machine}:${lane}:${originPath}`).digest('hex').slice(0, 32);
}

interface Bulk {
  g: Gen;
  abs: string;
  size: number;
  isLatest: boolean;
}

interface Gen {
  fileId: string;
  gen: number;
  lane: string;
  lakePath: string;
  claimedEnd: number;
}

/** captured_at (µs) of a file generation's chunks, by byte_from ascending. */
type ChunkTimes = { from: number[]; us: bigint[] };

const STAGE_FLUSH_ROWS = 50_000;
// Staged text held before it goes into floor.line_store: DuckDB copies it a few times on the way.
const STAGE_FLUSH_BYTES = 8 << 20;
// read_text holds a whole file as one value, string_split a second copy of it, and the insert
// more (parsed, compressed): a 50 MB file loaded so raised a rebuild's peak by 250 MB. Bigger
// files go through the program's line reader, which holds STAGE_FLUSH_BYTES of lines at a time.
const BULK_MAX_FILE = 32 << 20;
// Lake bytes per bulk statement, and lake bytes loaded before their files' rows are derived. At
// 1 GB (idle 2-core VM, same session, with the allocator handing memory back): 32/64 MB peaked at
// 657 MB RSS in 234 s; 16/16 MB at 658 MB in 283 s (each derive step has a fixed cost); without
// the allocator flush 32/64 MB took 149 s but 1,022 MB.
// Since each refresh holds its files' parsed lines in temporary tables (sql/ops/refresh_derived.sql),
// 64 MB derive batches (three load batches) ran out of DuckDB's 384 MB at 1 GB: 32 MB (two).
const BULK_BATCH = 32 << 20;
const DERIVE_BATCH = 32 << 20;

export async function readMeta(conn: DuckDBConnection): Promise<Map<string, string>> {
  const r = await conn.runAndReadAll('SELECT key, value FROM floor.cache_meta');
  return new Map(r.getRows().map((row) => [String(row[0]), String(row[1])]));
}

async function setMeta(conn: DuckDBConnection, key: string, value: string): Promise<void> {
  await conn.run('INSERT OR REPLACE INTO floor.cache_meta VALUES ($k, $v)', { k: key, v: value });
}

/** The manifest check value: sha256 of the last consumed manifest line's bytes. */
export function manifestCheck(manifest: string, lastStart: number, end: number): string {
  return lastStart < 0 || end <= lastStart ? '' : hashRange(manifest, lastStart, end);
}

export async function ingest(
  conn: DuckDBConnection,
  home: string,
  from: { offset: number },
  opts: IngestOptions,
): Promise<IngestStats> {
  const manifest = path.join(home, 'manifest', 'manifest.jsonl');
  const scan = scanManifest(manifest, from.offset);
  const stats: IngestStats = {
    manifestLines: scan.entries.length,
    badManifestLines: scan.bad,
    files: 0,
    bulkFiles: 0,
    stagedLines: 0,
    bytes: 0,
    problems: [],
    manifestOffset: scan.end,
  };
  if (scan.end === from.offset) return stats;

  await conn.run(loadSql('ops', 'stage_tables'));

  // 1. The manifest lines themselves.
  const gens = await ingestChunks(conn, scan.entries, opts.fromScratch);
  const lap = opts.trace ?? (() => undefined);
  lap(`chunks (${scan.entries.length} manifest lines)`);
  const run: IngestRun = { conn, home, opts, stats, lap };

  // 2. Where each touched (file, generation) stands.
  const fileIds = [...new Set([...gens.values()].map((g) => g.fileId))];
  stats.files = fileIds.length;
  const state = !opts.fromScratch && fileIds.length > 0 ? await ingestState(conn, fileIds) : new Map<string, FileState>();

  // 3. Lines.
  const stager = await lineStager(conn, stats);
  const latest = new Map<string, number>();
  for (const g of gens.values()) latest.set(g.fileId, Math.max(latest.get(g.fileId) ?? 0, g.gen));
  const bulk: Bulk[] = [];

  // In file_id order: rows of neighbouring file_ids then sit in the same row groups, so the
  // per-batch refresh below (a semi-join on file_id) skips the others by their min/max.
  const seenDirs = new Set<string>();
  const ordered = [...gens.values()].sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : a.gen - b.gen));
  for (const g of ordered) {
    const b = await stageGeneration(run, stager, g, state.get(g.fileId), latest, seenDirs);
    if (b) bulk.push(b);
  }
  await stager.flushLines();
  // The state first: the views (v_live) read a file's generation from it.
  await stager.flushState();
  lap(`scan + staged lines (${stats.stagedLines})`);

  const derive = refresher(conn);
  const unbulked = bulk.length > 0 ? await loadBulk(run, stager, bulk, from.offset, derive.refresh) : [];
  lap(`bulk (${bulk.length} files)`);
  for (const b of unbulked) {
    try {
      await stager.stageRange(b.g, b.abs, 0, 1, b.isLatest, null); // found to hold no secret before it was bulked
    } catch (e) {
      if (e instanceof IngestSqlError) throw e;
      stats.problems.push(`${b.g.lakePath} (generation ${b.g.gen}): ${(e as Error).message}`);
    }
    derive.refreshed.delete(b.g.fileId);
  }
  await stager.flushLines();
  stager.lineApp.close();
  await stager.flushState();
  stager.stateApp.close();
  if (unbulked.length > 0) lap(`line reader after bulk (${unbulked.length} files)`);

  // 4. Derived tables of the other touched files, in batches of about the same size.
  await deriveRest(ordered.filter((g) => !derive.refreshed.has(g.fileId)), opts.deriveBatchBytes ?? DERIVE_BATCH, derive.refresh);
  lap('derived');

  lap('derived done');
  await setMeta(conn, 'manifest_offset', String(scan.end));
  await setMeta(conn, 'manifest_check', manifestCheck(manifest, scan.lastStart, scan.end));
  await setMeta(conn, 'manifest_check_from', String(scan.lastStart));
  return stats;
}

/** What the steps of one ingest share. */
interface IngestRun {
  conn: DuckDBConnection;
  home: string;
  opts: IngestOptions;
  stats: IngestStats;
  lap: (step: string) => void;
}

/** Where a file's newest stored generation stands in floor.ingest_state. */
interface FileState {
  gen: number;
  offset: number;
  lineNo: number;
}

/** Step 1: stages the manifest lines as chunks; returns the (file, generation)s they claim. */
async function ingestChunks(conn: DuckDBConnection, entries: ManifestEntry[], fromScratch: boolean): Promise<Map<string, Gen>> {
  const gens = new Map<string, Gen>();
  const chunkApp = await ChunkAppender.temp(conn, 'stage_chunks', [
    BIGINT, VARCHAR, SMALLINT, VARCHAR, VARCHAR, VARCHAR, BIGINT, BIGINT, INTEGER, INTEGER, VARCHAR,
    VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR, BOOLEAN,
  ]);
  // A lake file is one document whatever machine name its later lines carry (a renamed host, a
  // hook run without the editor's BRAIN_MACHINE): its file_id is fixed by the first line that
  // claimed its origin. Otherwise its later lines made a second document, read from byte 0.
  const origins = fromScratch ? new Map<string, string>() : await knownOrigins(conn, entries);
  for (const e of entries) stageChunk(chunkApp, e, gens, origins);
  chunkApp.close();
  await conn.run(loadSql('ops', 'ingest_chunks'));
  return gens;
}

/** Step 2: floor.ingest_state of the touched files. */
async function ingestState(conn: DuckDBConnection, fileIds: string[]): Promise<Map<string, FileState>> {
  const state = new Map<string, FileState>();
  const touched = await ChunkAppender.temp(conn, 'touched_files', [VARCHAR]);
  for (const f of fileIds) touched.push([f]);
  touched.close();
  const r = await conn.runAndReadAll(
    `SELECT s.file_id, s.witness_gen, s.last_offset, s.last_line_no
     FROM floor.ingest_state s JOIN touched_files t USING (file_id)`,
  );
  for (const row of r.getRows()) {
    state.set(String(row[0]), { gen: Number(row[1]), offset: Number(row[2]), lineNo: Number(row[3]) });
  }
  await conn.run('DELETE FROM touched_files');
  return state;
}

/** The program's line reader and the staging tables it fills (stage_lines, stage_state). */
interface LineStager {
  lineApp: ChunkAppender;
  stateApp: ChunkAppender;
  flushLines(): Promise<void>;
  flushState(): Promise<void>;
  /** Bytes [start, claimedEnd) of a generation, staged line by line. */
  stageRange(g: Gen, abs: string, start: number, lineNo: number, isLatest: boolean, mask: LineMasker | null): Promise<void>;
}

async function lineStager(conn: DuckDBConnection, stats: IngestStats): Promise<LineStager> {
  const lineApp = await ChunkAppender.temp(conn, 'stage_lines', [
    VARCHAR, SMALLINT, BIGINT, INTEGER, VARCHAR, VARCHAR, INTEGER, BOOLEAN, VARCHAR, VARCHAR,
  ]);
  const stateApp = await ChunkAppender.temp(conn, 'stage_state', [VARCHAR, SMALLINT, BIGINT, BIGINT, INTEGER, VARCHAR]);
  let stagedBytes = 0;
  const flushLines = async () => {
    lineApp.flush();
    if (lineApp.rows > 0) {
      // Not one file's problem (the loop below notes those and goes on): the statement failed,
      // and in an update's transaction every later one would fail with "transaction is aborted",
      // hiding this message.
      try {
        await conn.run(loadSql('ops', 'ingest_lines'));
      } catch (e) {
        throw new IngestSqlError(`loading staged lines into floor.line_store failed: ${(e as Error).message}`);
      }
      await conn.run('DELETE FROM stage_lines');
    }
    lineApp.rows = 0;
    stagedBytes = 0;
  };
  const flushState = async () => {
    stateApp.flush();
    if (stateApp.rows > 0) {
      await conn.run(loadSql('ops', 'ingest_state'));
      await conn.run('DELETE FROM stage_state');
    }
    stateApp.rows = 0;
  };
  const stageRange = async (g: Gen, abs: string, start: number, lineNo: number, isLatest: boolean, mask: LineMasker | null) => {
    let lastOffset = start;
    let lastLine = lineNo - 1;
    for (const l of readLines(abs, start, g.claimedEnd, lineNo)) {
      let text = l.text;
      let sha = l.sha256;
      if (mask) {
        // Stored masked: the line's own hash and length are kept beside it (the floor's).
        const t = mask(text);
        if (t !== text) {
          sha ??= hashHex(Buffer.from(text, 'utf8'));
          text = t;
        }
      }
      lineApp.push([
        g.fileId, g.gen, BigInt(l.byteOffset), l.lineNo, text, sha, l.nBytes, l.utf8Replaced,
        g.lane, g.lane,
      ]);
      stats.stagedLines++;
      stagedBytes += l.nBytes;
      if (l.terminated) {
        lastOffset = l.byteOffset + l.nBytes;
        lastLine = l.lineNo;
      }
      if (lineApp.rows >= STAGE_FLUSH_ROWS || stagedBytes >= STAGE_FLUSH_BYTES) await flushLines();
    }
    if (isLatest) {
      stateApp.push([g.fileId, g.gen, BigInt(g.claimedEnd), BigInt(lastOffset), lastLine, hashRange(abs, 0, lastOffset)]);
    }
  };
  return { lineApp, stateApp, flushLines, flushState, stageRange };
}

/** Where reading a generation starts: after its stored lines. */
async function startOf(conn: DuckDBConnection, g: Gen, st: FileState | undefined): Promise<{ start: number; lineNo: number }> {
  let start = 0;
  let lineNo = 1;
  if (st && st.gen === g.gen) {
    start = st.offset;
    lineNo = st.lineNo + 1;
  } else if (st && st.gen > g.gen) {
    // A late chunk of an older generation: re-read from its last stored line.
    const r = await conn.runAndReadAll(
      `SELECT byte_offset, line_no FROM floor.raw_lines WHERE file_id = $f AND witness_gen = $g
       ORDER BY byte_offset DESC LIMIT 1`,
      { f: g.fileId, g: g.gen },
    );
    const row = r.getRows()[0];
    if (row) {
      start = Number(row[0]);
      lineNo = Number(row[1]);
    }
  }
  return { start, lineNo };
}

/** Step 3 for one generation: stages its new lines, or returns it for DuckDB to read whole (bulk).
 * A file's own problem is noted in stats and the ingest goes on. */
async function stageGeneration(
  run: IngestRun,
  stager: LineStager,
  g: Gen,
  st: FileState | undefined,
  latest: Map<string, number>,
  seenDirs: Set<string>,
): Promise<Bulk | undefined> {
  const { home, opts, stats } = run;
  const abs = path.join(home, g.lakePath);
  const { start, lineNo } = await startOf(run.conn, g, st);
  const isLatest = latest.get(g.fileId) === g.gen && (!st || st.gen <= g.gen);
  // The guard the turn index and recall use: a lake file replaced by a symlink (or a manifest
  // naming `..`) is named and not read, so the cache never holds bytes from outside the floor.
  const why = lakeFileProblem(home, g.lakePath, seenDirs);
  if (why) {
    stats.problems.push(`${g.lakePath} (generation ${g.gen}): ${why}: refused, not read (brain verify names it)`);
    return undefined;
  }
  try {
    if (opts.fromScratch && start === 0) {
      const size = fs.statSync(abs).size;
      if (size < g.claimedEnd) throw new Error(`${abs} has ${size} bytes, the manifest claims ${g.claimedEnd}`);
      stats.bytes += g.claimedEnd;
      const mask = await rangeMasker(home, abs, 0, g.claimedEnd);
      // DuckDB reads a file itself only when it holds no secret: one that does goes through the
      // line reader, which stores its lines masked.
      if (!mask && opts.bulk !== false && size <= (opts.bulkMaxFileBytes ?? BULK_MAX_FILE)) {
        return { g, abs, size, isLatest };
      }
      await stager.stageRange(g, abs, start, lineNo, isLatest, mask);
      return undefined;
    }
    stats.bytes += g.claimedEnd - start;
    await stager.stageRange(g, abs, start, lineNo, isLatest, await rangeMasker(home, abs, start, g.claimedEnd));
  } catch (e) {
    if (e instanceof IngestSqlError) throw e;
    stats.problems.push(`${g.lakePath} (generation ${g.gen}): ${(e as Error).message}`);
  }
  return undefined;
}

/** Re-derives the derived tables of files, remembering which. */
function refresher(conn: DuckDBConnection): { refreshed: Set<string>; refresh: (ids: string[]) => Promise<void> } {
  const refreshed = new Set<string>();
  // The touched files by lane, with every other form of their sessions where an agent writes a
  // session in several (sql/10_dialects.sql, dialects.other_forms): which form is the session's
  // can change when one of them grows. (Those are not marked refreshed: lines of theirs still to
  // come in this run re-derive them again.)
  const lanes = registry()
    .list.filter((a) => a.forms)
    .map((a) => `'${a.lane}'`);
  const withForms = `SELECT f.lane, list(DISTINCT g.file_id) FROM touched_files t JOIN floor.files f USING (file_id)
    JOIN floor.files g ON g.file_id = f.file_id
      OR (list_contains([${lanes.join(', ')}]::VARCHAR[], f.lane) AND g.lane = f.lane AND g.machine_id = f.machine_id AND g.session_hint = f.session_hint)
    GROUP BY f.lane ORDER BY f.lane`;
  // One agent at a time, through its own copies of the derived views (laneRefreshSql): a plan over
  // every agent's views at once held memory for each of them.
  const refresh = async (ids: string[]) => {
    if (ids.length === 0) return;
    const touched = await ChunkAppender.temp(conn, 'touched_files', [VARCHAR]);
    for (const f of ids) touched.push([f]);
    touched.close();
    const byLane = (await conn.runAndReadAll(withForms)).getRows() as [string, { items: string[] }][];
    await conn.run('DELETE FROM touched_files');
    for (const [lane, list] of byLane) {
      const mine = await ChunkAppender.temp(conn, 'touched_files', [VARCHAR]);
      for (const f of list.items) mine.push([f]);
      mine.close();
      await conn.run(laneRefreshSql(lane));
      await conn.run('DELETE FROM touched_files');
    }
    for (const f of ids) refreshed.add(f);
  };
  return { refreshed, refresh };
}

/** Bulk: DuckDB reads and splits whole files, a batch at a time; the program gives each line's
 * offset, length and captured_at, and checks the file is UTF-8 (read_text refuses it
 * otherwise), in one pass over each file (no line is hashed: floor.raw_lines hashes a line when
 * it is read). Returns the files that are not UTF-8, or whose claim ends inside a line: they go
 * through the line reader after. */
async function loadBulk(run: IngestRun, stager: LineStager, bulk: Bulk[], fromOffset: number, refresh: (ids: string[]) => Promise<void>): Promise<Bulk[]> {
  const { conn, opts, stats, lap } = run;
  const unbulked: Bulk[] = [];
  const times = await chunkTimes(conn, fromOffset);
  const batchBytes = opts.bulkBatchBytes ?? BULK_BATCH;
  const bulkSql = loadSql('ops', 'ingest_bulk');
  const deriveBytes = opts.deriveBatchBytes ?? DERIVE_BATCH;
  const pendingDerive = new Set<string>();
  let pendingBytes = 0;
  for (let i = 0; i < bulk.length; ) {
    let size = 0;
    const batch: Bulk[] = [];
    while (i < bulk.length && (batch.length === 0 || size + bulk[i].size <= batchBytes)) {
      size += bulk[i].size;
      batch.push(bulk[i++]);
    }
    const taken = await stageBulkBatch(conn, stats, stager, batch, times, unbulked);
    await stager.flushState();
    lap(`bulk batch ${taken.length} files, ${size} bytes: read`);
    if (taken.length > 0) await conn.run(bulkSql, { paths: listValue(taken.map((b) => b.abs)) });
    lap('bulk batch: sql');
    await conn.run('DELETE FROM bulk_files; DELETE FROM bulk_lines;');
    stats.bulkFiles += taken.length;
    // Derive once DERIVE_BATCH bytes are loaded (and after the last batch), while their rows
    // are fresh: what DuckDB holds stays bounded whatever the floor's size, and each view reads
    // the row groups of those files once (per load batch it read them again in every view). A
    // file whose newest generation comes in a later batch is derived again then.
    for (const b of taken) pendingDerive.add(b.g.fileId);
    pendingBytes += size;
    if (pendingBytes >= deriveBytes || i >= bulk.length) {
      await refresh([...pendingDerive]);
      pendingDerive.clear();
      pendingBytes = 0;
      lap('bulk batch: derived');
    }
  }
  return unbulked;
}

/** One bulk batch: scans each file, stages bulk_files and bulk_lines (and the newest generations'
 * state); returns the files DuckDB is to read, and adds the others to unbulked. */
async function stageBulkBatch(
  conn: DuckDBConnection,
  stats: IngestStats,
  stager: LineStager,
  batch: Bulk[],
  times: Map<string, ChunkTimes>,
  unbulked: Bulk[],
): Promise<Bulk[]> {
  const files = await ChunkAppender.temp(conn, 'bulk_files', [INTEGER, VARCHAR, VARCHAR, SMALLINT, VARCHAR, VARCHAR]);
  const lines = await ChunkAppender.temp(conn, 'bulk_lines', [INTEGER, INTEGER, BIGINT, INTEGER, BIGINT]);
  const taken: Bulk[] = [];
  batch.forEach((b, idx) => {
    const t = times.get(`${b.g.fileId}\0${b.g.gen}`) ?? { from: [0], us: [0n] };
    let k = 0;
    let sc: FileScan;
    try {
      sc = scanFile(b.abs, b.g.claimedEnd, (lineNo, off, n) => {
        // The chunk holding the line's last byte.
        const last = off + n - 1;
        while (k + 1 < t.from.length && t.from[k + 1] <= last) k++;
        lines.push([idx, lineNo, BigInt(off), n, t.us[k]]);
      });
    } catch (e) {
      stats.problems.push(`${b.g.lakePath} (generation ${b.g.gen}): ${(e as Error).message}`);
      return;
    }
    // Rows of a file left out stay in bulk_lines without a bulk_files row: the join drops them.
    if (!sc.utf8 || sc.cutTail) {
      unbulked.push(b);
      return;
    }
    files.push([idx, b.abs, b.g.fileId, b.g.gen, b.g.lane, b.g.lane]);
    if (b.isLatest) stager.stateApp.push([b.g.fileId, b.g.gen, BigInt(b.g.claimedEnd), BigInt(sc.lastOffset), sc.lines, sc.prefixSha256]);
    taken.push(b);
  });
  files.close();
  lines.close();
  return taken;
}

/** Step 4: derives the files no bulk batch derived, in batches of about batchBytes of lake. */
async function deriveRest(rest: Gen[], batchBytes: number, refresh: (ids: string[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rest.length; ) {
    const ids = new Set<string>();
    let size = 0;
    while (i < rest.length && (ids.size === 0 || size + rest[i].claimedEnd <= batchBytes)) {
      size += rest[i].claimedEnd;
      ids.add(rest[i++].fileId);
    }
    await refresh([...ids]);
  }
}

async function chunkTimes(conn: DuckDBConnection, fromOffset: number): Promise<Map<string, ChunkTimes>> {
  const r = await conn.runAndReadAll(
    `SELECT file_id, witness_gen, byte_from, epoch_us(captured_at) FROM floor.chunks
     WHERE manifest_offset >= $o ORDER BY file_id, witness_gen, byte_from`,
    { o: BigInt(fromOffset) },
  );
  const out = new Map<string, ChunkTimes>();
  for (const [f, g, b, us] of r.getRows()) {
    const key = `${f}\0${g}`;
    let t = out.get(key);
    if (!t) out.set(key, (t = { from: [], us: [] }));
    t.from.push(Number(b));
    t.us.push(BigInt(us as bigint));
  }
  return out;
}

/** file_id of each origin (lane, origin path) of these lines that the cache already holds. */
async function knownOrigins(conn: DuckDBConnection, entries: ManifestEntry[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const app = await ChunkAppender.temp(conn, 'touched_origins', [VARCHAR, VARCHAR]);
  const seen = new Set<string>();
  for (const { line: m } of entries) {
    const k = originKey(m.lane, m.origin_path);
    if (seen.has(k)) continue;
    seen.add(k);
    app.push([m.lane, m.origin_path]);
  }
  app.close();
  const r = await conn.runAndReadAll(
    `SELECT f.lane, f.abs_path, arg_min(f.file_id, f.first_seen) FROM floor.files f
     JOIN touched_origins t ON t.lane = f.lane AND t.origin_path = f.abs_path GROUP BY ALL`,
  );
  for (const [lane, origin, id] of r.getRows()) out.set(originKey(String(lane), String(origin)), String(id));
  await conn.run('DELETE FROM touched_origins');
  return out;
}

function originKey(lane: string, originPath: string): string {
  return `${lane}\0${originPath}`;
}

function stageChunk(app: ChunkAppender, e: ManifestEntry, gens: Map<string, Gen>, origins: Map<string, string>): void {
  const m = e.line;
  const ok = originKey(m.lane, m.origin_path);
  let fileId = origins.get(ok);
  if (fileId === undefined) origins.set(ok, (fileId = fileIdOf(m.machine_id, m.lane, m.origin_path)));
  app.push([
    BigInt(e.offset), fileId, m.gen, m.lane, m.agent, m.session ?? null, BigInt(m.byte_from), BigInt(m.byte_to),
    m.line_from, m.line_to, m.chunk_sha256, m.captured_at ?? null, m.event_ts_first ?? null, m.machine_id,
    m.origin_path, m.source ?? null, m.lake_path, m.unterminated === true,
  ]);
  const key = `${fileId}\0${m.gen}`;
  const g = gens.get(key);
  if (g) {
    g.claimedEnd = Math.max(g.claimedEnd, m.byte_to);
    g.lakePath = m.lake_path;
  } else {
    gens.set(key, { fileId, gen: m.gen, lane: m.lane, lakePath: m.lake_path, claimedEnd: m.byte_to });
  }
}

