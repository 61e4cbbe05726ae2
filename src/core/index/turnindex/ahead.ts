// Parse threads for an update's round (update.ts): the files behind are sent to them a few ahead
// of the inserts, and each result is taken back, in order, when its file's turn comes.
import type { ParseJob, ParseResult } from '../parse-job';
import type { ParsePool } from '../pool';
import type { FileRow, UpdateReport } from './schema';

/** What a parse was based on: a result parsed ahead is stale once this changes. */
export function progressKey(r: FileRow): string {
  return `${r.ck ?? ''}|${r.done}|${r.claimed}|${r.unterminated}|${r.raw_done}`;
}

/** A result parsed ahead, with the progress it was parsed from. */
export type Ahead = { key: string; result: ParseResult };

export class ParseAhead {
  private readonly sent: ({ key: string; bytes: number } | undefined)[] = [];
  private next = 0;
  private inFlight = 0;

  /** `pool` null: no threads, every file is parsed by the one inserting it. `jobOf`: a file's job
   * (null: none to send). */
  constructor(
    private pool: ParsePool | null,
    private readonly behind: FileRow[],
    private readonly jobOf: (row: FileRow) => ParseJob | null,
  ) {}

  /** Keeps the parse threads a few files (at most 48 MB) ahead of the inserts, which are at `from`. */
  fill(from: number): void {
    if (!this.pool) return;
    while (this.next < this.behind.length && this.next - from < 16 && this.inFlight < 48 << 20) {
      const row = this.behind[this.next];
      const job = this.jobOf(row);
      if (job) {
        const bytes = Math.max(0, row.claimed - (job.resume?.byte ?? 0));
        this.pool.send(job);
        this.sent[this.next] = { key: progressKey(row), bytes };
        this.inFlight += bytes;
      }
      this.next++;
    }
  }

  /** The result of file `i` when a thread parsed it; undefined when it is to be parsed here. */
  take(i: number, rep: UpdateReport): Ahead | undefined {
    const s = this.sent[i];
    if (!s || !this.pool) return undefined;
    // A minute, plus a second per MB: far more than a parse takes, unless the thread died.
    const m = this.pool.next(60_000 + s.bytes / 1000);
    this.inFlight -= s.bytes;
    if (!m) {
      // Noticed within seconds (pool.ts): this thread parses the rest, and says so.
      rep.thread_failed = this.pool.failed ?? 'a parse thread stopped answering';
      this.pool.close();
      this.pool = null;
      return undefined;
    }
    // A job that failed there is parsed again here, where its error is reported.
    return m.ok && m.result ? { key: s.key, result: m.result } : undefined;
  }

  close(): void {
    this.pool?.close();
  }
}
