// The session reader: one webview per session, in the editor's theme. Turns are Markdown (rendered
// by VS Code's own Markdown extension, then rebuilt from Markdown's own elements by sanitize.ts),
// tool calls folded, thinking collapsed, and every turn has its line range and a Copy Citation
// button. Transcripts are untrusted text: the page runs only its own nonce'd script, loads nothing
// from anywhere, and shows HTML written in a transcript as text.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Citation } from '../core/turns';
import type { SessionView, TurnView } from './protocol';
import { sanitizeHtml } from './sanitize';
import { visible } from '../core/visible';

export function citationText(c: Citation, root?: string): string {
  const file = root ? path.join(root, c.lake_path) : c.lake_path;
  return `${JSON.stringify(c)}\n# check: sed -n '${c.line_from},${c.line_to}p' '${file}' | sha256sum   # = ${c.sha256}`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

async function markdown(text: string): Promise<string> {
  try {
    const html = await vscode.commands.executeCommand<string>('markdown.api.render', text);
    // The renderer passes HTML written in the text through: only Markdown's own elements stay.
    if (typeof html === 'string') return sanitizeHtml(html);
  } catch {
    /* the Markdown extension is disabled: show the text as it is */
  }
  return `<pre class="plain">${esc(text)}</pre>`;
}

const MAX_TURNS = 3000;

/** What a folded tool call was about, in a few words: its command, path or query. */
function argHint(args: string): string {
  let v: unknown;
  try {
    v = JSON.parse(args);
  } catch {
    return args ? ` <span class="arg">${esc(args.slice(0, 80))}</span>` : '';
  }
  if (!v || typeof v !== 'object') return '';
  const o = v as Record<string, unknown>;
  const key = ['command', 'cmd', 'file_path', 'path', 'pattern', 'query', 'url', 'description'].find((k) => typeof o[k] === 'string') ?? Object.keys(o).find((k) => typeof o[k] === 'string');
  const text = key ? String(Array.isArray(o[key]) ? (o[key] as unknown[]).join(' ') : o[key]) : '';
  return text ? ` <span class="arg">${esc(text.replace(/\s+/g, ' ').slice(0, 80))}</span>` : '';
}

export class Reader implements vscode.Disposable {
  private panels = new Map<string, { panel: vscode.WebviewPanel; view: SessionView }>();
  /** The last reader shown and the turn it was asked to show (for tests and Copy Citation). */
  last: { key: string; turn?: number } | undefined;

  constructor(private onCopied: (c: Citation, root: string) => void) {}

  async show(view: SessionView, turn?: number): Promise<void> {
    const key = `${view.info.machine}/${view.info.lane}/${view.info.session}`;
    const open = this.panels.get(key);
    this.last = { key, turn };
    if (open && open.view.info.bytes === view.info.bytes) {
      open.panel.reveal(undefined, false);
      if (turn) void open.panel.webview.postMessage({ type: 'scrollTo', turn });
      return;
    }
    const panel =
      open?.panel ??
      vscode.window.createWebviewPanel('agentBrain.reader', visible(view.info.title.slice(0, 40), { oneLine: true }), vscode.ViewColumn.Active, {
        enableScripts: true,
        enableFindWidget: true,
        retainContextWhenHidden: true,
        localResourceRoots: [],
      });
    panel.title = visible(view.info.title.slice(0, 40) || view.info.session, { oneLine: true });
    if (!open) {
      panel.onDidDispose(() => this.panels.delete(key));
      panel.webview.onDidReceiveMessage((m: { type: string; turn: number; i?: number }) => {
        const cur = this.panels.get(key);
        // By position: an entry only an older generation holds may share its number with another.
        const t = m.i !== undefined ? cur?.view.turns[m.i] : cur?.view.turns.find((x) => x.n === m.turn);
        if (m.type === 'copyCitation' && t && cur) this.onCopied(t.citation, cur.view.info.root);
      });
    }
    this.panels.set(key, { panel, view });
    panel.webview.html = await this.html(view, turn);
  }

  private async html(v: SessionView, turn?: number): Promise<string> {
    const nonce = crypto.randomBytes(16).toString('base64');
    const i = v.info;
    const head = [`${esc(i.agentLabel)}`, i.project ? esc(i.project) : '', i.branch ? `branch ${esc(i.branch)}` : '', i.model ? esc(i.model) : '', i.started ? esc(i.started.replace('T', ' ').slice(0, 19)) : '', `${i.turns} turns`, `${esc(i.machine)}:${esc(i.lakePath)}`].filter(Boolean);
    const turns = v.turns.slice(0, MAX_TURNS);
    const bodies = await Promise.all(turns.map((t, i) => this.turnHtml(t, i)));
    return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<style nonce="${nonce}">
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 16px 40vh;line-height:1.5}
header.session{position:sticky;top:0;background:var(--vscode-editor-background);border-bottom:1px solid var(--vscode-panel-border);padding:8px 0;z-index:1}
header.session h1{font-size:1.2em;margin:0 0 4px}
header.session .meta{color:var(--vscode-descriptionForeground);font-size:.9em}
section.turn{border-left:3px solid var(--vscode-panel-border);margin:14px 0;padding:2px 12px;scroll-margin-top:80px}
section.turn.side{opacity:.85;margin-left:16px}
section.turn.user{border-left-color:var(--vscode-textLink-foreground)}
section.turn.hit{background:var(--vscode-editor-findMatchHighlightBackground)}
.turn>.h{display:flex;gap:8px;align-items:center;color:var(--vscode-descriptionForeground);font-size:.85em}
.turn>.h b{color:var(--vscode-foreground)}
.turn>.h .lines{font-family:var(--vscode-editor-font-family)}
button.cite{margin-left:auto;background:var(--vscode-button-secondaryBackground);color:var(--vscode-button-secondaryForeground);border:none;padding:2px 8px;cursor:pointer;border-radius:2px}
button.cite:hover{background:var(--vscode-button-secondaryHoverBackground)}
details{margin:4px 0;border:1px solid var(--vscode-panel-border);border-radius:3px;padding:2px 8px}
details summary{cursor:pointer;color:var(--vscode-descriptionForeground)}
details summary .arg{font-family:var(--vscode-editor-font-family);opacity:.8;margin-left:6px}
pre{white-space:pre-wrap;word-break:break-word;font-family:var(--vscode-editor-font-family);font-size:var(--vscode-editor-font-size);background:var(--vscode-textCodeBlock-background);padding:6px;margin:4px 0}
code{font-family:var(--vscode-editor-font-family)}
.md img{display:none}
</style></head><body>
<header class="session"><h1>${esc(i.title)}</h1><div class="meta">${head.join(' · ')}</div></header>
${bodies.join('\n')}
${v.turns.length > MAX_TURNS ? `<p>… ${v.turns.length - MAX_TURNS} more turns (brain show ${esc(i.session)})</p>` : ''}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
function go(n){const el=document.getElementById('turn-'+n);if(!el)return;document.querySelectorAll('.hit').forEach(e=>e.classList.remove('hit'));el.classList.add('hit');el.scrollIntoView({block:'start'});document.body.dataset.turn=String(n);}
document.addEventListener('click',e=>{const b=e.target.closest('button.cite');if(b){vscode.postMessage({type:'copyCitation',turn:Number(b.dataset.turn),i:Number(b.dataset.i)});b.textContent='Copied';setTimeout(()=>b.textContent='Copy citation',1500);}});
window.addEventListener('message',e=>{if(e.data&&e.data.type==='scrollTo')go(e.data.turn);});
${turn ? `go(${Number(turn)});` : ''}
</script></body></html>`;
  }

  private async turnHtml(t: TurnView, i: number): Promise<string> {
    const c = t.citation;
    const who = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' }[t.role] ?? t.role;
    const parts: string[] = [];
    parts.push(`<div class="h"><b>${who}</b> <span>#${t.n}</span>${t.rewritten_away ? ` <span>only in generation${t.rewritten_away.gens[0] === t.rewritten_away.gens[1] ? ` ${t.rewritten_away.gens[0]}` : `s ${t.rewritten_away.gens[0]}–${t.rewritten_away.gens[1]}`} (rewritten away)</span>` : ''}${t.ts ? ` <span>${esc(t.ts.replace('T', ' ').slice(0, 19))}</span>` : ''}${t.model ? ` <span>${esc(t.model)}</span>` : ''} <span class="lines">lines ${c.line_from}–${c.line_to}</span><button class="cite" data-turn="${t.n}" data-i="${i}" title="sed -n '${c.line_from},${c.line_to}p' ${esc(c.lake_path)} | sha256sum">Copy citation</button></div>`);
    if (t.thinking) parts.push(`<details class="thinking"><summary>Thinking</summary><pre>${esc(t.thinking)}</pre></details>`);
    // Injected instructions (system prompts, AGENTS.md) are long and not the conversation: folded.
    if (t.text && t.role === 'system') parts.push(`<details class="system"><summary>${esc(t.kind)}</summary><pre>${esc(t.text)}</pre></details>`);
    else if (t.text) parts.push(`<div class="md">${await markdown(t.text)}</div>`);
    for (const tool of t.tools ?? []) {
      parts.push(`<details class="tool"><summary>${esc(tool.name)}${argHint(tool.arguments)}${tool.is_error ? ' (failed)' : ''}</summary><pre>${esc(tool.arguments)}</pre>${tool.output ? `<pre class="out">${esc(tool.output)}</pre>` : ''}</details>`);
    }
    return `<section class="turn ${t.role}${t.sidechain ? ' side' : ''}" id="${t.rewritten_away ? `gen${t.gen}-` : ''}turn-${t.n}" data-lines="${c.line_from}-${c.line_to}">${parts.join('')}</section>`;
  }

  dispose(): void {
    for (const { panel } of this.panels.values()) panel.dispose();
    this.panels.clear();
  }
}
