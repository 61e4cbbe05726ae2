// Status and Doctor as a readable page: each check a row with its state, what was found and the fix,
// instead of raw text in the Output panel. Static HTML (no script), every value escaped: details
// name paths and hosts, which come from the user's config and the store.
import type { BackupInfo } from './protocol';
import { age } from './labels';

export interface Check {
  name: string;
  level: 'ok' | 'fail' | 'warn' | 'info' | string;
  detail: string;
  fix?: string;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const MARK: Record<string, string> = { ok: '✓', fail: '✗', warn: '!', info: 'i' };

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>
body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px 20px;max-width:1000px}
h1{font-size:1.4em;font-weight:600}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid var(--vscode-editorWidget-border,#8884)}
th{color:var(--vscode-descriptionForeground);font-weight:normal}
.mark{width:1.5em;text-align:center;font-weight:bold}.ok .mark{color:var(--vscode-testing-iconPassed,#3a3)}.fail .mark{color:var(--vscode-testing-iconFailed,#d33)}
.warn .mark{color:var(--vscode-editorWarning-foreground,#c90)}.info .mark{color:var(--vscode-descriptionForeground)}
.fix{margin-top:4px;color:var(--vscode-descriptionForeground)}code{font-family:var(--vscode-editor-font-family);word-break:break-all}
.summary{padding:8px 12px;border-left:3px solid var(--vscode-textLink-foreground);background:var(--vscode-textBlockQuote-background)}
</style><title>${esc(title)}</title></head><body>${body}</body></html>`;
}

/** `brain doctor --json`'s checks, problems first. */
export function doctorHtml(checks: Check[]): string {
  const order = { fail: 0, warn: 1, info: 2, ok: 3 } as Record<string, number>;
  const sorted = checks.slice().sort((a, b) => (order[a.level] ?? 2) - (order[b.level] ?? 2));
  const problems = checks.filter((c) => c.level === 'fail').length;
  const rows = sorted
    .map((c) => `<tr class="${esc(c.level)}"><td class="mark">${MARK[c.level] ?? '·'}</td><td>${esc(c.name)}</td><td>${esc(c.detail)}${c.fix ? `<div class="fix">Fix: <code>${esc(c.fix)}</code></div>` : ''}</td></tr>`)
    .join('');
  const summary = problems ? `${problems} problem${problems === 1 ? '' : 's'} found; each says how to fix it.` : 'No problems found.';
  return page('Agent Brain: Doctor', `<h1>Agent Brain: Doctor</h1><p class="summary">${esc(summary)}</p><table><tr><th></th><th>check</th><th>what was found</th></tr>${rows}</table>`);
}

export interface StatusJson {
  version?: string;
  machine?: string;
  warning?: string | null;
  message?: string | null;
  hint?: string | null;
  last_ok?: string | null;
  store?: unknown;
  recording?: { label?: string; message?: string; hint?: string } | null;
}

/** `brain status --json` and the Backup view's facts as one page. */
export function statusHtml(s: StatusJson, b: BackupInfo | undefined, now = Date.now()): string {
  const facts: [string, string][] = [
    ['machine', `${s.machine ?? '?'} (brain ${s.version ?? '?'})`],
    ['recording', s.recording ? `failing: ${s.recording.message ?? s.recording.label ?? ''}` : 'yes'],
    ['store', b?.store ?? (typeof s.store === 'string' ? s.store : 'not set up')],
    ['last backup that worked', s.last_ok ? `${age(s.last_ok, now)} ago (${new Date(s.last_ok).toLocaleString()})` : 'never'],
  ];
  if (s.warning) facts.push(['warning', `${s.warning}${s.message ? `: ${s.message}` : ''}`]);
  const next = s.hint ?? s.recording?.hint;
  const rows = facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  const machines = b?.machines?.length
    ? `<h2>Machines in the store</h2><table><tr><th>machine</th><th>last sync</th><th>versions</th></tr>${b.machines
        .map((m) => `<tr><td>${esc(m.machine)}</td><td>${m.lastSync ? `${esc(age(m.lastSync, now))} ago` : 'never'}</td><td>${esc(m.versions.join(', '))}</td></tr>`)
        .join('')}</table>`
    : '';
  const setUp = b?.store ? '' : '<p class="summary">Backup is not set up yet: run <b>Agent Brain: Set Up Backup…</b> to pick a store folder. Recording goes on meanwhile.</p>';
  return page('Agent Brain: Status', `<h1>Agent Brain: Status</h1>${setUp}<table>${rows}</table>${next ? `<p class="fix">Next: <code>${esc(next)}</code></p>` : ''}${machines}`);
}
