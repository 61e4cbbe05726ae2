// A locked pass writes new bytes straight into their lake files: each byte is written once, and a
// batch of files costs one flush instead of a spool file, a rename and an unlink each. The batch's
// journal (spool/_journal/<id>.jsonl) accounts for every byte written past the claims: before a
// lake file is written it says where the write starts, after it (at the latest when the batch
// commits, once the chunk's hash is done) the chunk (manifest line and offsets) the bytes make.
// Saying a chunk late only widens what a kill leaves unsaid, and what is unsaid is cut, not
// claimed. The batch is committed in the floor's order: lake and journal flushed, then the
// manifest lines, then the offsets, then the journal removed. A pass killed anywhere
// leaves a journal that the next pass's recovery reads: chunks whose bytes the lake holds whole
// (hash checked) are claimed, and whatever else was written past the claims is cut, so the
// origin's bytes are read again. verify counts journalled bytes as pending, not as a problem.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirPrivate, type Layout } from '../home';
import type { Applier } from './apply';
import { crashPoint } from './crash';
import { flushFiles, openAppend, writeAll } from './durable';
import type { ManifestLine } from './manifest';
import { writeOffsets } from './offsets';
import { hashRange } from './ranges';
import { JOURNAL, spoolId, type ChunkEntry } from './spool';
import { within } from '../safepath';

type JournalLine = { open: string; from: number } | { chunk: ChunkEntry };

export function journalDir(spoolDir: string): string {
  return path.join(spoolDir, JOURNAL);
}

/** The journal files, oldest first; only regular files (anything else is never followed). */
export function journalFiles(spoolDir: string): string[] {
  const dir = journalDir(spoolDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => path.join(dir, n))
    .filter((f) => {
      try {
        return fs.lstatSync(f).isFile();
      } catch {
        return false;
      }
    });
}

/** A journal's lines; a torn last line (the pass was killed while writing it) is not one. */
export function readJournal(file: string): { opens: { lake_path: string; from: number }[]; chunks: ChunkEntry[] } {
  const out = { opens: [] as { lake_path: string; from: number }[], chunks: [] as ChunkEntry[] };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  const lines = text.split('\n');
  lines.pop(); // after the last newline: empty, or a torn line
  for (const l of lines) {
    try {
      const j = JSON.parse(l) as JournalLine;
      if ('open' in j && typeof j.open === 'string' && typeof j.from === 'number') out.opens.push({ lake_path: j.open, from: j.from });
      else if ('chunk' in j && j.chunk?.kind === 'chunk' && typeof j.chunk.line?.lake_path === 'string') out.chunks.push(j.chunk);
    } catch {
      /* not a line this version wrote: recovery cuts what nothing claims */
    }
  }
  return out;
}

/** How far journalled writes may reach per lake file (verify: pending, not a problem). A write
 * that has no chunk line yet may reach any length. */
export function journalReach(spoolDir: string, into: Map<string, number>): void {
  for (const f of journalFiles(spoolDir)) {
    const j = readJournal(f);
    for (const o of j.opens) into.set(o.lake_path, Infinity);
    for (const c of j.chunks) into.set(c.line.lake_path, Math.max(into.get(c.line.lake_path) ?? 0, c.line.byte_to));
  }
}

/** The journal of the batch a pass is writing. */
export class Journal {
  private fd: number | undefined;
  private file = '';
  private chunks: ChunkEntry[] = [];
  private lakes: string[] = [];
  /** Chunks whose lines wait for their hashes (chunk.ts): said at the commit. */
  private later: (() => void)[] = [];

  constructor(readonly l: Layout) {}

  /** Whether this batch has written anything since its last commit. */
  get active(): boolean {
    return this.fd !== undefined;
  }

  /** Said before a lake file is written from byte `from`. */
  opening(lakePath: string, from: number): void {
    if (this.fd === undefined) {
      const dir = journalDir(this.l.spool);
      mkdirPrivate(dir);
      this.file = path.join(dir, `${spoolId()}.jsonl`);
      this.fd = openAppend(this.file);
    }
    writeAll(this.fd, Buffer.from(JSON.stringify({ open: lakePath, from }) + '\n'));
  }

  /** Said once a chunk's bytes are in its lake file (not yet flushed). */
  written(e: ChunkEntry): void {
    writeAll(this.fd!, Buffer.from(JSON.stringify({ chunk: e }) + '\n'));
    this.chunks.push(e);
    this.lakes.push(path.join(this.l.root, e.line.lake_path));
  }

  /** A chunk written to the lake whose line `say` writes (through written()) at the commit. */
  defer(say: () => void): void {
    this.later.push(say);
  }

  /** Commits the batch; returns the manifest lines written. */
  commit(a: Applier): ManifestLine[] {
    if (this.fd === undefined) return [];
    const later = this.later;
    this.later = [];
    for (const say of later) say();
    fs.closeSync(this.fd);
    this.fd = undefined;
    const file = this.file;
    const chunks = this.chunks;
    const lakes = this.lakes;
    this.chunks = [];
    this.lakes = [];
    const lines = commitChunks(a, file, chunks.map((e) => ({ e, claim: true })), lakes);
    fs.rmSync(file, { force: true });
    return lines;
  }

  /** A pass that throws (a full disk) leaves its journal to the next pass's recovery. */
  close(): void {
    this.later = [];
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Lake and journal flushed, then the claims, then the offsets (the caller removes the journal). */
function commitChunks(a: Applier, file: string, ready: { e: ChunkEntry; claim: boolean }[], lakes: string[]): ManifestLine[] {
  flushFiles([...lakes, file], a.l.lake);
  crashPoint('after-lake-before-manifest');
  const lines = ready.filter((r) => r.claim).map((r) => r.e.line);
  a.claimLines(lines);
  crashPoint('after-manifest-before-offsets');
  for (const r of ready) {
    writeOffsets(a.l.offsets, r.e.offsets);
    crashPoint('after-offsets');
  }
  if (ready.length > 0) a.checkpoint();
  return lines;
}

/** Finishes what killed passes left: each journal's chunks whose bytes the lake holds are claimed
 * (or only their offsets written, when the manifest already claims them); every lake file a
 * journal opened is then cut back to what the manifest claims. Returns the lines claimed. */
export function recoverJournals(a: Applier): ManifestLine[] {
  const out: ManifestLine[] = [];
  for (const file of journalFiles(a.l.spool)) {
    const j = readJournal(file);
    const ready: { e: ChunkEntry; claim: boolean }[] = [];
    const lakes: string[] = [];
    for (const e of j.chunks) {
      const m = e.line;
      const claim = a.claimed(e);
      if (claim.origin !== undefined && claim.origin !== m.origin_path) continue;
      if (claim.byte_to >= m.byte_to) {
        ready.push({ e, claim: false });
        continue;
      }
      if (claim.byte_to !== m.byte_from || claim.line_to !== m.line_from - 1) continue;
      const lake = within(a.l.root, m.lake_path, { what: 'lake_path', disk: true, file: true });
      try {
        if (fs.statSync(lake).size < m.byte_to || hashRange(lake, m.byte_from, m.byte_to) !== m.chunk_sha256) continue;
      } catch {
        continue;
      }
      ready.push({ e, claim: true });
      lakes.push(lake);
    }
    out.push(...commitChunks(a, file, ready, lakes));
    const opened = new Set([...j.opens.map((o) => o.lake_path), ...j.chunks.map((c) => c.line.lake_path)]);
    for (const lp of opened) a.cutUnclaimed(lp);
    fs.rmSync(file, { force: true });
  }
  return out;
}
