// A row-record dialect for agents whose reader is best said as "what these rows mean" (beside
// kit/rows.ts, whose builders make numbered turns themselves): a session's lake file is a log of
// row versions (kit/sqlite.ts), and the conversation is what the rows say now. Later lines change what earlier
// ones meant (a row written again, a row deleted), so a file is always read whole: the checkpoint
// stays at its first line and the index reads the file again when it grows (one session a file
// keeps that small).
//
// What a read gives, in this order (turn numbers follow it):
// 1. the conversation as the rows hold it now: the latest version of every row, and the last
//    version of every deleted row too (an agent that evicts or loses a chat keeps it here), unless
//    what it said is said again by a live row (a conversation the agent rewrote under new keys);
// 2. what only an earlier version of a row said (an edited or truncated message), as notices;
// 3. one notice for the rows deleted since, at the last tombstone.
// The agent's reader says what a set of rows means (its entries, in the agent's order); each
// entry cites the lines of the row versions it came from.
import type { Checkpoint, DialectCounts, DialectParser, FileFacts, ParseOptions, RawLine, Role, Tokens, ToolUse, Turn, TurnKind } from '../../turns';
import { emptyFacts } from '../../turns';
import { isBlank, lineText, maxTs, minTs } from './jsonl';
import { colsOf, readRowLine, rowId, ROWS_SUFFIX, sessionFromRows } from './sqlite';

/** Where a row version is in the lake file. */
export interface LineRef {
  no: number;
  from: number;
  to: number;
}

export type Cols = Record<string, number | string | Buffer | null>;

export interface RowVersion {
  cols: Cols;
  at: LineRef;
}

/** One row (table and key) of the file, every version it was recorded with. */
export interface Row {
  table: string;
  key: (number | string | null)[];
  versions: RowVersion[];
  /** The tombstone that ended it, when its last record is one. */
  gone: LineRef | null;
}

/** One row at one version, as a reader is given it. */
export interface RowAt {
  row: Row;
  v: RowVersion;
}

/** What a reader makes of rows: a turn without its number and span. */
export interface Entry {
  role: Role;
  kind: TurnKind;
  text: string;
  thinking?: string;
  tools?: ToolUse[];
  model?: string | null;
  ts?: string | null;
  ts_last?: string | null;
  tokens?: Tokens | null;
  cwd?: string | null;
  sidechain?: boolean;
  /** The row versions it came from (at least one). */
  at: LineRef[];
}

export interface RowsReader {
  /** The session's entries as `rows` hold it (one version per row; rows of every table), in the
   * agent's order. Facts it learns (title, cwd, native session id) go into `facts`. */
  entries(rows: RowAt[], o: { full: boolean }, facts: FileFacts): Entry[];
  /** Several entries come from one row (a whole conversation in one value): turns are then told
   * apart by number (Dialect.sharedSpans). */
  shared?: boolean;
  /** The agent's name in the notice that rows were deleted. */
  label: string;
}

/** The text of a column: a text value as is, a blob's bytes as UTF-8 (agents that declare a text
 * column BLOB), null otherwise. */
export function textOf(v: number | string | Buffer | null | undefined): string | null {
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return null;
}

/** JSON of a text or blob column; null when it is not JSON. */
export function jsonOf(v: number | string | Buffer | null | undefined): unknown {
  const s = textOf(v);
  if (s === null) return null;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return null;
  }
}

