// Errors that name the thing, say what to do, and keep their cause. The code is stable so the
// status bar, doctor and --json can say the same thing.
export class BrainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BrainError';
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
