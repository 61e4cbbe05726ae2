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

test('text with no mark, wide character or surrogate gets the windows any other text gets', () => {
  // Such text takes a path of its own (no string per character). A wide character far beyond the
  // window sends the same text down the general path without changing what the window shows, so
  // the two must agree: on whitespace runs of every kind at the window's edges, on terms that start
  // or end with whitespace, and on "İ", which lowercases to two code units.
  const alpha = ['a', 'b', 'Q', 'x', ' ', ' ', '\t', '\n', '\r\n', '\u000b', '\f', '\u00a0', '\u2003', '\u2028', '\ufeff', '\u1680', 'İ', 'ß', 'Ж', '…', '€', '"', '\\', '-'];
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(a: T[]) => a[Math.floor(rnd() * a.length)];
  let compared = 0;
  for (let k = 0; k < 4000; k++) {
    const width = 3 + Math.floor(rnd() * 60);
    let text = '';
    for (let i = 0, n = Math.floor(rnd() * 400); i < n; i++) text += pick(alpha);
    const at = Math.floor(rnd() * text.length);
    const term = text.slice(at, at + 1 + Math.floor(rnd() * 4));
    if (!term.trim()) continue;
    const from = text.toLowerCase().indexOf(term.toLowerCase());
    const farLeft = text.slice(0, from).replace(/\s+/g, ' ').length > width + 4;
    const farRight = text.slice(from + term.length * 2).replace(/\s+/g, ' ').length > width + 4;
    const s = snippetText(text, term, width);
    if (farLeft) assert.equal(s, snippetText(`日#${text}`, term, width), JSON.stringify({ text, term, width }));
    if (farRight) assert.equal(s, snippetText(`${text}#日`, term, width), JSON.stringify({ text, term, width }));
    if (farLeft || farRight) compared++;
  }
  assert.ok(compared > 1000, `${compared} compared`);
});
