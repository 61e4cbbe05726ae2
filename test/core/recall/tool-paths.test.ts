// The tool tier checks each file's path on disk once a search, then reads it (chunks, parse,
// citations) by the path that check gave. A file the index listed and that has since been swapped
// for a symlink, or whose folder has, must still be refused and named, not read: brain mcp's
// snapshot answers from an index no update has seen the swap in.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { search } from '../../../src/core/recall';
import { TestFloor } from '../index/floor';

const TERM = 'Glimmerquartz';

function session(f: TestFloor, name: string, folder: string): string {
  const lines = [
    { type: 'session', version: 3, id: name, timestamp: '2026-03-01T10:00:00Z', cwd: '/w/x' },
    { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'run it' }] } },
    { type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } }] } },
    { type: 'message', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: `the output says ${TERM}` }] } },
    { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } },
  ];
  f.append('pi', `${folder}/${name}.jsonl`, lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { session: name });
  return `lake/pi/${folder}/${name}.jsonl`;
}

test('the tool tier refuses and names a listed file swapped for a symlink, or reached through one, and reads neither', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'brain-toolpaths-'));
  const env: NodeJS.ProcessEnv = { HOME: dir, BRAIN_HOME: dir, BRAIN_MACHINE: 'testbox', BRAIN_NO_RG: '1' };
  try {
    const f = new TestFloor(dir);
    const fileLink = session(f, 's-file', '--w-a--');
    const dirLink = session(f, 's-dir', '--w-b--');
    session(f, 's-kept', '--w-c--');
    const all = search({ term: TERM }, env);
    assert.deepEqual(all.hits.map((h) => [h.session, h.tier]).sort(), [['s-dir', 'tools'], ['s-file', 'tools'], ['s-kept', 'tools']]);
    // The same bytes, outside the floor, behind a symlink: a read that followed it would find them.
    const outside = path.join(dir, '..', `${path.basename(dir)}-outside`);
    fs.mkdirSync(outside);
    try {
      fs.copyFileSync(path.join(dir, fileLink), path.join(outside, 's-file.jsonl'));
      fs.rmSync(path.join(dir, fileLink));
      fs.symlinkSync(path.join(outside, 's-file.jsonl'), path.join(dir, fileLink));
      const folder = path.dirname(path.join(dir, dirLink));
      fs.cpSync(folder, path.join(outside, 'b'), { recursive: true });
      fs.rmSync(folder, { recursive: true });
      fs.symlinkSync(path.join(outside, 'b'), folder);
      for (const use of [{ index: 'snapshot' } as const, { index: 'live', keepOpen: false } as const]) {
        const r = search({ term: TERM }, env, use);
        assert.equal(r.source, 'index');
        assert.deepEqual(r.hits.map((h) => h.session), ['s-kept'], `${use.index}: ${JSON.stringify(r.hits)}`);
        const why = Object.fromEntries(r.refused.map((x) => [x.lake_path, x.problem]));
        assert.deepEqual(Object.keys(why).sort(), [dirLink, fileLink].sort(), use.index);
        assert.match(why[fileLink], /is a symlink/);
        assert.match(why[dirLink], /passes through a symlink \(lake\/pi\/--w-b--\)/);
        assert.match(r.header, /2 floor files refused/);
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
