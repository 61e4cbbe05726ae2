// One read-only statement, answered within bounds. The answer is measured as it is read: rows are
// fetched chunk by chunk and converted one value at a time, a value longer than its share of the
// byte cap is cut (ending "…[cut 49.9 MB]"), and fetching stops once the cap is reached, so a
// query over huge values costs what the cap holds, not what the table holds. The statement runs
// under a timer and an optional AbortSignal; either interrupts it inside DuckDB.
import { registry } from '../agents';
import type { DuckDBConnection, DuckDBType, DuckDBVector } from '@duckdb/node-api';
import { BrainError } from '../errors';
import { precheck, checkType } from './readonly';
import { TIMEOUT_HELP } from '../sqllimits';
import { QUERY_MEMORY } from './db';
import { canWalk, convert as convertRaw, head, measure, sizeText } from './bounded';

export interface SqlColumn {
  name: string;
  type: string;
}

export interface SqlResult {
  columns: SqlColumn[];
  /** Row values as JSON: numbers (64-bit integers beyond 2^53 as strings), text, lists, objects. */
  rows: unknown[][];
  /** More rows exist than are here: past `limit`, or past `max_bytes`. */
  truncated: boolean;
  limit: number;
  /** The byte cap the rows were fitted under (measured as JSON objects keyed by column). */
  max_bytes: number;
  /** How many values were cut short; each ends with "…[cut <size>]". */
  cut_values: number;
  /** Set when values were cut or rows left out for the cap: what happened and how to ask for less. */
  note?: string;
}

export interface QueryOptions {
  /** Most rows. */
  limit: number;
  /** Most bytes of the answer. */
  maxBytes: number;
  /** Milliseconds before the statement is interrupted; 0: no limit. */
  timeoutMs: number;
  /** Interrupts the statement when aborted (the client went away or cancelled). */
  signal?: AbortSignal;
}

// Bytes kept out of the rows' share for the columns' names, the note and the caller's own fields.
const NOTE_ROOM = 1024;
// Even a value cut to nothing says how much was cut.
const MARK_ROOM = 32;

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');

export { sizeText };

interface Fitted {
  v: unknown;
  bytes: number;
  cut: boolean;
}

/** The value as it goes into the answer: whole if its JSON fits in `room` bytes, else its text
 * (a list or struct as JSON text) cut to fit, with how much was cut. */
function fit(v: unknown, room: number): Fitted {
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return { v, bytes: String(v).length, cut: false };
  let text: string;
  if (typeof v === 'string') {
    // Each UTF-16 unit is at least one byte of JSON: a longer string cannot fit, and is never
    // encoded whole.
    if (v.length + 2 <= room) {
      const b = bytesOf(JSON.stringify(v));
      if (b <= room) return { v, bytes: b, cut: false };
    }
    text = v;
  } else {
    text = JSON.stringify(v);
    const b = bytesOf(text);
    if (b <= room) return { v, bytes: b, cut: false };
  }
  const total = bytesOf(text);
  return cutText(text, room, (kept) => sizeText(total - bytesOf(kept)));
}

/** `text` cut to fit `room` bytes of JSON, ending with the marker that says what `rest` of it went. */
function cutText(text: string, room: number, rest: (kept: string) => string): Fitted {
  let keep = Math.min(text.length, room);
  for (;;) {
    let head = text.slice(0, keep);
    if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
    const out = `${head}…[cut ${rest(head)}]`;
    const b = bytesOf(JSON.stringify(out));
    if (b <= room || keep === 0) return { v: out, bytes: b, cut: true };
    keep = Math.max(0, Math.min(keep - 1, Math.floor((keep * room) / b)));
  }
}

// DuckDB type ids of 64/128-bit integers and decimals, which the JSON converter gives as strings.
const NUMERIC_TEXT = new Set([5, 9, 16, 19, 32]); // BIGINT, UBIGINT, HUGEINT, DECIMAL, UHUGEINT

function jsonValue(v: unknown, typeId: number): unknown {
  if (typeof v === 'string' && NUMERIC_TEXT.has(typeId)) {
    const n = Number(v);
    if (Number.isFinite(n) && (typeId === 19 || Number.isSafeInteger(n))) return n;
  }
  return v;
}

