// Test floors built by hand from the real fixtures: lake files copied byte for byte, manifest lines
// with the sha256 of each chunk of lines, as the capture writes them. Also byte-level helpers the
// fault tests use (flip a byte, append a line) and a config writer.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, listFiles } from '../../helpers/env';
import type { Lane, ManifestLine } from '../../../src/core/floor/manifest';

export interface FloorFileSpec {
  lane: Lane;
  /** Path inside lake/<lane>/. */
  rel: string;
  bytes: Buffer;
}

/** A handful of real transcripts from each agent's fixtures. */
export function fixtureFiles(max = 12): FloorFileSpec[] {
  const out: FloorFileSpec[] = [];
  const take = (lane: Lane, root: string, filter: (r: string) => boolean, n: number) => {
    const files = listFiles(root).filter(filter).slice(0, n);
    for (const f of files) out.push({ lane, rel: f, bytes: fs.readFileSync(path.join(root, f)) });
  };
  take('cc', path.join(FIXTURES, 'claude', 'projects'), (r) => r.endsWith('.jsonl'), Math.ceil(max / 2));
  take('codex', path.join(FIXTURES, 'codex', 'sessions'), (r) => r.endsWith('.jsonl'), Math.ceil(max / 4));
  take('pi', path.join(FIXTURES, 'pi', 'agent', 'sessions'), (r) => r.endsWith('.jsonl'), Math.ceil(max / 4));
  return out;
}

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Manifest lines for `bytes` split into chunks of `linesPerChunk` lines, starting at a boundary. */
export function chunkLines(lakePath: string, lane: Lane, bytes: Buffer, start = { byte: 0, line: 1 }, linesPerChunk = 7): ManifestLine[] {
  const out: ManifestLine[] = [];
  let pos = 0;
  let line = start.line;
  while (pos < bytes.length) {
    let end = pos;
    let n = 0;
    while (end < bytes.length && n < linesPerChunk) {
      const nl = bytes.indexOf(10, end);
      if (nl < 0) {
        end = bytes.length;
        n++;
        break;
      }
      end = nl + 1;
      n++;
    }
    const chunk = bytes.subarray(pos, end);
    out.push({
      v: 1,
      lane,
      agent: lane,
      session: path.basename(lakePath).replace(/\.jsonl$/, ''),
      gen: 1,
      byte_from: start.byte + pos,
      byte_to: start.byte + end,
      line_from: line,
      line_to: line + n - 1,
      chunk_sha256: sha(chunk),
      captured_at: '2026-01-01T00:00:00.000Z',
      event_ts_first: null,
      machine_id: 'testbox',
      origin_path: lakePath,
      source: 'record',
      lake_path: lakePath,
      ...(chunk[chunk.length - 1] !== 10 ? { unterminated: true } : {}),
    });
    line += n;
    pos = end;
  }
  return out;
}

/** Writes lake files, their manifest lines and a meta record into `home`. Returns the lake paths. */
export function makeFloor(home: string, specs: FloorFileSpec[] = fixtureFiles()): string[] {
  const lakePaths: string[] = [];
  const lines: ManifestLine[] = [];
  for (const s of specs) {
    const lp = `lake/${s.lane}/${s.rel}`;
    const abs = path.join(home, lp);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, s.bytes, { mode: 0o600 });
    lines.push(...chunkLines(lp, s.lane, s.bytes));
    lakePaths.push(lp);
  }
  fs.mkdirSync(path.join(home, 'manifest'), { recursive: true });
  fs.appendFileSync(path.join(home, 'manifest', 'manifest.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  fs.mkdirSync(path.join(home, 'meta', 'cc'), { recursive: true });
  fs.writeFileSync(path.join(home, 'meta', 'cc', 'session-1.json'), JSON.stringify({ cwd: '/work/x', git: { branch: 'main' } }) + '\n');
  for (const d of ['spool', 'offsets', 'locks', 'health']) fs.mkdirSync(path.join(home, d), { recursive: true });
  privatize(home);
  return lakePaths;
}

/** 0700 folders, 0600 files, as the capture leaves BRAIN_HOME. */
export function privatize(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) privatize(p);
    else if (e.isFile()) fs.chmodSync(p, 0o600);
  }
}

/** Appends bytes to a lake file as the capture would: lake first, then the manifest line. */
export function appendToLake(home: string, lakePath: string, text: string | Buffer): void {
  const abs = path.join(home, lakePath);
  const before = fs.statSync(abs).size;
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  // Line number where the appended bytes start: count the newlines already there.
  const old = fs.readFileSync(abs);
  let nl = 0;
  for (const b of old) if (b === 10) nl++;
  fs.appendFileSync(abs, bytes);
  const lane = lakePath.split('/')[1] as Lane;
  const lines = chunkLines(lakePath, lane, bytes, { byte: before, line: nl + 1 }, 1000);
  fs.appendFileSync(path.join(home, 'manifest', 'manifest.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
}

/** XORs one byte of a file in place (keeps its length; mtime changes like any write). */
export function flipByte(file: string, at: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, at);
    b[0] ^= 0x20;
    fs.writeSync(fd, b, 0, 1, at);
  } finally {
    fs.closeSync(fd);
  }
}

export function writeConfig(home: string, text: string): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, 'config.toml'), text, { mode: 0o600 });
  fs.chmodSync(path.join(home, 'config.toml'), 0o600);
}

export function localStoreConfig(storePath: string, extra = ''): string {
  return `rsync_path = "/usr/bin/rsync"\n${extra}[store]\npath = ${JSON.stringify(storePath)}\n`;
}

export function sshStoreConfig(host: string, storePath: string, extra = '', storeExtra = ''): string {
  return `rsync_path = "/usr/bin/rsync"\n${extra}[store]\npath = ${JSON.stringify(storePath)}\nhost = ${JSON.stringify(host)}\n${storeExtra}`;
}

/** Every file under a folder with its bytes' sha256: to prove nothing at the store was deleted. */
export function snapshot(dir: string): Map<string, { size: number; sha: string }> {
  const m = new Map<string, { size: number; sha: string }>();
  for (const f of listFiles(dir)) {
    const b = fs.readFileSync(path.join(dir, f));
    m.set(f, { size: b.length, sha: sha(b) });
  }
  return m;
}

/** Asserts every file in `before` still exists in `after` and was not shortened. Returns problems. */
export function lostFiles(before: Map<string, { size: number }>, after: Map<string, { size: number }>): string[] {
  const out: string[] = [];
  for (const [f, v] of before) {
    const a = after.get(f);
    if (!a) out.push(`${f} deleted`);
    else if (a.size < v.size) out.push(`${f} shortened ${v.size} -> ${a.size}`);
  }
  return out;
}

/** One session of about `bytes` bytes of JSON lines (for transfers slow enough to interrupt). */
export function bigSession(bytes: number): Buffer {
  const big: Buffer[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const b = Buffer.from(JSON.stringify({ type: 'assistant', n: i, text: 'x'.repeat(900 + (i % 97)) }) + '\n');
    big.push(b);
    n += b.length;
  }
  return Buffer.concat(big);
}
