// The session reader's Markdown is rendered by VS Code's own Markdown extension, which passes HTML
// written in the text through as HTML. A transcript is untrusted text: a <form>, an <iframe>, a
// <meta http-equiv="refresh">, a `command:` link or a button that looks like the reader's own
// "Copy citation" must not reach the page. So the rendered HTML is rebuilt here tag by tag from an
// allow-list of what Markdown itself makes; any other tag is shown as the text it was, a link keeps
// its target only when that is a web or mail address, and only attributes that cannot act or
// pretend (no ids, no data- fields but the renderer's line numbers, no styles) are kept.
// No vscode import: the extension uses it, and a unit test runs it on its own.

const TAGS = new Set(['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'em', 'strong', 'b', 'i', 's', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'sup', 'sub', 'kbd']);
/** Elements whose content never shows as text: dropped with what they hold. */
const VOID_WITH_CONTENT = new Set(['script', 'style', 'template', 'noscript', 'textarea', 'title']);
const VOID = new Set(['br', 'hr']);
const ATTRS: Record<string, ReadonlySet<string>> = {
  a: new Set(['href', 'title']),
  ol: new Set(['start']),
};
const SAFE_HREF = /^(?:https?:|mailto:)/i;
const SAFE_CLASS = /^(?:code-line|language-[\w+#.-]+|hljs[\w-]*)$/;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The value an attribute holds once the browser decodes its entities (enough to see a scheme). */
function decoded(v: string): string {
  return v
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&colon;/gi, ':')
    .replace(/&amp;/gi, '&')
    .replace(/&quot;/gi, '"')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>');
}

const TAG_RE = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/y;
const ATTR_RE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function attrs(tag: string, raw: string): string {
  const out: string[] = [];
  const allowed = ATTRS[tag];
  for (const m of raw.matchAll(ATTR_RE)) {
    const name = m[1].toLowerCase();
    const value = decoded(m[2] ?? m[3] ?? m[4] ?? '');
    if (name === 'data-line' && /^\d+$/.test(value)) out.push(` data-line="${value}"`);
    else if (name === 'dir' && /^(?:auto|ltr|rtl)$/.test(value)) out.push(` dir="${value}"`);
    else if (name === 'class') {
      const ok = value.split(/\s+/).filter((c) => SAFE_CLASS.test(c));
      if (ok.length) out.push(` class="${esc(ok.join(' '))}"`);
    } else if (allowed?.has(name)) {
      if (name === 'href') {
        const target = value.replace(/[\u0000-\u0020\u007f]/g, '');
        if (SAFE_HREF.test(target)) out.push(` href="${esc(value)}"`);
      } else if (name === 'start') {
        if (/^\d+$/.test(value)) out.push(` start="${value}"`);
      } else out.push(` ${name}="${esc(value)}"`);
    }
  }
  return out.join('');
}

/**
 * HTML from the Markdown renderer, rebuilt so that only Markdown's own elements remain: an allowed
 * tag is written again from its name and allowed attributes, anything else that looks like markup
 * is escaped into visible text, comments and `<script>`-like elements go with their content.
 */
export function sanitizeHtml(html: string): string {
  const out: string[] = [];
  const open: string[] = [];
  let i = 0;
  let text = 0;
  const flush = (to: number) => {
    if (to > text) out.push(html.slice(text, to).replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    flush(lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = text = end < 0 ? html.length : end + 3;
      continue;
    }
    TAG_RE.lastIndex = lt;
    const m = TAG_RE.exec(html);
    if (!m) {
      out.push('&lt;');
      i = text = lt + 1;
      continue;
    }
    const [whole, close, rawName, rawAttrs] = m;
    const name = rawName.toLowerCase();
    i = text = lt + whole.length;
    if (!close && VOID_WITH_CONTENT.has(name)) {
      const end = html.toLowerCase().indexOf(`</${name}`, i);
      const stop = end < 0 ? html.length : html.indexOf('>', end) + 1 || html.length;
      i = text = stop;
      continue;
    }
    if (name === 'img' && !close) {
      // Images load nothing here (the page's policy): their description stands in for them.
      const alt = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(rawAttrs);
      out.push(`[image${alt && (alt[1] ?? alt[2]) ? `: ${esc(decoded(alt[1] ?? alt[2]))}` : ''}]`);
      continue;
    }
    if (!TAGS.has(name)) {
      out.push(esc(whole));
      continue;
    }
    if (close) {
      // Only a tag opened here is closed: a stray end tag cannot close the reader's own elements.
      const at = open.lastIndexOf(name);
      if (at < 0) continue;
      while (open.length > at) out.push(`</${open.pop()}>`);
      continue;
    }
    out.push(`<${name}${attrs(name, rawAttrs)}>`);
    if (!VOID.has(name)) open.push(name);
  }
  flush(html.length);
  while (open.length) out.push(`</${open.pop()}>`);
  return out.join('');
}
