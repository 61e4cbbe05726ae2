// A parse job reads a file once for its turns and its raw trigram chunks: the chunks must be the
// ones a separate read of the raw lines (readRaw) gives, chunk for chunk, over every fixture, a
// file longer than a chunk with a line longer than one, and a resumed read.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES } from '../../helpers/env';
import { readRaw, runParseJob, type ParseJob, type RawChunks } from '../../../src/core/index/parse-job';
import { fixtureTranscripts, fixtureLane } from './floor';
import { genClaude, rng } from './gen';

function chunks(r: RawChunks | null): { to: number; chunks: number[][] } | null {
  // A chunk's keys as a set: their order within it is not part of the index.
  return r && { to: r.to, chunks: r.chunks.map((c) => [...c].sort((a, b) => a - b)) };
}

function same(job: ParseJob): void {
  const got = runParseJob(job);
  const alone = runParseJob({ ...job, raw_from: undefined });
  assert.equal(got.kind, alone.kind, job.file);
  if (got.kind !== 'turns' || alone.kind !== 'turns') return;
  // Reading the raw lines changes nothing the parse gives.
  assert.deepEqual({ ...got, raw: null }, { ...alone, raw: null }, job.file);
  assert.deepEqual(chunks(got.raw), chunks(readRaw(job.file, job.raw_from ?? 0, job.to)), job.file);
}

test('the raw chunks of a parse job are those a read of the raw lines alone gives, for every fixture', () => {
  const all = fixtureTranscripts();
  assert.ok(all.length > 10);
  for (const f of all) {
    const file = path.join(FIXTURES, f);
    const { lane, rel } = fixtureLane(f);
    same({ file, lane, rel, to: fs.statSync(file).size, tail: false, raw_from: 0 });
  }
});

test('a file of several chunks, one line longer than a chunk, and a resumed read give the same raw chunks', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-parsejob-'));
  try {
    const r = rng(3);
    const lines: string[] = [];
    let size = 0;
    while (size < 6 << 20) {
      const more = genClaude(r, 200).lines;
      lines.push(...more);
      size += more.reduce((a, l) => a + l.length + 1, 0);
    }
    // A prompt of 4.7 MB in the middle: the read grows its buffer instead of splitting the line.
    const big = JSON.stringify({ type: 'user', sessionId: 'big', timestamp: '2026-03-01T10:00:00Z', uuid: 'u-big', message: { role: 'user', content: 'plain words, then Ünïcode '.repeat(180_000) } });
    lines.splice(lines.length >> 1, 0, big);
    const file = path.join(dir, 'big.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n{"type":"user","unterminated');
    const to = fs.statSync(file).size;
    const job: ParseJob = { file, lane: 'cc', rel: '-work/big.jsonl', to, tail: false, raw_from: 0 };
    same(job);
    const first = runParseJob(job);
    assert.ok(first.kind === 'turns' && first.raw && first.raw.chunks.length >= 3);
    if (first.kind !== 'turns') return;
    // Resumed where the first read left its checkpoint: the raw lines start there too, or after.
    same({ ...job, resume: first.checkpoint, raw_from: first.checkpoint.byte });
    same({ ...job, resume: first.checkpoint, raw_from: first.raw!.to });
    same({ ...job, tail: true });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
