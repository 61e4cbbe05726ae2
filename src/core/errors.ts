// Errors that name the thing, say what to do, and keep their cause. The code is stable so the
// status bar, doctor and --json can say the same thing.
// The CLI is more than one bundle (dist/cli.js, dist/cli-mcp.js), each with its own copy of this
// class: `instanceof` goes by a registry-wide brand, not by which copy made the error.
const BRAND = Symbol.for('agent-brain.BrainError');

export class BrainError extends Error {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[BRAND] === true;
  }

  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BrainError';
    Object.defineProperty(this, BRAND, { value: true });
  }
}

export function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

export function describe(e: unknown): string {
  if (e instanceof BrainError) return e.hint ? `${e.message}\n  ${e.hint}` : e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
