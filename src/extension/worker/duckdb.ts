// The DuckDB cache follows the floor in the background, so brain_sql and the activity picture
// answer at once. When it runs is the after-capture pipeline's to decide (the worker's policy in
// recorder.ts); this is how: in a process of its own (the CLI, the same core), because a large
// ingest keeps its thread busy for seconds and a DuckDB call cut short inside a thread would take
// the editor down with it, while a child can simply be stopped when the window closes.
import type { ChildProcess } from 'node:child_process';
import type { BuildResult } from '../../core/cache';
import type { WorkerCtx } from './context';
import { runCli } from './cli';

export class DuckdbFollower {
  private child: ChildProcess | undefined;
  private running: Promise<string> | undefined;

  constructor(private ctx: Pick<WorkerCtx, 'params' | 'emit'>) {}

  /** One update (`brain rebuild --update`), shown as the 'index' phase; resolves to what it did,
   * rejects with why it failed. */
  readonly update = (): Promise<string> => {
    const { emit } = this.ctx;
    emit('progress', { phase: 'index', files: 0, bytes: 0, done: false });
    this.running = runCli(this.ctx.params, ['rebuild', '--update', '--json'], { timeoutMs: 30 * 60_000, started: (c) => (this.child = c), background: true })
      .then((r) => {
        this.child = undefined;
        if (r.code !== 0 && r.code !== 1) throw new Error(r.stderr.trim().split('\n').pop() || `exit ${r.code}`);
        const b = JSON.parse(r.stdout) as BuildResult;
        return b.mode === 'current' ? 'current' : `${b.mode} in ${b.ms} ms`;
      })
      .finally(() => {
        this.running = undefined;
        emit('progress', { phase: 'index', files: 0, bytes: 0, done: true });
      });
    return this.running;
  };

  /** Resolves once no update is running: `brain sql` would be refused the cache's lock meanwhile. */
  idle(): Promise<unknown> {
    return this.running?.catch(() => undefined) ?? Promise.resolve();
  }

  /** DuckDB writes its file transactionally: stopping mid-update loses only that update. */
  stop(): void {
    this.child?.kill('SIGTERM');
  }
}
