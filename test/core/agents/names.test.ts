// An agent is named only in its own folder and the registry (src/core/agents): help texts, tool
// descriptions and reports take the names from the registry, so adding an agent touches one folder.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { agents } from '../../../src/core/agents';

const REPO = path.resolve(__dirname, '../../..');
const SRC = path.join(REPO, 'src');

function files(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (/\.(ts|sql)$/.test(e.name)) out.push(p);
  }
  return out;
}

test('no source file outside src/core/agents names an agent', () => {
  const names = new Set<string>();
  for (const a of agents()) for (const n of [a.agent, a.label, ...(a.aliases ?? [])]) if (n.length > 3) names.add(n.toLowerCase());
  assert.ok(names.size >= 6, `the registry's names: ${[...names].join(', ')}`);
  const hits: string[] = [];
  for (const f of [...files(SRC), ...files(path.join(REPO, 'sql'))]) {
    if (f.startsWith(path.join(SRC, 'core', 'agents') + path.sep)) continue;
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const low = line.toLowerCase();
      for (const n of names) {
        const at = low.indexOf(n);
        // A name inside a longer word (e.g. a CSS property) is not the agent.
        if (at >= 0 && !/[a-z]/.test(low[at - 1] ?? '') && !/[a-z-]/.test(low[at + n.length] ?? '')) hits.push(`${path.relative(REPO, f)}:${i + 1}: ${n}`);
      }
    });
  }
  assert.deepEqual(hits, []);
});
