// Plain-text tables that fit a terminal: columns shrink (widest first) to the width, cells cut
// with '…'; numbers right-aligned. Used by brain sql, stats and calls.
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v.replace(/[\r\n\t]+/g, ' ');
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

export function formatTable(headers: string[], rows: unknown[][], width = 100, rightAlign?: boolean[]): string {
  const text = rows.map((r) => r.map(cellText));
  const align = rightAlign ?? headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null));
  const w = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i].length)));
  const sep = 2;
  const total = () => w.reduce((a, b) => a + b, 0) + sep * (w.length - 1);
  // Shrink the widest column one step at a time until the table fits (never below its header,
  // nor below 4).
  const least = headers.map((h) => Math.max(4, h.length));
  while (total() > width) {
    let k = -1;
    for (let i = 0; i < w.length; i++) if (w[i] > least[i] && (k < 0 || w[i] > w[k])) k = i;
    if (k < 0) break;
    w[k]--;
  }
  const fit = (s: string, n: number, right: boolean) => {
    const t = s.length > n ? s.slice(0, Math.max(0, n - 1)) + '…' : s;
    return right ? t.padStart(n) : t.padEnd(n);
  };
  const line = (cells: string[]) => cells.map((c, i) => fit(c, w[i], align[i])).join(' '.repeat(sep)).trimEnd();
  const out = [line(headers), w.map((n) => '─'.repeat(n)).join(' '.repeat(sep))];
  for (const r of text) out.push(line(r));
  return out.join('\n');
}

/** The width a table may take: a terminal's; no limit when the output goes to a pipe or a file
 * (a program or a file reads every character; cutting there lost headers and values), unless
 * COLUMNS asks for one. */
export function terminalWidth(stream: NodeJS.WritableStream): number {
  const s = stream as NodeJS.WriteStream;
  if (!s.isTTY) {
    // A width asked for (COLUMNS exported) is kept, as ls and friends do.
    const c = Number(process.env.COLUMNS);
    return Number.isInteger(c) && c > 20 ? c : Number.POSITIVE_INFINITY;
  }
  return typeof s.columns === 'number' && s.columns > 20 ? s.columns : 120;
}

export function compactNumber(n: number): string {
  if (Math.abs(n) < 10_000) return String(n);
  const u = ['K', 'M', 'G', 'T'];
  let v = n;
  let i = -1;
  while (Math.abs(v) >= 1000 && i < u.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)}${u[i]}`;
}
