import { readTurns } from '../src/core/index/read';
import * as fs from 'node:fs';
const f = process.argv[2];
const r = readTurns(f, 'aider', 'x_12345678/.aider.chat.history.md', { full: true, tail: true })!;
const lines = fs.readFileSync(f, 'utf8').split('\n');
for (const t of r.turns) {
  if (t.role === 'assistant') continue;
  for (let i = t.span.line_from; i <= t.span.line_to; i++) if (lines[i - 1].startsWith('> Tokens:')) {
    console.log('---', t.n, t.role, t.kind, t.span.line_from, t.span.line_to, 'tokens at', i);
    const prev = r.turns[t.n - 2];
    console.log('prev', prev?.role, prev?.kind, prev?.span.line_from, prev?.span.line_to, JSON.stringify(prev?.text.slice(0, 80)));
    for (let j = Math.max(t.span.line_from - 2, i - 8); j <= i; j++) console.log(j, JSON.stringify(lines[j - 1].slice(0, 100)));
  }
}
