// The dialect side of row-record lake files (kit/sqlite.ts): a parser that reads every line of a
// session's file, keeps each row's versions with the line each came from, and at the end hands the
// agent's builder the rows as they stand (the last version of each key) and the rows deleted since
// (their last version before the tombstone). No turn is final before the file ends (a later line may
// change or delete any row), so the parser holds from the first line, like a document's: the index
// reads a grown file again whole.
import type { Checkpoint, Dialect, DialectParser, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser } from './parser';
import { lineText } from './jsonl';
import { colsOf, isRowsFile, readRowLine, rowId } from './sqlite';

export type Cols = Record<string, number | string | Buffer | null>;

/** One row as the file last recorded it. */
export interface Row {
  table: string;
  key: (number | string | null)[];
  cols: Cols;
  /** The line of this version. */
  span: Span;
  /** Versions recorded before this one (0 for a row written once). */
  earlier: number;
  /** The row was deleted (a tombstone follows this version). */
  deleted: boolean;
}

/** What a builder gets: every row's latest version, by table, in the order rows first appeared. */
export interface RowSet {
  tables: Map<string, Row[]>;
  /** The rows of `table`, current and deleted (deleted ones flagged). */
  rows(table: string): Row[];
}

/** Builds the turns of one session from its rows; `turn` makes a numbered turn citing `span`. */
export type RowsBuilder = (rows: RowSet, b: TurnMaker, p: RowsParser) => void;

export interface TurnMaker {
  turn(role: Turn['role'], kind: Turn['kind'], ts: string | null, span: Span): Turn;
  emit(t: Turn): void;
}

/** The smallest line range covering all `spans` (a turn made of a message and its parts). */
export function cover(spans: Span[]): Span {
  let s = spans[0];
  for (const x of spans.slice(1)) {
    s = {
      line_from: Math.min(s.line_from, x.line_from),
      line_to: Math.max(s.line_to, x.line_to),
      byte_from: Math.min(s.byte_from, x.byte_from),
      byte_to: Math.max(s.byte_to, x.byte_to),
    };
  }
  return s;
}

export class RowsParser extends BaseParser<Record<string, never>> {
  private byId = new Map<string, Row>();
  private order: Row[] = [];

  constructor(
    opts: ParseOptions,
    emit: (t: Turn) => void,
    private readonly build: RowsBuilder,
    resume?: Checkpoint,
  ) {
    super(opts, emit, {}, resume);
  }

  protected onLine(l: RawLine): void {
    this.hold();
    const r = readRowLine(lineText(l));
    if (!r) return this.badLine(l);
    const id = rowId(r);
    const had = this.byId.get(id);
    const span = { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to };
    if (r.op === 'del') {
      if (had) had.deleted = true;
      return;
    }
    if (had) {
      had.cols = colsOf(r.cols);
      had.span = span;
      had.earlier++;
      had.deleted = false;
    } else {
      const row: Row = { table: r.table, key: r.key, cols: colsOf(r.cols), span, earlier: 0, deleted: false };
      this.byId.set(id, row);
      this.order.push(row);
    }
  }

  protected onFinish(): void {
    const tables = new Map<string, Row[]>();
    for (const r of this.order) {
      let a = tables.get(r.table);
      if (!a) tables.set(r.table, (a = []));
      a.push(r);
    }
    const set: RowSet = { tables, rows: (t) => tables.get(t) ?? [] };
    const maker: TurnMaker = {
      turn: (role, kind, ts, span) => ({
        n: ++this.n,
        role,
        kind,
        text: '',
        thinking: '',
        tools: [],
        model: null,
        ts,
        ts_last: ts,
        tokens: null,
        sidechain: false,
        cwd: this.facts.cwd,
        branch: false,
        span,
        full: this.opts.full,
      }),
      emit: (t) => this.emit(t),
    };
    this.build(set, maker, this);
    this.release();
  }

  /** For builders: the session's facts. */
  get sessionFacts(): RowsParser['facts'] {
    return this.facts;
  }

  /** Thinking, tool arguments and tool output are read too (show, the scan tier). */
  get full(): boolean {
    return this.opts.full;
  }

  seenTs(ts: string | null): void {
    this.seen(ts);
  }
}

/** A dialect over row-record files whose turns `build` makes. */
export function rowsDialect(build: RowsBuilder, reads: (rel: string) => boolean = isRowsFile): Dialect {
  return {
    reads,
    open(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint): DialectParser {
      return new RowsParser(opts, emit, build, resume);
    },
  };
}

/** A JSON text column parsed (null when it is not JSON text). */
export function jsonCol(v: Cols[string] | undefined): Record<string, unknown> | null {
  if (typeof v !== 'string') return null;
  try {
    const j = JSON.parse(v) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Milliseconds (or seconds, below 1e11) since the epoch as ISO-8601; null when not a number. */
export function isoOf(v: unknown): string | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  return new Date(n < 1e11 ? n * 1000 : n).toISOString();
}
