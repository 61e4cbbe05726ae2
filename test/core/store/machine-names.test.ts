// Machine names: the config's own is letters, digits, ".", "_" and "-"; a folder the store holds is
// read as a machine when its name is printable ASCII; neither is ever a name the store's root uses
// for itself (its turn index). A store folder named otherwise ("m2" and a zero-width space) is left
// out of every answer and named, escaped, instead of being shown and cited as "m2".
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { validateConfig } from '../../../src/core/config';
import { shownName } from '../../../src/core/machine';
import { storeRoot } from '../../../src/core/index/roots';
import { summarize } from '../../../src/core/store/machines';
import { search } from '../../../src/core/recall/search';

const config = (text: string, env: NodeJS.ProcessEnv = {}) => validateConfig(parse(text) as Record<string, unknown>, 'config.toml', env);

test('machine = "turns.sqlite" (or any name the store root uses) fails validation, in the file and in BRAIN_MACHINE', () => {
  for (const name of ['turns.sqlite', 'turns.sqlite-wal', 'turns.sqlite-shm', 'turns.sqlite-journal', 'turns.sqlite.rebuild-42', 'TURNS.SQLITE']) {
    assert.throws(() => config(`machine = ${JSON.stringify(name)}\n`), (e: Error & { code?: string }) => e.code === 'config-invalid' && /store's root uses/.test(e.message), name);
    assert.throws(() => config('', { BRAIN_MACHINE: name }), (e: Error & { code?: string }) => e.code === 'config-invalid', `BRAIN_MACHINE=${name}`);
  }
  for (const name of ['m2\u200b', 'm\u00e9', 'a b', '../x', '.hidden', '']) assert.throws(() => config(`machine = ${JSON.stringify(name)}\n`), /not a plain folder name/, JSON.stringify(name));
  assert.equal(config('machine = "turns-box.sqlite"\n').machine, 'turns-box.sqlite');
  assert.equal(config('machine = "laptop-2"\n').machine, 'laptop-2');
});

test('a store folder whose name is not a machine name is left out and named, escaped', () => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-names-'));
  try {
    for (const m of ['m2', 'm2\u200b', 'turns.sqlite-x', 'caf\u00e9', 'odd name $(x)']) fs.mkdirSync(path.join(store, m, 'manifest'), { recursive: true });
    for (const m of ['m2', 'm2\u200b']) fs.writeFileSync(path.join(store, m, 'manifest', 'manifest.jsonl'), '');
    const root = storeRoot(store);
    assert.deepEqual(root.machines.map((m) => m.machine), ['m2', 'odd name $(x)'], 'a printable name is read (and shown as it is)');
    assert.deepEqual(root.refused, ['"caf\\u00e9"', '"m2\\u200b"', '"turns.sqlite-x"']);
    for (const r of root.refused ?? []) assert.match(r, /^[\x20-\x7e]+$/, 'shown in printable ASCII only');
    const out = search({ term: 'anything', store }, { HOME: store, BRAIN_HOME: path.join(store, 'nohome') }, { index: 'off' });
    assert.deepEqual(out.refused.map((r) => r.machine).sort(), ['"caf\\u00e9"', '"m2\\u200b"', '"turns.sqlite-x"']);
    assert.match(out.refused[0].problem, /name a machine may not have/);
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
  assert.equal(shownName('m2'), 'm2');
  assert.equal(shownName('m2\u200b'), '"m2\\u200b"');
});

test('brain status lists the store as it holds it: the root\'s own files are no machine, odd names escaped', () => {
  const e = (rel: string, isDir = false) => ({ rel, isDir, size: 10, mtime: 1_700_000_000_000 });
  const ms = summarize([e('turns.sqlite'), e('turns.sqlite-wal'), e('m2', true), e('m2/lake/cc/a.jsonl'), e('m2\u200b', true), e('m2\u200b/lake/cc/a.jsonl'), e('.brain-export', true)]);
  assert.deepEqual(ms.map((m) => m.machine), ['"m2\\u200b"', 'm2']);
});