/** An epoch number (seconds or milliseconds, told apart by size) or a date text as ISO-8601. */
export function isoOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) {
    const ms = v < 1e11 ? v * 1000 : v;
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  if (typeof v === 'string' && v.trim() !== '') {
    if (/^\d+$/.test(v)) return isoOf(Number(v));
    // SQLite's CURRENT_TIMESTAMP form ("2025-01-02 03:04:05") is UTC.
    const s = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(v) ? `${v.replace(' ', 'T')}Z` : v;
    const d = new Date(s);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  return null;
}

const sameKey = (e: Pick<Entry, 'role' | 'text'>) => `${e.role}\u0000${e.text}`;

class RowsParser implements DialectParser {
  facts: FileFacts = emptyFacts();
  counts: DialectCounts = { lines: 0, bad: 0 };
  private rows = new Map<string, Row>();
  private order: Row[] = [];
  private lastDel: LineRef | null = null;
  private done = false;

  constructor(
    private readonly reader: RowsReader,
    private readonly opts: ParseOptions,
    private readonly emit: (t: Turn) => void,
  ) {
    this.facts.native_session = sessionFromRows(opts.rel) || null;
  }

  line(l: RawLine): void {
    if (isBlank(l)) return;
    this.counts.lines++;
    const rec = readRowLine(lineText(l));
    if (!rec) {
      this.counts.bad++;
      this.opts.onBad?.(l);
      return;
    }
    const at = { no: l.no, from: l.from, to: l.to };
    const id = rowId(rec);
    let row = this.rows.get(id);
    if (!row) {
      row = { table: rec.table, key: rec.key, versions: [], gone: null };
      this.rows.set(id, row);
      this.order.push(row);
    }
    if (rec.op === 'del') {
      row.gone = at;
      this.lastDel = at;
      return;
    }
    row.gone = null;
    row.versions.push({ cols: colsOf(rec.cols), at });
  }

  /** The whole file is read again whenever it grows (see the top of this file). */
  checkpoint(): Checkpoint {
    return { line: 1, byte: 0, n: 0, state: null };
  }

  finish(): void {
    if (this.done) return;
    this.done = true;
    const full = { full: this.opts.full };
    const rows = this.order.filter((r) => r.versions.length > 0);
    const live = rows.filter((r) => !r.gone);
    const nowLive = this.reader.entries(
      live.map((row) => ({ row, v: row.versions[row.versions.length - 1] })),
      full,
      this.facts,
    );
    const liveSaid = new Set(nowLive.map(sameKey));
    const goneLines = new Set<number>();
    for (const r of rows) if (r.gone) goneLines.add(r.versions[r.versions.length - 1].at.no);
    // The conversation with its deleted rows, minus what a live row says again.
    const current = this.reader
      .entries(
        rows.map((row) => ({ row, v: row.versions[row.versions.length - 1] })),
        full,
        this.facts,
      )
      .filter((e) => !(e.at.length > 0 && e.at.every((a) => goneLines.has(a.no))) || !liveSaid.has(sameKey(e)));
    let n = 0;
    const said = new Set(current.map(sameKey));
    for (const e of current) this.out(e, ++n);
    // What only an earlier version said.
    for (const row of rows) {
      for (const v of row.versions.slice(0, -1)) {
        for (const e of this.reader.entries([{ row, v }], full, emptyFacts())) {
          if ((e.role !== 'user' && e.role !== 'assistant') || !e.text.trim() || said.has(sameKey(e))) continue;
          said.add(sameKey(e));
          this.out({ ...e, role: 'system', kind: 'notice', text: `[earlier version, since changed in ${this.reader.label}'s database] ${e.text}`, tools: [], thinking: '' }, ++n);
        }
      }
    }
    const gone = rows.filter((r) => r.gone).length;
    if (gone > 0 && this.lastDel) {
      this.out(
        { role: 'system', kind: 'notice', text: `[${gone} row(s) of this session deleted from ${this.reader.label}'s database; what they said is kept above]`, at: [this.lastDel] },
        ++n,
      );
    }
  }

  private out(e: Entry, n: number): void {
    const lines = e.at.length ? e.at : [{ no: 1, from: 0, to: 0 }];
    let first = lines[0];
    let last = lines[0];
    for (const a of lines) {
      if (a.no < first.no) first = a;
      if (a.no > last.no) last = a;
    }
    const ts = e.ts ?? null;
    const t: Turn = {
      n,
      role: e.role,
      kind: e.kind,
      text: e.text,
      thinking: this.opts.full ? (e.thinking ?? '') : '',
      tools: (e.tools ?? []).map((u) => (this.opts.full ? u : { ...u, arguments: '', output: '' })),
      model: e.model ?? null,
      ts,
      ts_last: e.ts_last ?? ts,
      tokens: e.tokens ?? null,
      sidechain: e.sidechain ?? false,
      cwd: e.cwd ?? this.facts.cwd,
      branch: false,
      span: { line_from: first.no, line_to: last.no, byte_from: first.from, byte_to: last.to },
      full: this.opts.full,
    };
    if (ts) {
      this.facts.started = minTs(this.facts.started, ts);
      this.facts.ended = maxTs(this.facts.ended, t.ts_last);
    }
    this.emit(t);
  }
}

/** The dialect of an agent whose sessions are row-record files. */
export function rowsDialect(reader: RowsReader) {
  return {
    reads: (rel: string) => rel.endsWith(ROWS_SUFFIX),
    open: (opts: ParseOptions, emit: (t: Turn) => void) => new RowsParser(reader, opts, emit),
    sharedSpans: reader.shared ? () => true : undefined,
  };
}

/** Joins the non-empty texts, a blank line apart. */
export function joinTexts(parts: (string | null | undefined)[]): string {
  return parts
    .map((p) => (p ?? '').trim())
    .filter(Boolean)
    .join('\n\n');
}
