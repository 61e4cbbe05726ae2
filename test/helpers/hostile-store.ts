// A store folder that leads outside itself three ways, for the recall and MCP custody tests: a
// hand-made machine "evil" whose manifest names `lake/cc/p/../../../../../dotdot.jsonl`, a lake
// file that is a symlink, and a lake folder that is a symlink, each to a Claude Code transcript
// outside the store that says PHRASE. Beside it, this machine's own floor (testbox), backed up.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, type Sandbox } from './env';

export const PHRASE = 'zanzibar walrus';
const SRC = path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl');

/** A Claude Code transcript that says PHRASE (and `tag`) in its user turns. */
export function outsideTranscript(tag: string): string {
  const src = fs.readFileSync(SRC, 'utf8');
  assert.ok(src.includes('user authentication'));
  return src.replaceAll('user authentication', `${PHRASE} ${tag}`);
}

function manifestLine(file: string, lakePath: string, session: string): string {
  const b = fs.readFileSync(file);
  return (
    JSON.stringify({
      v: 1,
      lane: 'cc',
      agent: 'claude-code',
      session,
      gen: 1,
      byte_from: 0,
      byte_to: b.length,
      line_from: 1,
      line_to: b.toString('utf8').split('\n').length - 1,
      chunk_sha256: createHash('sha256').update(b).digest('hex'),
      captured_at: '2026-01-01T00:00:00.000Z',
      event_ts_first: null,
      machine_id: 'evil',
      origin_path: `/x/${session}.jsonl`,
      source: 'record',
      lake_path: lakePath,
    }) + '\n'
  );
}

export interface HostileStore {
  store: string;
  /** Files outside the store that the three entries lead to. */
  outside: string[];
  entries: { session: string; lake_path: string }[];
}

/** <dir>/store, as described at the top of this file. */
export function hostileStore(sb: Sandbox): HostileStore {
  const store = path.join(sb.dir, 'store');
  const b = brain(sb, ['backup', path.join(store, 'testbox')]);
  assert.equal(b.status, 0, `brain backup: ${b.stdout}\n${b.stderr}`);
  const evil = path.join(store, 'evil');
  fs.mkdirSync(path.join(evil, 'lake', 'cc', 'p'), { recursive: true });
  fs.mkdirSync(path.join(evil, 'manifest'), { recursive: true });
  const outside = [path.join(sb.dir, 'dotdot.jsonl'), path.join(sb.dir, 'linked.jsonl'), path.join(sb.dir, 'outdir', 'dirlinked.jsonl')];
  fs.mkdirSync(path.dirname(outside[2]));
  for (const [i, f] of outside.entries()) fs.writeFileSync(f, outsideTranscript(['one', 'two', 'three'][i]));
  // 1. `..`: from <store>/evil/lake/cc/p, five levels up is sb.dir.
  // 2. a lake file that is a symlink; 3. a lake folder that is a symlink.
  fs.symlinkSync(outside[1], path.join(evil, 'lake', 'cc', 'p', 'linked-session.jsonl'));
  fs.symlinkSync(path.dirname(outside[2]), path.join(evil, 'lake', 'cc', 'dirlink'));
  const entries = [
    { session: 'dotdot-session', lake_path: 'lake/cc/p/../../../../../dotdot.jsonl', file: outside[0] },
    { session: 'linked-session', lake_path: 'lake/cc/p/linked-session.jsonl', file: outside[1] },
    { session: 'dirlinked-session', lake_path: 'lake/cc/dirlink/dirlinked.jsonl', file: outside[2] },
  ];
  fs.writeFileSync(path.join(evil, 'manifest', 'manifest.jsonl'), entries.map((e) => manifestLine(e.file, e.lake_path, e.session)).join(''));
  return { store, outside, entries: entries.map(({ session, lake_path }) => ({ session, lake_path })) };
}
