// The activity picture: sessions per day per agent (stacked bars) and each machine's backup age,
// as static SVG in a webview that follows the theme. Rows come from the DuckDB cache when it is
// there, else from the Sessions view's list (same sessions, counted by start day).
import type { BackupInfo, ListedSession } from './protocol';
import { age } from './status';

const COLORS = ['var(--vscode-charts-blue)', 'var(--vscode-charts-orange)', 'var(--vscode-charts-green)', 'var(--vscode-charts-purple)', 'var(--vscode-charts-red)', 'var(--vscode-charts-yellow)'];

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
  else for (const s of sessions) if (s.started) add(s.started.slice(0, 10), s.agentLabel, 1);
  const days = [...counts.keys()].sort().slice(-90);
  const agents = [...new Set(days.flatMap((d) => [...counts.get(d)!.keys()]))].sort();
  const max = Math.max(1, ...days.map((d) => [...counts.get(d)!.values()].reduce((a, b) => a + b, 0)));
  const W = 900;
  const H = 220;
  const bw = Math.max(3, Math.floor((W - 40) / Math.max(1, days.length)) - 2);
  const bars: string[] = [];
  days.forEach((d, i) => {
    let y = H - 20;
    for (const [ai, a] of agents.entries()) {
      const n = counts.get(d)!.get(a) ?? 0;
      if (!n) continue;
      const h = Math.round(((H - 40) * n) / max);
      y -= h;
      bars.push(`<rect x="${30 + i * (bw + 2)}" y="${y}" width="${bw}" height="${h}" fill="${COLORS[ai % COLORS.length]}"><title>${esc(d)} ${esc(a)}: ${n}</title></rect>`);
    }
  });
  const labels = days.length ? `<text x="30" y="${H - 4}">${esc(days[0])}</text><text x="${W - 10}" y="${H - 4}" text-anchor="end">${esc(days[days.length - 1])}</text><text x="2" y="16">${max}</text>` : '<text x="30" y="40">no sessions yet</text>';
  const legend = agents.map((a, i) => `<span class="key"><i style="background:${COLORS[i % COLORS.length]}"></i>${esc(a)}</span>`).join(' ');
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
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px}svg text{fill:var(--vscode-descriptionForeground);font-size:11px}.key{margin-right:12px}.key i{display:inline-block;width:10px;height:10px;margin-right:4px}</style></head><body>
<h2>Sessions per day</h2><div>${legend}</div><svg width="${W}" height="${H}" role="img" aria-label="sessions per day per agent">${bars.join('')}${labels}</svg>
<h2>Backup age per machine</h2><svg width="${W}" height="${machines.length * 24 + 8}" role="img" aria-label="backup age per machine">${rows}</svg>
<p>${sqlRows?.length ? 'From the DuckDB cache.' : 'From the recorded sessions list (the DuckDB cache is not built yet).'}</p>
</body></html>`;
}
