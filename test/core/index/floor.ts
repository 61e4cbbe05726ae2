// A floor written the way capture writes it (lake bytes first, then one manifest line per chunk with
// its line range and sha256), for index and recall tests that need exact control over chunks:
// appends, unterminated tails, new generations, several machines in a store.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { homeRoot, type Root } from '../../../src/core/index/roots';
import { openIndex, type TurnIndex } from '../../../src/core/index/turnindex';
import { agentByLane } from '../../../src/core/agents';
import { FIXTURES } from '../../helpers/env';

const AGENT: Record<string, string> = { cc: 'claude-code', codex: 'codex', pi: 'pi', cursor: 'cursor-agent' };

/** fixture path (under test/fixtures) -> lane and path inside the lane, as capture lays it out. */
export function fixtureLane(fixture: string): { lane: string; rel: string } {
  const [agent, ...rest] = fixture.split('/');
  if (agent === 'claude') return { lane: 'cc', rel: rest.slice(1).join('/') };
  if (agent === 'codex') return { lane: 'codex', rel: rest.join('/') };
  if (agent === 'pi') return { lane: 'pi', rel: rest.slice(2).join('/') };
  return { lane: 'cursor', rel: rest.slice(1).join('/') };
}

export function fixtureTranscripts(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(path.relative(FIXTURES, p));
    }
  };
  for (const a of ['claude', 'codex', 'pi', 'cursor']) walk(path.join(FIXTURES, a));
  return out.sort();
}

export class TestFloor {
  readonly manifest: string;
  /** captured_at for every manifest line, when a test needs runs to be comparable. */
  fixedTime: string | null = null;

  constructor(
    readonly dir: string,
    readonly machine = 'testbox',
  ) {
    fs.mkdirSync(path.join(dir, 'manifest'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'lake'), { recursive: true });
    this.manifest = path.join(dir, 'manifest', 'manifest.jsonl');
  }

  lakePath(lane: string, rel: string, gen = 1): string {
    if (gen <= 1) return `lake/${lane}/${rel}`;
    return `lake/${lane}/${rel.replace(/(\.[^./]+)$/, `.g${gen}$1`)}`;
  }

  /** Appends bytes to a lake file and claims them with a manifest line. */
  append(lane: string, rel: string, data: Buffer | string, opts: { gen?: number; session?: string; captured_at?: string } = {}): string {
    const gen = opts.gen ?? 1;
    const lp = this.lakePath(lane, rel, gen);
    const file = path.join(this.dir, lp);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const before = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
    fs.appendFileSync(file, bytes);
    const linesBefore = countLines(before);
    const startsLine = before.length === 0 || before[before.length - 1] === 10 ? linesBefore + 1 : linesBefore;
    const all = Buffer.concat([before, bytes]);
    const line_to = countLines(all);
    const m = {
      v: 1,
      lane,
      agent: AGENT[lane] ?? lane,
      session: opts.session ?? agentByLane(lane)?.sessionOf(rel) ?? rel,
      gen,
      byte_from: before.length,
      byte_to: all.length,
      line_from: startsLine,
      line_to,
      chunk_sha256: createHash('sha256').update(bytes).digest('hex'),
      captured_at: opts.captured_at ?? this.fixedTime ?? new Date().toISOString(),
      event_ts_first: null,
      machine_id: this.machine,
      origin_path: `/origin/${lane}/${rel}`,
      source: 'record',
      lake_path: lp,
      ...(bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? { unterminated: true } : {}),
    };
    fs.appendFileSync(this.manifest, JSON.stringify(m) + '\n');
    return lp;
  }

  /** Copies a fixture transcript in as one chunk (or as chunks of `split` lines). */
  addFixture(fixture: string, split?: number): string {
    const { lane, rel } = fixtureLane(fixture);
    const data = fs.readFileSync(path.join(FIXTURES, fixture));
    if (!split) return this.append(lane, rel, data);
    let lp = '';
    for (const part of chunkLines(data, split)) lp = this.append(lane, rel, part);
    return lp;
  }

  meta(lane: string, session: string, rec: object): void {
    const d = path.join(this.dir, 'meta', lane);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, `${session}.json`), JSON.stringify(rec));
  }
}

export function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  if (b.length > 0 && b[b.length - 1] !== 10) n++;
  return n;
}

/** Splits bytes into pieces of `n` lines each (the last may be unterminated). */
export function chunkLines(data: Buffer, n: number): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  let count = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 10 && ++count === n) {
      out.push(data.subarray(start, i + 1));
      start = i + 1;
      count = 0;
    }
  }
  if (start < data.length) out.push(data.subarray(start));
  return out;
}

/** A private temporary folder (its real path: os.tmpdir() may be a symlink). */
export function tmpDir(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

/** The local root of a floor at `dir`, with the test machine's name. */
export function rootOf(dir: string): Root {
  return homeRoot({ BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', HOME: dir }, dir);
}

/** The turn index of `root`, opened (failing the test with the reason when it cannot be). */
export function openRoot(root: Root): TurnIndex {
  const o = openIndex(root);
  assert.ok(o.ok, o.ok ? '' : o.reason);
  return o.index;
}

/** Appends each file's next piece, one piece of every file a round, calling `update` after each
 * round, until every piece is written; returns the rounds. */
export function feedInPieces(floor: TestFloor, files: { lane: string; rel: string; parts: Buffer[] }[], update: () => void): number {
  let rounds = 0;
  while (files.some((p) => p.parts.length > 0)) {
    for (const p of files) {
      const part = p.parts.shift();
      if (part) floor.append(p.lane, p.rel, part);
    }
    update();
    rounds++;
  }
  return rounds;
}
