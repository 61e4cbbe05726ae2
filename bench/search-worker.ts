// The search bench's in-process half (bundled by bench/search.mjs): a full turn-index build, and
// in-index query timings, and search() called in process as brain mcp and the editor's worker call
// it. Run as `node search-worker.cjs build|terms|query|recall ...` with BRAIN_HOME set.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openIndex, fold, type TurnRow } from '../src/core/index/turnindex';
import { homeRoot } from '../src/core/index/roots';
import { laneRel, turnText } from '../src/core/index/read';
import { search } from '../src/core/recall/search';

function open() {
  const o = openIndex(homeRoot(process.env));
  if (!o.ok) throw new Error(o.reason);
  return o.index;
}

const [mode, ...args] = process.argv.slice(2);

if (mode === 'build') {
  const idx = open();
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = idx.update();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  // CPU of every thread (the parse threads included): on a shared machine a steadier figure than wall.
  const cu = process.cpuUsage(c0);
  const cpu_ms = (cu.user + cu.system) / 1000;
  const stats = idx.stats();
  // The raw trigram table's share of the file (dbstat counts its pages).
  let raw_bytes: number | null = null;
  try {
    raw_bytes = Number(idx.db.prepare(`SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'raw\_%' ESCAPE '\\'`).pluck().get());
  } catch {
    /* SQLite built without dbstat */
  }
  idx.close();
  console.log(JSON.stringify({ ...r, ...stats, ms, cpu_ms, raw_bytes }));
} else if (mode === 'terms') {
  // A common word and a middling one, from a sample of indexed turns (the corpus is random).
  const idx = open();
  // The index keeps no text: read a sample of turns back from the floor.
  const sample = idx.db
    .prepare(`SELECT t.*, f.lake_path, f.lane FROM turns t JOIN files f ON f.id = t.file_id WHERE t.said = 1 ORDER BY (t.id * 2654435761) % 1000003 LIMIT 1500`)
    .all() as (TurnRow & { lake_path: string; lane: string })[];
  const home = homeRoot(process.env).machines[0].dir;
  const rows = sample.map((t) => turnText(path.join(home, t.lake_path), t.lane, laneRel(t.lake_path).rel, t, t.role === 'u' ? 'user' : 'assistant') ?? '');
  const df = new Map<string, number>();
  for (const t of rows) {
    for (const w of new Set(fold(t).match(/[a-z][a-z_]{5,19}/g) ?? [])) if (new Set(w).size >= 4) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const byDf = [...df].sort((a, b) => b[1] - a[1]);
  const common = byDf[0][0];
  const mid = byDf.find(([, n]) => n <= rows.length * 0.01)?.[0] ?? byDf[Math.floor(byDf.length / 2)][0];
  idx.close();
  console.log(JSON.stringify({ common, mid }));
} else if (mode === 'query') {
  const idx = open();
  const n = Number(args[0]);
  const out: Record<string, { p50: number; p99: number; sessions: number }> = {};
  for (const term of args.slice(1)) {
    const times: number[] = [];
    let sessions = 0;
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      sessions = idx.match(term).length;
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    out[term] = { p50: times[Math.floor(n * 0.5)], p99: times[Math.min(n - 1, Math.floor(n * 0.99))], sessions };
  }
  idx.close();
  console.log(JSON.stringify(out));
} else if (mode === 'recall') {
  // search() as the long-lived readers call it, over and over in one process: `snapshot` as brain
  // mcp (its private copy), `worker` as the editor's worker (the live index kept open). Wall
  // time and this thread's CPU time per call (the CPU figure moves less with the machine's load).
  const use = args[0] === 'worker' ? ({ index: 'live', keepOpen: true } as const) : ({ index: 'snapshot' } as const);
  const n = Number(args[1]);
  const out: Record<string, { first: number; p50: number; p99: number; cpu_p50: number; sessions: number }> = {};
  for (const term of args.slice(2)) {
    const wall: number[] = [];
    const cpu: number[] = [];
    let sessions = 0;
    for (let i = 0; i <= n; i++) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      sessions = search({ term }, process.env, use).total;
      wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    const first = wall.shift()!;
    cpu.shift();
    wall.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    out[term] = { first, p50: wall[Math.floor(n * 0.5)], p99: wall[Math.min(n - 1, Math.floor(n * 0.99))], cpu_p50: cpu[Math.floor(n * 0.5)], sessions };
  }
  console.log(JSON.stringify(out));
} else {
  fs.writeSync(2, 'usage: search-worker build | terms | query N TERM... | recall snapshot|worker N TERM...\n');
  process.exit(2);
}
