// After capture: bring the caches up to the floor. Each step is a cache (deletable, rebuilt from
// the floor), so a failing step is reported and never undoes or blocks capture.
import * as fs from 'node:fs';
import { layout, type Env } from './home';
import { describe } from './errors';


export interface StepResult {
  step: 'secrets' | 'index' | 'duckdb';
  ok: boolean;
  ms: number;
  detail: string;
}

export interface PipelineOptions {
  /** DuckDB is the heaviest step; a watcher runs it less often. */
  duckdb?: boolean;
}

async function step(name: StepResult['step'], fn: () => Promise<string> | string): Promise<StepResult> {
  const t0 = performance.now();
  try {
    const detail = await fn();
    return { step: name, ok: true, ms: performance.now() - t0, detail };
  } catch (e) {
    return { step: name, ok: false, ms: performance.now() - t0, detail: describe(e) };
  }
}

export async function afterCapture(home: string, env: Env = process.env, opts: PipelineOptions = {}): Promise<StepResult[]> {
  const out: StepResult[] = [];
  out.push(
    await step('secrets', async () => {
      const { scanPending } = await import('./secrets/index');
      const r = await scanPending(home, { waitMs: 0 });
      if (!r.ran) return 'another scan is running';
      return r.added.length > 0
        ? `${r.added.length} new secret(s) found in captured sessions: run \`brain secrets\` and rotate them`
        : `${r.chunks} new chunk(s) scanned, no new secrets`;
    }),
  );
  out.push(
    await step('index', async () => {
      const { openIndex } = await import('./index/turnindex');
      const { homeRoot } = await import('./index/roots');
      const o = openIndex(homeRoot(env, home));
      if (!o.ok) return `not updated: ${o.reason} (search falls back to a scan)`;
      try {
        const r = o.index.update();
        return `${r.turns} turns from ${r.files} files`;
      } finally {
        o.index.close();
      }
    }),
  );
  // The first DuckDB build is the slow one (about a minute of CPU per GB of lake): it happens on the
  // first query (brain sql, stats, the activity picture), not in the way of capture.
  if (opts.duckdb !== false && fs.existsSync(layout(home).duckdb)) {
    out.push(
      await step('duckdb', async () => {
        // Loaded only here: DuckDB's native module stays out of processes that never query it.
        const { updateCache } = await import('./cache/index');
        const r = await updateCache(home);
        return r.mode === 'current' ? 'current' : `${r.mode}: ${r.manifestLines} manifest line(s)${r.problems.length ? `, ${r.problems.length} problem(s)` : ''}`;
      }),
    );
  }
  return out;
}
