// Search in a long-lived process (the editor's worker): the turn index stays open between searches
// (keepOpen), and what it answers still follows the floor: sessions recorded since, a file rewritten
// into a new generation, an index rebuilt into a new file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { search } from '../../../src/core/recall';
import { rebuildIndex } from '../../../src/core/index/turnindex';
import { homeRoot } from '../../../src/core/index/roots';
import { TestFloor } from '../index/floor';

const TERM = 'Quillborne';
const KEEP = { index: 'live', keepOpen: true } as const;

function tmp(name: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `brain-${name}-`));
}

const envOf = (home: string): NodeJS.ProcessEnv => ({ HOME: home, BRAIN_HOME: home, BRAIN_MACHINE: 'testbox', BRAIN_NO_RG: '1' });

function piLines(name: string, texts: string[]): string {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: name, timestamp: '2026-03-01T10:00:00.000Z', cwd: '/w/kept' })];
  texts.forEach((text, i) => {
    const role = i % 2 ? 'assistant' : 'user';
    lines.push(JSON.stringify({ type: 'message', timestamp: `2026-03-01T10:00:0${i + 1}.000Z`, message: { role, content: [{ type: 'text', text }] } }));
  });
  return `${lines.join('\n')}\n`;
}

/** Inodes of the index file this process holds open (Linux: /proc/self/fd). */
function openInodes(file: string): number[] {
  const out: number[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, '') === file) out.push(fs.fstatSync(Number(fd)).ino);
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

test('a worker keeps the index open between searches, and still sees new sessions, generations and a rebuilt index', { skip: process.platform !== 'linux' && 'reads /proc/self/fd' }, () => {
  const dir = tmp('kept');
  const env = envOf(dir);
  const index = path.join(dir, 'turns.sqlite');
  try {
    const f = new TestFloor(dir);
    f.append('pi', '--w-kept--/s-a.jsonl', piLines('s-a', [`where is the ${TERM}`, 'somewhere']), { session: 's-a' });
    // A one-shot search (the CLI) closes what it opened.
    assert.deepEqual(search({ term: TERM }, env).hits.map((h) => h.session), ['s-a']);
    assert.deepEqual(openInodes(index), []);

    const first = search({ term: TERM }, env, KEEP);
    assert.deepEqual(first.hits.map((h) => [h.session, h.rewritten_away]), [['s-a', false]]);
    const held = openInodes(index);
    assert.equal(held.length, 1, 'the index stays open after the search');
    assert.equal(held[0], fs.statSync(index).ino);

    // Recorded since: the next search updates the index it holds.
    f.append('pi', '--w-kept--/s-b.jsonl', piLines('s-b', [`a ${TERM} here`, `and the ${TERM} there`]), { session: 's-b' });
    const second = search({ term: TERM }, env, KEEP);
    assert.deepEqual(second.hits.map((h) => [h.session, h.matching_turns]), [['s-b', 2], ['s-a', 1]]);
    assert.deepEqual(openInodes(index), held, 'the same connection answered');

    // s-a rewritten without the mention: only its first generation holds it now.
    f.append('pi', '--w-kept--/s-a.jsonl', piLines('s-a', ['where is it', 'gone']), { session: 's-a', gen: 2 });
    const third = search({ term: TERM }, env, KEEP);
    assert.deepEqual(third.hits.map((h) => [h.session, h.rewritten_away, h.snippets[0]?.gen]), [['s-b', false, 1], ['s-a', true, 1]]);

    // Rebuilt into a new file: the next search reads the new one, not the handle on the old.
    const rb = rebuildIndex(homeRoot(env));
    assert.ok(rb.ok);
    const fourth = search({ term: TERM }, env, KEEP);
    assert.deepEqual(fourth.hits.map((h) => h.session), ['s-b', 's-a']);
    assert.deepEqual(openInodes(index), [fs.statSync(index).ino]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a search reads the index through a memory map; the one-shot search unmaps it when it closes', { skip: process.platform !== 'linux' && 'reads /proc/self/maps' }, () => {
  const dir = tmp('mapped');
  const env = envOf(dir);
  const index = path.join(dir, 'turns.sqlite');
  const mapped = () => fs.readFileSync('/proc/self/maps', 'utf8').split('\n').some((l) => l.endsWith(` ${index}`));
  try {
    const f = new TestFloor(dir);
    f.append('pi', '--w-kept--/s-a.jsonl', piLines('s-a', [`where is the ${TERM}`, 'somewhere']), { session: 's-a' });
    assert.deepEqual(search({ term: TERM }, env).hits.map((h) => h.session), ['s-a']);
    assert.equal(mapped(), false, 'closed with the index');
    assert.deepEqual(search({ term: TERM }, env, KEEP).hits.map((h) => h.session), ['s-a']);
    assert.equal(mapped(), true, 'the kept index is read through a map');
    f.append('pi', '--w-kept--/s-b.jsonl', piLines('s-b', [`a ${TERM} here`]), { session: 's-b' });
    assert.deepEqual(search({ term: TERM }, env, KEEP).hits.map((h) => h.session).sort(), ['s-a', 's-b'], 'and still updated');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
