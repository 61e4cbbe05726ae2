// The last bound of a query, for a process that runs one and then ends (`brain sql`). DuckDB checks
// for an interrupt between pieces of work, and the memory limit covers what its buffer manager
// holds; a scalar function such as range(60000000) does neither while it builds its one value
// (tens of seconds and gigabytes). The statement runs on DuckDB's threads, so this process's own
// timer still runs: once the time is past by a grace, or the process's memory passes its cap, the
// query is given up with the error it would have had, and the caller ends the process.
import { BrainError } from '../errors';
import { QUERY_MEMORY } from './db';

export interface WatchOptions {
  /** The statement's own timeout (0: none); the watchdog fires `graceMs` after it. */
  timeoutMs: number;
  graceMs?: number;
  /** Most resident bytes of this process while the query runs. */
  rssMax: number;
  /** Interrupts the statement (its own error then says why). */
  interrupt?: () => void;
  /** false: the time runs only from arm() (the statement's start, not the cache's update before it). */
  armed?: boolean;
}

const POLL_MS = 50;

/** Bytes this process may hold while a query answers: DuckDB's limit, the program, and the answer
 * (a JSON text of at most maxBytes, held a few times over while it is built and written). */
export function rssCap(maxBytes: number): number {
  const duck = Number.parseInt(QUERY_MEMORY, 10) * 1024 * 1024;
  return duck + 768 * 1024 * 1024 + 6 * maxBytes;
}

/** `work`, or a BrainError once its time (and grace) is past or memory passes the cap. `gaveUp`
 * says whether the watchdog fired: the work may still be running inside DuckDB then. */
export function watched<T>(work: Promise<T>, o: WatchOptions): { result: Promise<T>; gaveUp: () => boolean; arm: () => void } {
  let fired = false;
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearTimeout(timer);
    if (poll) clearInterval(poll);
  };
  let arm = () => undefined as void;
  const dog = new Promise<never>((_, reject) => {
    const fire = (e: BrainError) => {
      if (fired) return;
      fired = true;
      stop();
      try {
        o.interrupt?.();
      } catch {
        /* nothing running */
      }
      reject(e);
    };
    arm = () => {
      if (o.timeoutMs <= 0 || timer || fired || done) return;
      timer = setTimeout(
        () =>
          fire(
            new BrainError(
              'sql-timeout',
              `the statement ran longer than ${seconds(o.timeoutMs)} and did not stop when interrupted (it was inside one function call building a single value)`,
              'Build smaller values (list_slice, substr, LIMIT inside the subquery), or allow more time: brain sql --timeout.',
            ),
          ),
        o.timeoutMs + (o.graceMs ?? 2000),
      );
    };
    if (o.armed !== false) arm();
    poll = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > o.rssMax) {
        fire(
          new BrainError(
            'sql-memory',
            `the statement made this process hold ${mb(rss)}, past the ${mb(o.rssMax)} a query may use, and was stopped`,
            'Aggregate or filter more (WHERE, GROUP BY, LIMIT), or select parts of a long value (substr, list_slice) instead of building it whole.',
          ),
        );
      }
    }, POLL_MS);
  });
  const result = Promise.race([work, dog]).finally(() => {
    done = true;
    stop();
  });
  // The loser of the race must not be an unhandled rejection.
  work.catch(() => undefined);
  dog.catch(() => undefined);
  return { result, gaveUp: () => fired, arm: () => arm() };
}

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);
