// A dialect for a file that is one JSON document rewritten whole (Cline's task files, the Cline
// SDK's messages.json, Continue's sessions): nothing in it is final before it ends, so its lines
// are collected and the document is read at the end. Every turn cites the whole document (lines
// 1..N): one message inside a pretty-printed document is not a unit one can check alone, and a
// turn is told from its siblings by its number (the dialect says sharedSpans).
import type { Checkpoint, ParseOptions, RawLine, Span, Turn } from '../../turns';
import { BaseParser } from './parser';
import { lineText } from './jsonl';

export abstract class DocumentParser<S extends object = object> extends BaseParser<S> {
  private texts: string[] = [];
  private first: RawLine | null = null;
  private last: RawLine | null = null;

  constructor(opts: ParseOptions, emit: (t: Turn) => void, init: S, resume?: Checkpoint) {
    super(opts, emit, init, resume);
  }

  /** Reads the parsed document (its turns taken with this.docTurn). */
  protected abstract document(doc: unknown): void;

  protected onLine(l: RawLine): void {
    this.hold();
    this.texts.push(lineText(l));
    this.first ??= l;
    this.last = l;
  }

  /** The document's lines and bytes, first to last. */
  private get whole(): Span | null {
    if (!this.first || !this.last) return null;
    return { line_from: this.first.no, line_to: this.last.no, byte_from: this.first.from, byte_to: this.last.to };
  }

  protected onFinish(): void {
    if (!this.first) return;
    let doc: unknown;
    try {
      doc = JSON.parse(this.texts.join('\n'));
    } catch {
      // A document caught mid-write (Continue's is not written atomically): counted, kept on the
      // floor, and read again when its next version is captured.
      this.counts.bad++;
      return;
    }
    this.document(doc);
    this.release();
  }

  /** A new turn that cites the whole document. */
  protected docTurn(role: Turn['role'], kind: Turn['kind'], ts: string | null): Turn {
    const span = this.whole ?? { line_from: 1, line_to: 1, byte_from: 0, byte_to: 0 };
    const t = this.turn({ no: span.line_from, from: span.byte_from, to: span.byte_from } as RawLine, role, kind, ts);
    t.span = { ...span };
    return t;
  }
}

/** A tool's arguments or output as text: a string as it is, anything else as JSON. */
export function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A lake-relative path without its generation mark (ui_messages.g2.json -> ui_messages.json): a
 * dialect reads every generation of a file as it reads the first. */
export function withoutGeneration(rel: string): string {
  return rel.replace(/\.g\d+(?=\.[^./]*$)/, '');
}
