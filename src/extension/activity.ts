// The activity picture: sessions per day per agent (stacked bars) and each machine's backup age,
// as static SVG in a webview that follows the theme. Rows come from the DuckDB cache when it is
// there, else from the Sessions view's list (same sessions, counted by local start day).
import type { BackupInfo, ListedSession } from './protocol';
import { age, day } from './labels';

const COLORS = ['var(--vscode-charts-blue)', 'var(--vscode-charts-orange)', 'var(--vscode-charts-green)', 'var(--vscode-charts-purple)', 'var(--vscode-charts-red)', 'var(--vscode-charts-yellow)'];

/** The theme's chart colours first, then evenly spread hues: every agent gets a colour of its own. */
function color(i: number): string {
  return i < COLORS.length ? COLORS[i] : `hsl(${Math.round((i * 137.5) % 360)} 55% 55%)`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function activityHtml(sessions: ListedSession[], backup: BackupInfo, sqlRows?: unknown[]): string {
  const counts = new Map<string, Map<string, number>>();
  const add = (day: string, agent: string, n: number) => {
    const m = counts.get(day) ?? new Map<string, number>();
    m.set(agent, (m.get(agent) ?? 0) + n);
    counts.set(day, m);
  };
  if (sqlRows?.length) for (const r of sqlRows as { day: string; agent: string; sessions: number }[]) add(String(r.day), String(r.agent), Number(r.sessions));
  else for (const s of sessions) if (s.started) add(day(s.started), s.agentLabel, 1);
  // A continuous axis: every day from the first to the last (up to 90), empty days included, so
  // the bars' spacing is time and a gap is a gap.
  const seen = [...counts.keys()].filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).sort();
  const days: string[] = [];
  if (seen.length) {
    const last = Date.parse(`${seen[seen.length - 1]}T00:00:00Z`);
    const first = Math.max(Date.parse(`${seen[0]}T00:00:00Z`), last - 89 * 86400_000);
    for (let t = first; t <= last; t += 86400_000) days.push(new Date(t).toISOString().slice(0, 10));
  }
  const dayTotal = (d: string) => [...(counts.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const agents = [...new Set(days.flatMap((d) => [...(counts.get(d)?.keys() ?? [])]))].sort();
  const max = Math.max(1, ...days.map(dayTotal));
  const W = 900;
  const H = 240;
  const left = 36;
  const base = H - 28;
  const bw = Math.max(2, Math.floor((W - left - 10) / Math.max(1, days.length)) - 1);
  const bars: string[] = [];
  days.forEach((d, i) => {
    let y = base;
    for (const [ai, a] of agents.entries()) {
      const n = counts.get(d)?.get(a) ?? 0;
      if (!n) continue;
      const h = Math.max(1, Math.round(((base - 12) * n) / max));
      y -= h;
      bars.push(`<rect x="${left + i * (bw + 1)}" y="${y}" width="${bw}" height="${h}" fill="${color(ai)}"><title>${esc(d)} ${esc(a)}: ${n}</title></rect>`);
    }
  });
  // Axes: a tick per week (or per month past ~10 weeks) labelled with its date, and the y scale.
  const ticks: string[] = [];
  const monthly = days.length > 70;
  days.forEach((d, i) => {
    const date = new Date(`${d}T00:00:00Z`);
    const on = monthly ? date.getUTCDate() === 1 : date.getUTCDay() === 1;
    if (!on && i !== 0) return;
    const x = left + i * (bw + 1);
    const label = date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    ticks.push(`<line x1="${x}" y1="${base}" x2="${x}" y2="${base + 4}" class="axis"/><text x="${x}" y="${base + 16}">${esc(label)}</text>`);
  });
  const yTicks = [0, Math.ceil(max / 2), max].map((v) => `<text x="${left - 6}" y="${base - Math.round(((base - 12) * v) / max) + 4}" text-anchor="end">${v}</text>`);
  const labels = days.length
    ? `<line x1="${left}" y1="${base}" x2="${W - 4}" y2="${base}" class="axis"/>${ticks.join('')}${yTicks.join('')}`
    : '<text x="30" y="40">no sessions yet</text>';
  const legend = agents.map((a, i) => `<span class="key"><i style="background:${color(i)}"></i>${esc(a)}</span>`).join(' ');
  const machines = backup.machines.length ? backup.machines : [{ machine: 'this machine', lastSync: backup.lastOk, versions: [], warnings: [], atRisk: 0 }];
  const maxAge = Math.max(1, ...machines.map((m) => (m.lastSync ? Date.now() - Date.parse(m.lastSync) : 0)));
  const rows = machines
    .map((m, i) => {
      const ms = m.lastSync ? Date.now() - Date.parse(m.lastSync) : maxAge;
      const w = Math.max(2, Math.round((500 * ms) / maxAge));
      return `<text x="0" y="${i * 24 + 16}">${esc(m.machine)}</text><rect x="160" y="${i * 24 + 4}" width="${w}" height="16" fill="${m.lastSync ? 'var(--vscode-charts-green)' : 'var(--vscode-charts-red)'}"/><text x="${170 + w}" y="${i * 24 + 16}">${m.lastSync ? `${age(m.lastSync)} ago` : 'never'}</text>`;
    })
    .join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px}svg text{fill:var(--vscode-descriptionForeground);font-size:11px}.axis{stroke:var(--vscode-descriptionForeground)}.key{margin-right:12px}.key i{display:inline-block;width:10px;height:10px;margin-right:4px}</style></head><body>
<h2>Sessions per day</h2><div>${legend}</div><svg width="${W}" height="${H}" role="img" aria-label="sessions per day per agent">${bars.join('')}${labels}</svg>
<h2>Backup age per machine</h2><svg width="${W}" height="${machines.length * 24 + 8}" role="img" aria-label="backup age per machine">${rows}</svg>
<p>${sqlRows?.length ? 'From the DuckDB cache.' : 'From the recorded sessions list (the DuckDB cache is not built yet).'}</p>
</body></html>`;
}