export function sqlError(e: unknown): BrainError {
  if (e instanceof BrainError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  const first = err.message.split('\n')[0];
  if (/read-only mode|file system operations are disabled|configuration has been locked/i.test(err.message)) {
    return new BrainError('sql-read-only', `brain sql is read-only: ${first}`, 'Only SELECT statements can run here.', { cause: err });
  }
  if (/^Out of Memory Error/i.test(first)) {
    return new BrainError('sql-memory', `the statement needed more memory than a query may use (${QUERY_MEMORY}): ${first}`, 'Aggregate or filter more (WHERE, GROUP BY, LIMIT), or select parts of a long value (substr, list_slice) instead of building it whole.', { cause: err });
  }
  return new BrainError('sql-error', first, `Tables: floor.raw_lines, floor.files, floor.chunks, derived.messages, derived.sessions, derived.files, derived.tool_calls, derived.usage; views: ${registry().dialectViews()}.`, { cause: err });
}

/** Runs each DuckDB call of one statement under its timer and signal: once either fires, the
 * running call is interrupted and every call answers with why. */
function guard(conn: DuckDBConnection, timeoutMs: number, signal: AbortSignal | undefined) {
  let why: 'timeout' | 'cancelled' | undefined;
  const stop = (w: 'timeout' | 'cancelled') => {
    if (why) return;
    why = w;
    try {
      conn.interrupt();
    } catch {
      /* nothing running */
    }
  };
  const timer = timeoutMs > 0 ? setTimeout(() => stop('timeout'), timeoutMs) : undefined;
  const onAbort = () => stop('cancelled');
  if (signal?.aborted) stop('cancelled');
  else signal?.addEventListener('abort', onAbort, { once: true });
  const stopped = (cause?: unknown) =>
    why === 'timeout'
      ? new BrainError(
          'sql-timeout',
          `the statement ran longer than ${sizeSeconds(timeoutMs)} and was stopped`,
          `Aggregate or filter more (WHERE, GROUP BY, LIMIT), or allow more time: brain sql --timeout, BRAIN_SQL_TIMEOUT or [sql] timeout in config.toml (${TIMEOUT_HELP}).`,
          { cause },
        )
      : new BrainError('sql-cancelled', 'the statement was cancelled before it finished (the caller went away or cancelled it)', 'Ask again.', { cause });
  return {
    /** Starts the call only if nothing has stopped the statement yet: an interrupt that comes
     * before a call starts would not reach it. */
    async run<T>(call: () => Promise<T>): Promise<T> {
      if (why) throw stopped();
      let r: T;
      try {
        r = await call();
      } catch (e) {
        throw why ? stopped(e) : sqlError(e);
      }
      if (why) throw stopped();
      return r;
    },
    done() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function sizeSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The statement checks and the bounded read, on an open read-only connection. */
export async function readOnlyQuery(conn: DuckDBConnection, query: string, opts: QueryOptions): Promise<SqlResult> {
  precheck(query);
  const limit = Math.max(1, Math.floor(opts.limit));
  const g = guard(conn, opts.timeoutMs, opts.signal);
  try {
    const ex = await g.run(() => conn.extractStatements(query));
    if (ex.count !== 1) {
      throw new BrainError('sql-one-statement', `brain sql runs one statement at a time; this text has ${ex.count}.`, 'Remove the extra statements (or the trailing `;` and what follows it).');
    }
    const p = await g.run(() => ex.prepare(0));
    try {
      checkType(p.statementType, query);
      const result = await g.run(() => p.stream());
      const names = result.columnNames();
      const types = result.columnTypes();
      const columns = names.map((n, i) => ({ name: n, type: types[i].toString() }));
      // Rows are measured as the JSON objects an agent gets ({"column": value, ...}), which is
      // also an upper bound of the arrays `brain sql --json` prints.
      const keyBytes = names.map((n) => bytesOf(JSON.stringify(n)) + 2);
      const budget = Math.max(512, opts.maxBytes - bytesOf(JSON.stringify(columns)) - NOTE_ROOM);
      // No single value takes more than a quarter of the answer, so one long text does not hide
      // the rows after it.
      const valueMax = Math.max(256, Math.floor(budget / 4));
      const rows: unknown[][] = [];
      let used = 2;
      let cutValues = 0;
      let full = false;
      let more = false;
      read: for (;;) {
        const chunk = await g.run(() => result.fetchChunk());
        if (!chunk || chunk.rowCount === 0) break;
        const vectors: DuckDBVector[] = names.map((_, c) => chunk.getColumnVector(c));
        for (let r = 0; r < chunk.rowCount; r++) {
          if (rows.length >= limit || full) {
            more = true;
            break read;
          }
          const row: unknown[] = [];
          let rowBytes = 3;
          let rowCut = 0;
          for (let c = 0; c < vectors.length; c++) {
            // A value is cut only when it is long; a row that does not fit whole is left out,
            // except the first, which is cut into what room there is.
            const room = rows.length > 0 ? valueMax : Math.max(MARK_ROOM, Math.min(valueMax, budget - used - rowBytes - keyBytes[c]));
            const f = value(vectors[c], r, room);
            row.push(f.v);
            rowBytes += keyBytes[c] + f.bytes;
            if (f.cut) rowCut++;
          }
          if (rows.length > 0 && used + rowBytes > budget) {
            full = true;
            more = true;
            break read;
          }
          rows.push(row);
          used += rowBytes;
          cutValues += rowCut;
          if (used >= budget - MARK_ROOM) full = true;
        }
      }
      const notes: string[] = [];
      if (cutValues > 0) notes.push(`${cutValues} value${cutValues === 1 ? ' was' : 's were'} cut to fit (each ends with "…[cut <size>]"); read a long value in parts with substr(column, start, length)`);
      if (full && more) notes.push(`rows stop at ${rows.length}, where the answer reached its ${sizeText(opts.maxBytes)} cap; select fewer or shorter columns, aggregate, or page with LIMIT and OFFSET`);
      return {
        columns,
        rows,
        truncated: more,
        limit,
        max_bytes: opts.maxBytes,
        cut_values: cutValues,
        ...(notes.length ? { note: notes.join('; ') } : {}),
      };
    } finally {
      p.destroySync();
    }
  } finally {
    g.done();
  }
}

/** One value fitted to its room: a value that measures longer is never converted whole, only its
 * head is read (bounded.ts), so the work and memory of one value follow the room, not the value. */
function value(vec: DuckDBVector, r: number, room: number): Fitted {
  try {
    if (canWalk(vec, r) && measure(vec, r, room) > room) {
      const h = head(vec, r, room, (x) => x);
      return cutText(h.text, room, h.rest);
    }
  } catch (e) {
    throw sqlError(e);
  }
  return fit(convert(vec.getItem(r), vec.type), room);
}

function convert(raw: ReturnType<DuckDBVector['getItem']>, type: DuckDBType): unknown {
  try {
    return jsonValue(convertRaw(raw, type), type.typeId);
  } catch (e) {
    throw sqlError(e);
  }
}
