// What every dialect's parser shares: turn numbering, the open region (turns that later lines may
// still extend) and the checkpoint that lets the index resume a grown file from its new bytes only.
//
// A dialect keeps two kinds of state: `st`, a flat object of primitives (cwd, model, flags) that is
// copied before every line, and its pending turns, which are never saved. The checkpoint is the
// first line of the oldest pending turn with the copy of `st` taken just before it, so resuming
// there re-reads every line a pending turn came from and rebuilds it.
import type { Checkpoint, DialectCounts, DialectParser, FileFacts, ParseOptions, RawLine, Turn, TurnKind, Role } from '../../turns';
import { emptyFacts } from '../../turns';
import { isBlank, JsonLine, maxTs, minTs } from './jsonl';

interface Saved<S> {
  st: S;
  facts: FileFacts;
  counts: DialectCounts;
}

export abstract class BaseParser<S extends object> implements DialectParser {
  facts: FileFacts;
  counts: DialectCounts;
  protected st: S;
  protected n: number;
  private pre: Saved<S> | null = null;
  private cur: RawLine | null = null;
  private open: Checkpoint | null = null;
  private next: { line: number; byte: number };
  private finished = false;

  constructor(
    protected readonly opts: ParseOptions,
    private readonly emitFn: (t: Turn) => void,
    init: S,
    resume?: Checkpoint,
  ) {
    if (resume) {
      const s = resume.state as Saved<S>;
      this.st = { ...s.st };
      this.facts = { ...s.facts };
      this.counts = { ...s.counts };
      this.n = resume.n;
      this.next = { line: resume.line, byte: resume.byte };
    } else {
      this.st = init;
      this.facts = emptyFacts();
      this.counts = { lines: 0, bad: 0 };
      this.n = 0;
      this.next = { line: 1, byte: 0 };
    }
  }

  line(l: RawLine): void {
    this.pre = { st: { ...this.st }, facts: { ...this.facts }, counts: { ...this.counts } };
    this.cur = l;
    this.next = { line: l.no + 1, byte: l.to };
    if (isBlank(l)) return;
    this.counts.lines++;
    this.onLine(l);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onFinish();
  }

  checkpoint(): Checkpoint {
    if (this.open) return this.open;
    return {
      line: this.next.line,
      byte: this.next.byte,
      n: this.n,
      state: { st: { ...this.st }, facts: { ...this.facts }, counts: { ...this.counts } } satisfies Saved<S>,
    };
  }

  protected abstract onLine(l: RawLine): void;
  /** Emit every pending turn. */
  protected abstract onFinish(): void;

  /** The current line opens (or joins) the open region. Call before numbering this line's turn:
   * numbers taken earlier in the line belong to earlier lines' turns, which are final. */
  protected hold(): void {
    if (this.open || !this.cur || !this.pre) return;
    this.open = { line: this.cur.no, byte: this.cur.from, n: this.n, state: this.pre };
  }

  /** Nothing is pending any more: everything emitted so far is final. */
  protected release(): void {
    this.open = null;
  }

  protected get holding(): boolean {
    return this.open !== null;
  }

  protected parse(l: RawLine): JsonLine | null {
    const j = new JsonLine(l, !this.opts.full);
    if (!j.ok) {
      this.badLine(l);
      return null;
    }
    return j;
  }

  /** A line that is not a record this dialect reads: counted, and shown to the scan tier. */
  protected badLine(l: RawLine): void {
    this.counts.bad++;
    this.opts.onBad?.(l);
  }

  protected seen(ts: string | null): void {
    if (!ts) return;
    this.facts.started = minTs(this.facts.started, ts);
    this.facts.ended = maxTs(this.facts.ended, ts);
  }

  /** A new turn for line `l`, with its number taken now (so numbers follow first lines). */
  protected turn(l: RawLine, role: Role, kind: TurnKind, ts: string | null): Turn {
    return {
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
      span: { line_from: l.no, line_to: l.no, byte_from: l.from, byte_to: l.to },
      full: this.opts.full,
    };
  }

  /** Extends a pending turn to line `l`. */
  protected extend(t: Turn, l: RawLine, ts: string | null): void {
    t.span.line_to = l.no;
    t.span.byte_to = l.to;
    if (ts) {
      t.ts_last = maxTs(t.ts_last, ts);
      if (!t.ts) t.ts = ts;
    }
  }

  protected emit(t: Turn): void {
    this.emitFn(t);
  }
}

/** Joins text blocks: each trimmed, empty ones dropped, separated by a blank line. */
export function joinText(parts: string[]): string {
  let out = '';
  for (const p of parts) {
    const t = p.trim();
    if (!t) continue;
    out = out ? `${out}\n\n${t}` : t;
  }
  return out;
}

export function addText(t: { text: string }, s: string): void {
  const x = s.trim();
  if (!x) return;
  t.text = t.text ? `${t.text}\n\n${x}` : x;
}

export function addThinking(t: { thinking: string }, s: string): void {
  const x = s.trim();
  if (!x) return;
  t.thinking = t.thinking ? `${t.thinking}\n\n${x}` : x;
}
