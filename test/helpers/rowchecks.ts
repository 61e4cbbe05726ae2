// Checks every row-record agent's tests share: a citation verified with sed and sha256sum, and the
// dialect run over a row-record file.
import { spawnSync } from 'node:child_process';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Citation } from '../../src/core/turns';
import { readTurns } from '../../src/core/index/read';

/** `sed -n 'A,Bp' <brain>/<lake_path> | sha256sum` equals the citation's sha256. */
export function checkCitation(brainHome: string, c: Citation): void {
  const file = path.join(brainHome, c.lake_path);
  const r = spawnSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, `sed/sha256sum (install coreutils and sed): ${r.stderr}`);
  assert.equal(r.stdout.split(/\s/)[0], c.sha256, `citation ${c.lake_path}:${c.line_from}-${c.line_to}`);
}

/** The turns of a row-record file through the lane's dialect. */
export function turnsOf(file: string, lane: string, full = true) {
  const r = readTurns(file, lane, path.basename(file), { full, tail: true });
  assert.ok(r, `the ${lane} dialect reads ${file}`);
  return r;
}

/** User and assistant turns as [role, text]. */
export const said = (turns: { role: string; text: string }[]) => turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => [t.role, t.text]);
