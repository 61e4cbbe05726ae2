// Snippets centred on the mention (issue 13 item 7), on text from a real fixture transcript: the
// mention is always inside the window, wherever it sits, however wide the text's characters are.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { snippetText, columns } from '../../../src/core/recall/snippet';

const FIX = path.resolve(__dirname, '..', '..', 'fixtures', 'claude', 'projects', '-misc-git-ai', 'example-claude-code.jsonl');

/** The assistant's text blocks of the fixture, joined: real prose to put mentions into. */
function prose(): string {
  const out: string[] = [];
  for (const l of fs.readFileSync(FIX, 'utf8').split('\n')) {
    if (!l) continue;
    const e = JSON.parse(l);
    const c = e.message?.content;
    if (e.type === 'assistant' && Array.isArray(c)) for (const b of c) if (b.type === 'text') out.push(b.text);
  }
  return out.join('\n\n');
}

const TERM = 'Frobnicator';

function check(text: string, width: number, term = TERM) {
  const s = snippetText(text, term, width);
  assert.ok(s.toLowerCase().includes(term.toLowerCase()), `mention missing: ${s}`);
  assert.ok(columns(s) <= width, `${columns(s)} > ${width}: ${s}`);
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s), 'no half of a surrogate pair');
  return s;
}

test('the mention is in the snippet at the start, middle and end of a real text', () => {
  const p = prose();
  assert.ok(p.length > 1000);
  for (const at of [0, 5, Math.floor(p.length / 3), Math.floor(p.length / 2), p.length - 5, p.length]) {
    const text = `${p.slice(0, at)} ${TERM} ${p.slice(at)}`;
    for (const w of [30, 64, 200]) {
      const s = check(text, w);
      // Away from the ends the mention sits in the middle (within a few columns).
      if (at > 500 && at < p.length - 500) {
        const i = s.indexOf(TERM);
        const before = columns(s.slice(0, i));
        const after = columns(s.slice(i + TERM.length));
        assert.ok(Math.abs(before - after) <= 2, `${before} vs ${after}: ${s}`);
      }
    }
  }
});

test('a very long line, multi-byte text and lowercasing that changes length', () => {
  const p = prose().replace(/\s+/g, ' ');
  check(`${p}${p}${p} ${TERM} ${p}`, 80);
  // "İ" lowercases to two code units: offsets in the folded text are not offsets in the text.
  check(`${'İ'.repeat(400)} ${p.slice(0, 300)} ${TERM} ${p.slice(0, 300)}`, 80);
  check(`${'😀'.repeat(400)}${TERM}${'😀'.repeat(400)}`, 81);
  check(`${'日本語'.repeat(200)}検索${'日本語'.repeat(200)}`, 30, '検索');
  check(`${p.slice(0, 200)}\n\n\n${' '.repeat(5000)}${TERM}`, 60);
});

test('a term wider than the window shows from its start', () => {
  const p = prose().replace(/\s+/g, ' ');
  const term = p.slice(100, 400);
  const s = snippetText(p, term, 120);
  assert.ok(s.startsWith(`…${term.slice(0, 100)}`), s);
  assert.ok(columns(s) <= 120);
});

test('a raw JSON line holds the term escaped: the snippet is still on it', () => {
  const line = JSON.stringify({ note: `${prose().slice(0, 600)} say "${TERM}" now ${prose().slice(0, 600)}` });
  const s = snippetText(line, `say "${TERM}"`, 60);
  assert.ok(s.includes(`say \\"${TERM}\\"`), s);
});
