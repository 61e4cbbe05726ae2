// One turn index a long-lived process (brain mcp, the editor's worker) keeps open between calls
// while its file stays the same, and lets go after a few idle minutes: opening one costs more than
// a search, and holding one costs memory.
import type { TurnIndex } from './update';

export class IndexKeeper {
  private held: { key: string; index: TurnIndex; timer: NodeJS.Timeout } | null = null;

  constructor(private readonly idleMs = 5 * 60_000) {}

  /** The index kept under `key`, its idle time started again; null when none is. */
  get(key: string | null): TurnIndex | null {
    if (!this.held || key === null || this.held.key !== key) return null;
    this.held.timer.refresh();
    return this.held.index;
  }

  /** Keeps `index` under `key` in place of whatever was kept. */
  keep(key: string, index: TurnIndex): void {
    this.drop();
    index.kept = true;
    this.held = { key, index, timer: setTimeout(() => this.drop(), this.idleMs).unref() };
  }

  holds(index: TurnIndex): boolean {
    return this.held?.index === index;
  }

  /** Closes the kept index, if any. */
  drop(): void {
    if (!this.held) return;
    clearTimeout(this.held.timer);
    this.held.index.kept = false;
    this.held.index.close();
    this.held = null;
  }
}
