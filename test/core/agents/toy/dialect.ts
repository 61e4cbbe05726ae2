// The toy agent's lines -> turns: one turn a line, "me" a prompt, "bot" a reply.
import type { Checkpoint, Dialect, ParseOptions, RawLine, Turn } from '../../../../src/core/turns';
import { BaseParser, addText } from '../../../../src/core/agents/kit/parser';
import { isObj, tsOf } from '../../../../src/core/agents/kit/jsonl';

class ToyParser extends BaseParser<Record<string, never>> {
  constructor(opts: ParseOptions, emit: (t: Turn) => void, resume?: Checkpoint) {
    super(opts, emit, {}, resume);
  }

  protected onLine(l: RawLine): void {
    const j = this.parse(l);
    if (!j) return;
    const o = j.value;
    if (!isObj(o) || (o.who !== 'me' && o.who !== 'bot')) {
      this.badLine(l);
      return;
    }
    const ts = tsOf(o.timestamp);
    this.seen(ts);
    if (typeof o.cwd === 'string') this.facts.cwd ??= o.cwd;
    const t = this.turn(l, o.who === 'me' ? 'user' : 'assistant', o.who === 'me' ? 'prompt' : 'reply', ts);
    addText(t, j.str(o.say));
    this.emit(t);
  }

  protected onFinish(): void {}
}

export const toyDialect: Dialect = {
  reads: (rel) => rel.endsWith('.jsonl'),
  open: (opts, emit, resume) => new ToyParser(opts, emit, resume),
};
